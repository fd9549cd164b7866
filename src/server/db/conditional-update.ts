import { changedRows, type AtomicWriter, type Statement } from "./atomic-write";
import { quoteIdent as quote } from "./sql-encoding";

/**
 * Prisma-style conditional updates (`updateMany({ where, data })`) run as one SQL UPDATE through the
 * atomic writer: on SQLite inside the group commit, so a lease claim or release shares its fsync
 * with everything written in the same moment instead of syncing on its own; on PostgreSQL as one
 * statement. Only the forms the leases use are understood, and anything else is refused loudly:
 *
 *   where: column = value, column IS NULL, column <= / < value ({ lte } / { lt }), OR of such objects
 *   data:  column = value (null, a Date), column + n ({ increment }), column - n ({ decrement })
 *
 * As with Prisma, a key whose value is `undefined` is left out (neither written nor tested).
 * Column names come from the code, never from input.
 */
export interface ConditionalUpdateTable {
  updateMany(args: { where: Record<string, unknown>; data: Record<string, unknown> }): Promise<{ count: number }>;
}

const HOLE = "\u0000";

export function conditionalUpdates(writer: AtomicWriter, table: string, options: { updatedAt?: boolean } = {}): ConditionalUpdateTable {
  // One strings array per statement shape, so SQLite prepares each shape once.
  const shapes = new Map<string, TemplateStringsArray>();
  const statement = (text: string, values: unknown[]): Statement => {
    let strings = shapes.get(text);
    if (!strings) {
      const parts = text.split(HOLE);
      strings = Object.assign(parts, { raw: parts }) as unknown as TemplateStringsArray;
      shapes.set(text, strings);
    }
    return { strings, values };
  };

  return {
    async updateMany({ where, data }) {
      const values: unknown[] = [];
      const sets = Object.entries(data)
        .filter(([, v]) => v !== undefined)
        .map(([column, v]) => assignment(column, v, values));
      if (sets.length === 0 && !options.updatedAt) throw new Error("conditionalUpdates: an update needs a column to write");
      if (options.updatedAt) {
        sets.push(`${quote("updatedAt")} = ${HOLE}`);
        values.push(new Date());
      }
      const condition = conjunction(where, values);
      const text = `UPDATE ${quote(table)} SET ${sets.join(", ")} WHERE ${condition}`;
      return { count: await writer.run(changedRows(statement(text, values))) };
    },
  };
}

function assignment(column: string, v: unknown, values: unknown[]): string {
  const c = quote(column);
  if (isOperator(v)) {
    if ("increment" in v) {
      values.push(v.increment);
      return `${c} = ${c} + ${HOLE}`;
    }
    if ("decrement" in v) {
      values.push(v.decrement);
      return `${c} = ${c} - ${HOLE}`;
    }
    throw new Error(`conditionalUpdates: unsupported update of ${column}: ${Object.keys(v).join(", ")}`);
  }
  values.push(v);
  return `${c} = ${HOLE}`;
}

function conjunction(where: Record<string, unknown>, values: unknown[]): string {
  const clauses = Object.entries(where)
    .filter(([, v]) => v !== undefined)
    .map(([key, v]) => {
      if (key === "OR") {
        if (!Array.isArray(v) || v.length === 0) throw new Error("conditionalUpdates: OR needs a list of conditions");
        return `(${v.map((sub) => `(${conjunction(sub as Record<string, unknown>, values)})`).join(" OR ")})`;
      }
      const c = quote(key);
      if (v === null) return `${c} IS NULL`;
      if (isOperator(v)) {
        if ("lte" in v) {
          values.push(v.lte);
          return `${c} <= ${HOLE}`;
        }
        if ("lt" in v) {
          values.push(v.lt);
          return `${c} < ${HOLE}`;
        }
        throw new Error(`conditionalUpdates: unsupported condition on ${key}: ${Object.keys(v).join(", ")}`);
      }
      values.push(v);
      return `${c} = ${HOLE}`;
    });
  if (clauses.length === 0) throw new Error("conditionalUpdates: an update needs a condition");
  return clauses.join(" AND ");
}

function isOperator(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !(v instanceof Date);
}
