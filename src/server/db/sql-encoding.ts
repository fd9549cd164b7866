/** A quoted SQL identifier; names are trusted constants, never user input. */
export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A value as Prisma's SQLite adapter stores it, so the client reads rows written directly back unchanged. */
export const sqliteValue = (v: unknown) =>
  v instanceof Date ? v.toISOString().replace("Z", "+00:00") : typeof v === "boolean" ? (v ? 1 : 0) : v === undefined ? null : v;

/**
 * A DateTime column read by raw SQL, as a Date: PostgreSQL's driver gives Dates; SQLite gives the
 * text Prisma's adapter stores (ISO 8601 with an offset), and a bare "YYYY-MM-DD HH:MM:SS" written
 * by SQL's own clock is UTC.
 */
export function dateFromSql(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v;
  if (typeof v === "number" || typeof v === "bigint") return new Date(Number(v));
  const text = String(v);
  return new Date(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(text) ? `${text.replace(" ", "T")}Z` : text);
}
