import type Database from "better-sqlite3";
import { DEFAULT_SQLITE_SYNCHRONOUS, Prisma, type Db, type DbTx, type SqliteSynchronous } from "./client";
import { providerFromUrl } from "./provider";
import { quoteIdent as quote, sqliteValue as encode } from "./sql-encoding";
import { acquireHotConnection } from "./sqlite-hot";

/**
 * Atomic writes on hot rows (a merchant's wallet, the audit log), written once in SQL both databases
 * accept and run the cheapest way each allows. A write is a step, or a script of steps (a generator
 * that yields each step and gets its result back), so the caller decides what happens from one
 * statement to the next without knowing the database:
 * - SQLite runs the script synchronously, as prepared statements in one group commit on the shared
 *   direct connection (about 10x cheaper than an interactive Prisma transaction);
 * - PostgreSQL runs it in a Prisma transaction, one round trip per step, and a lone step as a single
 *   statement without a transaction.
 * Throwing inside a script rolls back what it wrote, and the error reaches the caller.
 */

/** Rows for one table; column names are trusted constants, never user input. */
export interface BulkRows {
  table: string;
  columns: readonly string[];
  rows: unknown[][];
}

/** One SQL statement both databases accept, with its values bound as parameters; write it with the `sql` tag. */
export interface Statement {
  readonly strings: TemplateStringsArray;
  readonly values: readonly unknown[];
}

/**
 * sql`UPDATE "Wallet" SET … WHERE "id" = ${id}`: every `${}` is a bound value, never spliced into
 * the text. The text of a call site is the same object on every call, so SQLite prepares it once.
 */
export const sql = (strings: TemplateStringsArray, ...values: unknown[]): Statement => ({ strings, values });

const toPrisma = (st: Statement) => Prisma.sql(st.strings, ...st.values);

type Action =
  | { kind: "rows"; st: Statement }
  | { kind: "count"; st: Statement }
  | { kind: "insert"; batches: BulkRows[] }
  | { kind: "chain"; first: Statement; then: Statement };

/** One statement (or one fused pair). `yield* step` inside a script runs it and gives its result. */
export class WriteStep<R> {
  constructor(readonly action: Action) {}
  *[Symbol.iterator](): Generator<WriteStep<unknown>, R, unknown> {
    return (yield this) as R;
  }
}

/** A script of steps; its return value is what the write resolves to. */
export type WriteScript<T> = Generator<WriteStep<unknown>, T, unknown>;

/**
 * The rows a statement returns: a SELECT, or an UPDATE/INSERT … RETURNING. Values come as the
 * driver reads them: read booleans with Boolean(), and return only columns (a computed number may
 * come back as a bigint on PostgreSQL).
 */
export const rowsOf = <R>(st: Statement) => new WriteStep<R[]>({ kind: "rows", st });

/** How many rows a statement changed: the test of a conditional update. */
export const changedRows = (st: Statement) => new WriteStep<number>({ kind: "count", st });

/** Appends rows to several tables; on PostgreSQL every table's rows in one statement. */
export const insertMany = (batches: BulkRows[]) => new WriteStep<void>({ kind: "insert", batches });

/**
 * `first` (a statement with RETURNING), then `then` over the rows it returned, which `then` reads as
 * the table "prev"; both or neither. Resolves to the rows `then` changed (0 when `first` returned
 * none). On PostgreSQL it is one statement (`WITH "prev" AS (first) then`), so a row `first` locks
 * stays locked only while that statement runs.
 */
export const chainReturning = (first: Statement, then: Statement) => new WriteStep<number>({ kind: "chain", first, then });

export interface AtomicWriter {
  /** One step on its own. */
  run<R>(step: WriteStep<R>): Promise<R>;
  /**
   * The rows of one SELECT, read at once rather than in a write's commit: committed data only. For
   * hot reads, where Prisma's per-query cost (a statement prepared on every SQLite query) dominates.
   */
  read<R>(st: Statement): Promise<R[]>;
  /** A script of steps as one transaction. */
  transaction<T>(script: WriteScript<T>): Promise<T>;
  close(): void;
}

function drive<T>(script: WriteScript<T>, runStep: (s: WriteStep<unknown>) => unknown): T {
  let next = script.next();
  while (!next.done) next = script.next(runStep(next.value));
  return next.value;
}

async function driveAsync<T>(script: WriteScript<T>, runStep: (s: WriteStep<unknown>) => Promise<unknown>): Promise<T> {
  let next = script.next();
  while (!next.done) next = script.next(await runStep(next.value));
  return next.value;
}

