import pg from "pg";
import type { AtomicWriter, BulkRows, Link, Statement, WriteScript, WriteStep } from "./atomic-write-steps";
import { quoteIdent as quote } from "./sql-encoding";

/**
 * The atomic writer on PostgreSQL: pg directly on the pool Prisma uses, each statement text
 * prepared once per connection. Values and rows look as through Prisma's raw queries: Dates in
 * and out (timestamps are UTC), bigint for int8.
 */

type Queryable = Pick<pg.Pool, "query"> | pg.PoolClient;

// Prisma's DateTime columns are `timestamp(3)` without a zone, holding UTC.
const parseUtcTimestamp = (text: string) => new Date(`${text.replace(" ", "T")}Z`);
const TYPES = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.TIMESTAMP
      ? parseUtcTimestamp
      : oid === pg.types.builtins.INT8
        ? BigInt
        : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

// ISO text: PostgreSQL reads it as UTC into a zoneless timestamp whatever the process's time zone.
const pgValue = (v: unknown) => (v instanceof Date ? v.toISOString() : v === undefined ? null : typeof v === "bigint" ? v.toString() : v);

/** The statement's text with $n placeholders, numbered from `offset` + 1. */
function numbered(st: Statement, offset: number): string {
  let text = st.strings[0]!;
  for (let i = 1; i < st.strings.length; i++) text += `$${offset + i}${st.strings[i]}`;
  return text;
}

/** Every table's rows in one statement (data-modifying CTEs), atomic without a transaction. */
function insertSql(batches: BulkRows[]): { text: string; values: unknown[] } | null {
  const nonEmpty = batches.filter((b) => b.rows.length > 0);
  if (nonEmpty.length === 0) return null;
  const values: unknown[] = [];
  const one = (b: BulkRows) => {
    const tuples = b.rows.map((r) => `(${r.map((v) => `$${values.push(v)}`).join(",")})`);
    return `INSERT INTO ${quote(b.table)} (${b.columns.map(quote).join(",")}) VALUES ${tuples.join(",")}`;
  };
  const ctes = nonEmpty.slice(0, -1).map((b, i) => `"w${i}" AS (${one(b)})`);
  const last = one(nonEmpty[nonEmpty.length - 1]!);
  return { text: ctes.length ? `WITH ${ctes.join(",")} ${last}` : last, values };
}

function linksSql(links: readonly Link[], result: readonly string[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const ctes = links.map((l, i) => {
    const text = `${quote(l.name ?? `link${i}`)} AS (${numbered(l.st, values.length)})`;
    values.push(...l.st.values);
    return text;
  });
  return { text: `WITH ${ctes.join(",")} SELECT * FROM ${result.map(quote).join(",")}`, values };
}

/** Statement names by text, for the fixed texts of call sites; past the cap, texts run unnamed. */
const MAX_NAMED_STATEMENTS = 500;
// One map for the process: a connection's names must each mean one text, whichever writer prepared it.
const statementNames = new Map<string, string>();

export function postgresWriter(pool: pg.Pool): AtomicWriter {
  const single = new WeakMap<TemplateStringsArray, string>();
  const textOf = (st: Statement) => {
    let text = single.get(st.strings);
    if (text === undefined) single.set(st.strings, (text = numbered(st, 0)));
    return text;
  };
  const exec = (q: Queryable, text: string, values: readonly unknown[], prepare = true) => {
    let name = statementNames.get(text);
    if (prepare && name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) statementNames.set(text, (name = `parakh_w${statementNames.size}`));
    return q.query({ name, text, values: values.map(pgValue), types: TYPES });
  };

  const runStep = async (q: Queryable, step: WriteStep<unknown>): Promise<unknown> => {
    const a = step.action;
    switch (a.kind) {
      case "rows":
        return (await exec(q, textOf(a.st), a.st.values, !a.st.planEachRun)).rows;
      case "count":
        return (await exec(q, textOf(a.st), a.st.values)).rowCount ?? 0;
      case "insert": {
        const insert = insertSql(a.batches);
        // Not prepared: the text changes with every row count.
        if (insert) await exec(q, insert.text, insert.values, false);
        return undefined;
      }
      case "chain": {
        const text = `WITH "prev" AS (${numbered(a.first, 0)}) ${numbered(a.then, a.first.values.length)}`;
        return (await exec(q, text, [...a.first.values, ...a.then.values])).rowCount ?? 0;
      }
      case "links": {
        const { text, values } = linksSql(a.links, a.result);
        return (await exec(q, text, values)).rows;
      }
    }
  };

  async function transaction<T>(script: WriteScript<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      let next = script.next();
      while (!next.done) next = script.next(await runStep(client, next.value));
      await client.query("COMMIT");
      return next.value;
    } catch (err) {
      await client.query("ROLLBACK").catch((rollbackErr: Error) => (broken = rollbackErr));
      throw err;
    } finally {
      // A connection whose rollback failed is closed rather than reused mid-transaction.
      client.release(broken);
    }
  }

  return {
    provider: "postgresql",
    run: (step) => runStep(pool, step) as Promise<never>,
    read: async <R>(st: Statement) => (await exec(pool, textOf(st), st.values)).rows as R[],
    transaction,
    close() {},
  };
}
