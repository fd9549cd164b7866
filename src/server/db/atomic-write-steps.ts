import type { DbProvider } from "./provider";
import { quoteIdent as quote } from "./sql-encoding";

/**
 * Atomic writes on hot rows (a merchant's wallet, the audit log), written once in SQL both databases
 * accept and run the cheapest way each allows. A write is a step, or a script of steps (a generator
 * that yields each step and gets its result back), so the caller decides what happens from one
 * statement to the next without knowing the database:
 * - SQLite runs the script synchronously, as prepared statements in one group commit on the shared
 *   direct connection (about 10x cheaper than an interactive Prisma transaction);
 * - PostgreSQL runs it in a transaction on the pool under Prisma (pg directly, prepared statements,
 *   without Prisma's per-query cost), one round trip per step, and a lone step as a single statement
 *   without a transaction.
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
  /** PostgreSQL plans it at every run, for its values and its tables' sizes then (see `sqlPlannedEachRun`). */
  readonly planEachRun?: boolean;
}

/**
 * sql`UPDATE "Wallet" SET … WHERE "id" = ${id}`: every `${}` is a bound value, never spliced into
 * the text. The text of a call site is the same object on every call, so SQLite prepares it once.
 */
export const sql = (strings: TemplateStringsArray, ...values: unknown[]): Statement => ({ strings, values });

/**
 * As `sql`, for a statement PostgreSQL must plan at every run rather than once per connection: one
 * whose best plan changes as its tables grow. A plan kept from the first runs, on near-empty tables,
 * may scan a table whole ever after (SQLite still prepares it once).
 */
export const sqlPlannedEachRun = (strings: TemplateStringsArray, ...values: unknown[]): Statement => ({ strings, values, planEachRun: true });

/** SQL text written into a statement rather than bound (`sqlWithText`): a constant of the code, never input. */
export class SqlText {
  constructor(readonly text: string) {}
}

const splicedTexts = new WeakMap<TemplateStringsArray, TemplateStringsArray>();

/**
 * As `sql`, but a `${}` holding a SqlText is written into the text: for a piece of SQL that several
 * statements share. The text of a call site is made once, so it must splice the same SqlText every time.
 */
export function sqlWithText(strings: TemplateStringsArray, ...values: unknown[]): Statement {
  let merged = splicedTexts.get(strings);
  if (!merged) {
    const parts = [strings[0]!];
    values.forEach((v, i) => {
      if (v instanceof SqlText) parts[parts.length - 1] += v.text + strings[i + 1]!;
      else parts.push(strings[i + 1]!);
    });
    merged = Object.freeze(Object.assign([...parts], { raw: parts })) as TemplateStringsArray;
    splicedTexts.set(strings, merged);
  }
  return { strings: merged, values: values.filter((v) => !(v instanceof SqlText)) };
}

/** A piece of SQL written into another statement with its own values (`sqlWithParts`). */
const isStatement = (v: unknown): v is Statement =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Array.isArray((v as Statement).strings) && Array.isArray((v as Statement).values);

type PartTexts = { merged?: TemplateStringsArray; next: WeakMap<TemplateStringsArray, PartTexts> };
const partTexts = new WeakMap<TemplateStringsArray, PartTexts>();

/**
 * As `sql`, but a `${}` holding a Statement is written into the text with its values bound in their
 * place: for a condition several statements share (a lease's claimable rule, a batch's admission).
 * The text is made once per call site and per text of the pieces spliced, so SQLite and PostgreSQL
 * still find their prepared statements by it.
 */
export function sqlWithParts(strings: TemplateStringsArray, ...values: unknown[]): Statement {
  let node: PartTexts | undefined = partTexts.get(strings);
  if (!node) partTexts.set(strings, (node = { next: new WeakMap() }));
  for (const v of values) {
    if (!isStatement(v)) continue;
    let child: PartTexts | undefined = node.next.get(v.strings);
    if (!child) node.next.set(v.strings, (child = { next: new WeakMap() }));
    node = child;
  }
  if (!node.merged) {
    const parts = [strings[0]!];
    values.forEach((v, i) => {
      if (isStatement(v)) {
        parts[parts.length - 1] += v.strings[0]!;
        parts.push(...v.strings.slice(1));
        parts[parts.length - 1] += strings[i + 1]!;
      } else parts.push(strings[i + 1]!);
    });
    node.merged = Object.freeze(Object.assign([...parts], { raw: parts })) as TemplateStringsArray;
  }
  return { strings: node.merged, values: values.flatMap((v) => (isStatement(v) ? v.values : [v])) };
}

const joinedTexts = new WeakMap<TemplateStringsArray, WeakMap<TemplateStringsArray, TemplateStringsArray>>();

/**
 * Two statements written one after the other as one, each with its own values: for a closing piece
 * of SQL that several statements share. The joined text is made once per pair (prepared statements
 * are found by it); the head's planning rule is kept.
 */
export function sqlJoined(head: Statement, tail: Statement): Statement {
  let byTail = joinedTexts.get(head.strings);
  if (!byTail) joinedTexts.set(head.strings, (byTail = new WeakMap()));
  let strings = byTail.get(tail.strings);
  if (!strings) {
    const parts = [...head.strings.slice(0, -1), head.strings[head.strings.length - 1]! + tail.strings[0]!, ...tail.strings.slice(1)];
    strings = Object.freeze(Object.assign([...parts], { raw: parts })) as TemplateStringsArray;
    byTail.set(tail.strings, strings);
  }
  return { strings, values: [...head.values, ...tail.values], ...(head.planEachRun ? { planEachRun: true } : {}) };
}

export type Action =
  | { kind: "rows"; st: Statement }
  | { kind: "count"; st: Statement }
  | { kind: "insert"; batches: BulkRows[] }
  | { kind: "chain"; first: Statement; then: Statement }
  | { kind: "links"; links: readonly Link[]; result: readonly string[] };

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

/** A statement of a linked write; with a name, the rows it returns are a table of that name for the statements after it. */
export interface Link {
  name?: string;
  st: Statement;
}

/**
 * Statements in order as one write, each able to read the rows returned by named statements before
 * it as tables of those names; resolves to the rows of the `result` tables joined (each usually one
 * row). A named statement must return its rows (RETURNING), and when it returns none nothing after
 * it is written: every later statement must read it, so the same holds on PostgreSQL, where the
 * whole chain is one statement (data-modifying WITH) and no row stays locked between round trips.
 */
export const linked = <R>(links: readonly Link[], result: readonly string[]) => new WriteStep<R[]>({ kind: "links", links, result });

const insertFromTexts = new Map<string, TemplateStringsArray>();

/**
 * For a `linked` chain: an INSERT of one row that is written only when the link `from` returned a
 * row (INSERT … SELECT … FROM "from"). The text is made once per table, columns and link.
 */
export function insertFrom(from: string, b: BulkRows): Statement {
  if (b.rows.length !== 1) throw new Error("insertFrom: one row");
  const key = `${from}|${b.table}|${b.columns.join(",")}`;
  let strings = insertFromTexts.get(key);
  if (!strings) {
    const parts = [`INSERT INTO ${quote(b.table)} (${b.columns.map(quote).join(",")}) SELECT `, ...b.columns.slice(1).map(() => ", "), ` FROM ${quote(from)}`];
    strings = Object.freeze(Object.assign([...parts], { raw: parts })) as TemplateStringsArray;
    insertFromTexts.set(key, strings);
  }
  return { strings, values: b.rows[0]! };
}

export interface AtomicWriter {
  /** The database it writes to, for the few writes that have a faster form on one of them. */
  readonly provider: DbProvider;
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