function sqliteWriter(databaseUrl: string, synchronous: SqliteSynchronous): AtomicWriter {
  const { conn, write, release } = acquireHotConnection(databaseUrl, synchronous);
  // Prepared once per call site's text (a chain's also per shape of the returned rows) and per insert shape.
  const byText = new WeakMap<TemplateStringsArray, Database.Statement>();
  const chains = new WeakMap<TemplateStringsArray, Map<string, Database.Statement>>();
  const inserts = new Map<string, Database.Statement>();
  const prepared = (st: Statement) => {
    let p = byText.get(st.strings);
    if (!p) {
      p = conn.prepare(st.strings.join("?"));
      byText.set(st.strings, p);
    }
    return p;
  };
  const preparedChain = (then: Statement, cols: string[], rowCount: number) => {
    let shapes = chains.get(then.strings);
    if (!shapes) chains.set(then.strings, (shapes = new Map()));
    const key = `${cols.join(",")}|${rowCount}`;
    let p = shapes.get(key);
    if (!p) {
      const tuple = `(${cols.map(() => "?").join(",")})`;
      const values = Array.from({ length: rowCount }, () => tuple).join(",");
      p = conn.prepare(`WITH "prev"(${cols.map(quote).join(",")}) AS (VALUES ${values}) ${then.strings.join("?")}`);
      shapes.set(key, p);
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
  // A write stamps one time on several rows: the last Date's text is kept rather than formatted again.
  let lastDate: Date | undefined;
  let lastTime = NaN;
  let lastText: unknown;
  const value = (v: unknown) => {
    if (!(v instanceof Date)) return encode(v);
    if (v !== lastDate || v.getTime() !== lastTime) {
      lastDate = v;
      lastTime = v.getTime();
      lastText = encode(v);
    }
    return lastText;
  };
  const params = (st: Statement) => st.values.map(value);

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
        // SQLite has no UPDATE inside WITH: the returned rows go back in as a VALUES table.
        const cols = Object.keys(rows[0]!);
        const st = preparedChain(a.then, cols, rows.length);
        return st.run([...rows.flatMap((r) => cols.map((c) => r[c])), ...params(a.then)]).changes;
      }
    }
  };

  return {
    // The group writer runs each write in a savepoint of its commit: a throw rolls back only that write.
    run: (step) => write(() => runStep(step) as never),
    // A synchronous driver: no write's transaction is open while other code runs.
    read: <R>(st: Statement) => Promise.resolve(prepared(st).all(params(st)) as R[]),
    transaction: (script) => write(() => drive(script, runStep)),
    close: release,
  };
}

/** Every table's rows in one statement (data-modifying CTEs), atomic without a transaction. */
function postgresInsertSql(batches: BulkRows[]): Prisma.Sql | null {
  const nonEmpty = batches.filter((b) => b.rows.length > 0);
  if (nonEmpty.length === 0) return null;
  const insertSql = (b: BulkRows) =>
    Prisma.sql`INSERT INTO ${Prisma.raw(quote(b.table))} (${Prisma.raw(b.columns.map(quote).join(","))}) VALUES ${Prisma.join(
      b.rows.map((r) => Prisma.sql`(${Prisma.join(r.map((v) => (v === undefined ? null : v)))})`),
    )}`;
  const last = nonEmpty[nonEmpty.length - 1]!;
  const ctes = nonEmpty.slice(0, -1).map((b, i) => Prisma.sql`${Prisma.raw(`w${i}`)} AS (${insertSql(b)})`);
  return ctes.length ? Prisma.sql`WITH ${Prisma.join(ctes)} ${insertSql(last)}` : insertSql(last);
}

/** One hot row serialises these transactions; waiting in line for a connection is normal under a burst. */
const TX_OPTIONS = { maxWait: 10_000, timeout: 10_000 };

function postgresWriter(db: Db): AtomicWriter {
  const runStep = async (q: Db | DbTx, step: WriteStep<unknown>): Promise<unknown> => {
    const a = step.action;
    switch (a.kind) {
      case "rows":
        return q.$queryRaw(toPrisma(a.st));
      case "count":
        return q.$executeRaw(toPrisma(a.st));
      case "insert": {
        const insert = postgresInsertSql(a.batches);
        if (insert) await q.$executeRaw(insert);
        return undefined;
      }
      case "chain":
        return q.$executeRaw(Prisma.sql`WITH "prev" AS (${toPrisma(a.first)}) ${toPrisma(a.then)}`);
    }
  };
  return {
    run: (step) => runStep(db, step) as Promise<never>,
    read: <R>(st: Statement) => db.$queryRaw<R[]>(toPrisma(st)),
    transaction: (script) => db.$transaction((tx) => driveAsync(script, (s) => runStep(tx, s)), TX_OPTIONS),
    close() {},
  };
}

export function createAtomicWriter(db: Db, databaseUrl: string, sqliteSynchronous: SqliteSynchronous = DEFAULT_SQLITE_SYNCHRONOUS): AtomicWriter {
  return providerFromUrl(databaseUrl) === "sqlite" ? sqliteWriter(databaseUrl, sqliteSynchronous) : postgresWriter(db);
}
