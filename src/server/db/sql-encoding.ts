/** A quoted SQL identifier; names are trusted constants, never user input. */
export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A value as Prisma's SQLite adapter stores it, so the client reads rows written directly back unchanged. */
export const sqliteValue = (v: unknown) =>
  v instanceof Date ? v.toISOString().replace("Z", "+00:00") : typeof v === "boolean" ? (v ? 1 : 0) : v === undefined ? null : v;
