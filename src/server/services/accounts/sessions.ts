import type { Db } from "@/server/db/client";

/**
 * Sessions are JWTs; each carries the account's session version at sign-in. Sign out everywhere,
 * a password change and a password reset bump the version, which ends every older session. Each
 * dashboard request checks it with one primary-key read (shared with the status the request needs
 * anyway), so a revocation takes effect on the very next request.
 */
export type SessionRole = "merchant" | "admin";

/** A session as a door reads it (next-auth's session user or its JWT); null when nobody is signed in. */
export interface SessionClaims {
  id: string;
  role: string;
  sessionVersion?: unknown;
}

/**
 * Why a session does not let its holder in: nobody is signed in, the session is of the other role,
 * or the account is gone or its session was revoked. Each door answers in its own way (a tRPC
 * error, a 401, a redirect to sign-in).
 */
export type SessionRefusal = "SIGNED_OUT" | "WRONG_ROLE" | "SESSION_ENDED";

/** What a revoked session is told, wherever it arrives. */
export const SESSION_ENDED_MESSAGE = "Your session has ended. Please sign in again.";

export type SessionCheck<T> = { ok: true; context: T } | { ok: false; refusal: SessionRefusal };

/** The merchant a dashboard request acts for. Its mode is then gated by requireLiveEnabled. */
export interface MerchantContext {
  merchantId: string;
  status: "ACTIVE" | "SUSPENDED";
  liveEnabled: boolean;
}

/** A token without a version predates revocable sessions: it counts as version 0. */
const versionOf = (v: unknown) => (typeof v === "number" && Number.isInteger(v) ? v : 0);

/** The merchant behind a session, or null when the account is gone or the session was revoked. */
async function currentMerchant(db: Db, id: string, sessionVersion: unknown) {
  const m = await db.merchant.findUnique({ where: { id }, select: { status: true, liveEnabled: true, sessionVersion: true } });
  if (!m || m.sessionVersion !== versionOf(sessionVersion)) return null;
  return { status: m.status as "ACTIVE" | "SUSPENDED", liveEnabled: m.liveEnabled };
}

/** The operator behind a session, or null when the account is gone or the session was revoked. */
async function currentAdmin(db: Db, id: string, sessionVersion: unknown) {
  const a = await db.adminUser.findUnique({ where: { id }, select: { email: true, sessionVersion: true } });
  if (!a || a.sessionVersion !== versionOf(sessionVersion)) return null;
  return { email: a.email };
}

/**
 * Who may act as a merchant in the dashboard, for every way in (its tRPC procedures, the CSV exports,
 * the pages): a merchant's session whose account still exists and whose session was not revoked.
 */
export async function resolveMerchantContext(db: Db, session: SessionClaims | null | undefined): Promise<SessionCheck<MerchantContext>> {
  if (!session) return { ok: false, refusal: "SIGNED_OUT" };
  if (session.role !== "merchant") return { ok: false, refusal: "WRONG_ROLE" };
  const merchant = await currentMerchant(db, session.id, session.sessionVersion);
  if (!merchant) return { ok: false, refusal: "SESSION_ENDED" };
  return { ok: true, context: { merchantId: session.id, ...merchant } };
}

/** The same for the operator area: an operator's session that was not revoked. */
export async function resolveAdminContext(db: Db, session: SessionClaims | null | undefined): Promise<SessionCheck<{ adminId: string; email: string }>> {
  if (!session) return { ok: false, refusal: "SIGNED_OUT" };
  if (session.role !== "admin") return { ok: false, refusal: "WRONG_ROLE" };
  const admin = await currentAdmin(db, session.id, session.sessionVersion);
  if (!admin) return { ok: false, refusal: "SESSION_ENDED" };
  return { ok: true, context: { adminId: session.id, ...admin } };
}
