import type Database from "better-sqlite3";
import { postgresWriter } from "./atomic-write-postgres";
import type { AtomicWriter, BulkRows, Link, Statement, WriteScript, WriteStep } from "./atomic-write-steps";
import { DEFAULT_SQLITE_SYNCHRONOUS, postgresPool, type Db, type SqliteSynchronous } from "./client";
import { providerFromUrl } from "./provider";
import { quoteIdent as quote, sqliteValue as encode } from "./sql-encoding";
import { acquireHotConnection } from "./sqlite-hot";

// The writers: what a step or script (./atomic-write-steps.ts) becomes on each database.
export * from "./atomic-write-steps";

/** Every combination of one row from each list, merged: the join of one-row results. */
function joinRows(lists: Record<string, unknown>[][]): Record<string, unknown>[] {
  return lists.reduce<Record<string, unknown>[]>((acc, rows) => acc.flatMap((a) => rows.map((r) => ({ ...a, ...r }))), [{}]);
}

function drive<T>(script: WriteScript<T>, runStep: (s: WriteStep<unknown>) => unknown): T {
  let next = script.next();
  while (!next.done) next = script.next(runStep(next.value));
  return next.value;
}

interface NamedRows {
  name: string;
  cols: string[];
  rows: Record<string, unknown>[];
}

/** The values of earlier rows, in the order of their VALUES tables. */
const tableValues = (named: NamedRows[]) => named.flatMap((n) => n.rows.flatMap((r) => n.cols.map((c) => r[c])));

/**
 * Statements prepared once per call site's text, per shape of the earlier rows a statement reads
 * (SQLite has no UPDATE inside WITH: returned rows go back in as VALUES tables), and per insert shape.
 */
function sqliteStatements(conn: Database.Database) {
  const byText = new WeakMap<TemplateStringsArray, Database.Statement>();
  const withTables = new WeakMap<TemplateStringsArray, Map<string, Database.Statement>>();
  const inserts = new Map<string, Database.Statement>();
  const prepared = (st: Statement) => {
    let p = byText.get(st.strings);
    if (!p) byText.set(st.strings, (p = conn.prepare(st.strings.join("?"))));
    return p;
  };
  const preparedWith = (st: Statement, named: NamedRows[]) => {
    if (named.length === 0) return prepared(st);
    let shapes = withTables.get(st.strings);
    if (!shapes) withTables.set(st.strings, (shapes = new Map()));
    const key = named.map((n) => `${n.name}(${n.cols.join(",")})${n.rows.length}`).join(";");
    let p = shapes.get(key);
    if (!p) {
      const tables = named.map((n) => {
        const tuple = `(${n.cols.map(() => "?").join(",")})`;
        return `${quote(n.name)}(${n.cols.map(quote).join(",")}) AS (VALUES ${Array.from({ length: n.rows.length }, () => tuple).join(",")})`;
      });
      shapes.set(key, (p = conn.prepare(`WITH ${tables.join(",")} ${st.strings.join("?")}`)));
    }
    return p;
  };
  const preparedInsert = (b: BulkRows) => {
    const key = `${b.table}(${b.columns.join(",")})`;
    let p = inserts.get(key);
    if (!p) {
      p = conn.prepare(`INSERT INTO ${quote(b.table)} (${b.columns.map(quote).join(",")}) VALUES (${b.columns.map(() => "?").join(",")})`);
      inserts.set(key, p);
    }
    return p;
  };
  return { prepared, preparedWith, preparedInsert };
}

/** Values as stored; a write stamps one time on several rows, so the last Date's text is kept rather than formatted again. */
function sqliteValues() {
  let lastDate: Date | undefined;
  let lastTime = NaN;
  let lastText: unknown;
  return (v: unknown) => {
    if (!(v instanceof Date)) return encode(v);
    if (v !== lastDate || v.getTime() !== lastTime) {
      lastDate = v;
      lastTime = v.getTime();
      lastText = encode(v);
    }
    return lastText;
  };
}

function sqliteWriter(databaseUrl: string, synchronous: SqliteSynchronous): AtomicWriter {
  const { conn, write, release } = acquireHotConnection(databaseUrl, synchronous);
  const { prepared, preparedWith, preparedInsert } = sqliteStatements(conn);
  const value = sqliteValues();
  const params = (st: Statement) => st.values.map(value);

  const runLinks = (links: readonly Link[], result: readonly string[]) => {
    const named: NamedRows[] = [];
    for (const link of links) {
      const st = preparedWith(link.st, named);
      const values = [...tableValues(named), ...params(link.st)];
      if (!link.name) {
        st.run(values);
        continue;
      }
      const rows = st.all(values) as Record<string, unknown>[];
      if (rows.length === 0) return [];
      named.push({ name: link.name, cols: Object.keys(rows[0]!), rows });
    }
    return joinRows(result.map((name) => named.find((n) => n.name === name)!.rows));
  };

  const runStep = (step: WriteStep<unknown>): unknown => {
    const a = step.action;
    switch (a.kind) {
      case "rows":
        return prepared(a.st).all(params(a.st));
      case "count":
        return prepared(a.st).run(params(a.st)).changes;
      case "insert":
        for (const b of a.batches) {
          const st = preparedInsert(b);
          for (const row of b.rows) st.run(row.map(value));
        }
        return undefined;
      case "chain": {
        const rows = prepared(a.first).all(params(a.first)) as Record<string, unknown>[];
        if (rows.length === 0) return 0;
        const prev = [{ name: "prev", cols: Object.keys(rows[0]!), rows }];
        return preparedWith(a.then, prev).run([...tableValues(prev), ...params(a.then)]).changes;
      }
      case "links":
        return runLinks(a.links, a.result);
    }
  };

  return {
    provider: "sqlite",
    // The group writer runs each write in a savepoint of its commit: a throw rolls back only that write.
    run: (step) => write(() => runStep(step) as never),
    // A synchronous driver: no write's transaction is open while other code runs.
    read: <R>(st: Statement) => Promise.resolve(prepared(st).all(params(st)) as R[]),
    transaction: (script) => write(() => drive(script, runStep)),
    close: release,
  };
}

export function createAtomicWriter(db: Db, databaseUrl: string, sqliteSynchronous: SqliteSynchronous = DEFAULT_SQLITE_SYNCHRONOUS): AtomicWriter {
  return providerFromUrl(databaseUrl) === "sqlite" ? sqliteWriter(databaseUrl, sqliteSynchronous) : postgresWriter(postgresPool(db));
}
