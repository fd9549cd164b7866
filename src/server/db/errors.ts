/**
 * True for a unique-constraint violation on any constraint, from either database, whether it came
 * through a Prisma model call (P2002), a raw query (P2010) or a direct connection.
 */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { code?: string; meta?: { code?: string }; message?: string };
  if (e.code === "P2002" || e.code === "SQLITE_CONSTRAINT_UNIQUE" || e.code === "SQLITE_CONSTRAINT_PRIMARYKEY" || e.code === "23505") return true;
  return e.code === "P2010" && (e.meta?.code === "23505" || /unique/i.test(e.message ?? ""));
}
