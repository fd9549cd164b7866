import type { Db } from "@/server/db/client";

/**
 * Sessions are JWTs; each carries the account's session version at sign-in. Sign out everywhere,
 * a password change and a password reset bump the version, which ends every older session. Each
 * dashboard request checks it with one primary-key read (shared with the status the request needs
 * anyway), so a revocation takes effect on the very next request.
 */
export type SessionRole = "merchant" | "admin";

/** A token without a version predates revocable sessions: it counts as version 0. */
const versionOf = (v: unknown) => (typeof v === "number" && Number.isInteger(v) ? v : 0);

/** The merchant behind a session, or null when the account is gone or the session was revoked. */
export async function currentMerchant(db: Db, id: string, sessionVersion: unknown) {
  const m = await db.merchant.findUnique({ where: { id }, select: { status: true, liveEnabled: true, sessionVersion: true } });
  if (!m || m.sessionVersion !== versionOf(sessionVersion)) return null;
  return { status: m.status as "ACTIVE" | "SUSPENDED", liveEnabled: m.liveEnabled };
}

/** The operator behind a session, or null when the account is gone or the session was revoked. */
export async function currentAdmin(db: Db, id: string, sessionVersion: unknown) {
  const a = await db.adminUser.findUnique({ where: { id }, select: { email: true, sessionVersion: true } });
  if (!a || a.sessionVersion !== versionOf(sessionVersion)) return null;
  return { email: a.email };
}

export async function sessionIsCurrent(db: Db, role: SessionRole, id: string, sessionVersion: unknown): Promise<boolean> {
  return role === "merchant" ? (await currentMerchant(db, id, sessionVersion)) !== null : (await currentAdmin(db, id, sessionVersion)) !== null;
}
