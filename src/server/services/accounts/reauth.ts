import { getConfig } from "@/server/config";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { hmacSha256Hex, safeEqual } from "@/server/lib/crypto";
import { checkMerchantPassword } from "@/server/services/accounts/passwords";

/**
 * "Confirm your password" before a sensitive act (revealing or rotating the signing secret, live keys,
 * turning on two-factor sign-in, new recovery codes), as Stripe asks: a signed-in session alone is not
 * enough, since a session left open or stolen must not hand out secrets or lock the owner out.
 *
 * The password is checked once (throttled as sign-in is) and answered with a proof the page sends with
 * each such act for REAUTH_MINUTES. The proof is an HMAC over the merchant, the session (its id and
 * version) and its expiry: it is worthless in another session, and sign out everywhere or a password
 * change (which bump the version) ends it with the session. Nothing is stored.
 */
export const REAUTH_MINUTES = 10;
const REAUTH_MS = REAUTH_MINUTES * 60_000;

/** The session a proof belongs to, as the dashboard's context has it. */
export interface ReauthSession {
  merchantId: string;
  /** The account's session version the session carries. */
  sessionVersion?: number;
  /** The session's own id (set at sign-in); absent in sessions from before it. */
  sessionId?: string;
}

function signature(s: ReauthSession, expiresAt: number): string {
  return hmacSha256Hex(getConfig().secrets.hashKey, `reauth|${s.merchantId}|${s.sessionVersion ?? 0}|${s.sessionId ?? ""}|${expiresAt}`);
}

/** A proof for this session, good until `expiresAt`. */
export function reauthProof(session: ReauthSession, now = Date.now()): { proof: string; expiresAt: Date } {
  const expiresAt = now + REAUTH_MS;
  return { proof: `${expiresAt}.${signature(session, expiresAt)}`, expiresAt: new Date(expiresAt) };
}

/** Checks the password (VALIDATION_ERROR on `password` when wrong, RATE_LIMITED when locked) and answers a proof. */
export async function confirmMerchantPassword(db: Db, session: ReauthSession, password: string, ip: string, now = Date.now()) {
  await checkMerchantPassword(db, session.merchantId, password, ip, "password", "That password is not right.");
  return reauthProof(session, now);
}

/** REAUTH_REQUIRED unless `proof` is this session's and still fresh. */
export function requireReauth(session: ReauthSession, proof: string | undefined, now = Date.now()): void {
  const dot = proof ? proof.indexOf(".") : -1;
  const expiresAt = dot > 0 ? Number(proof!.slice(0, dot)) : NaN;
  const fresh = Number.isSafeInteger(expiresAt) && expiresAt > now && expiresAt <= now + REAUTH_MS;
  if (!fresh || !safeEqual(proof!.slice(dot + 1), signature(session, expiresAt))) {
    throw new AppError(
      "REAUTH_REQUIRED",
      proof ? "Your password confirmation has expired. Confirm your password again to continue." : "Confirm your password to continue.",
    );
  }
}
