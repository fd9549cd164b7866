import crypto from "node:crypto";
import { getConfig } from "@/server/config";
import { safeEqual } from "@/server/lib/crypto";

function tokenKey(): Buffer {
  // A key of its own, derived from the server hash key, so tokens can't be confused with other MACs.
  return crypto.createHmac("sha256", Buffer.from(getConfig().secrets.hashKey, "base64")).update("parakh/checkout-token/v1").digest();
}

function mac(paymentId: string, expiresAtMs: number): string {
  return crypto.createHmac("sha256", tokenKey()).update(`${paymentId}|${expiresAtMs}`).digest("base64url");
}

/** The checkout `_token`: bound to the payment and its expiry, verifiable without a database read. */
export function issueCheckoutToken(paymentId: string, expiresAt: Date): string {
  const exp = expiresAt.getTime();
  return `ct1.${exp.toString(36)}.${mac(paymentId, exp)}`;
}

/**
 * True when the token was issued for this payment. Expiry is checked by the caller against the
 * payment itself, so an expired payment's page can still be shown; `requireUnexpired` refuses it.
 */
export function verifyCheckoutToken(paymentId: string, token: string, opts: { requireUnexpired?: boolean; now?: number } = {}): boolean {
  // Exactly `ct1.<expiry base36>.<mac base64url>`: anything around or after it is not our token.
  const parts = /^ct1\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!parts) return false;
  const [, expText, sig] = parts as unknown as [string, string, string];
  const exp = parseInt(expText, 36);
  if (!Number.isSafeInteger(exp)) return false;
  if (!safeEqual(sig, mac(paymentId, exp))) return false;
  // Attempts already running may finish after expiry, so allow a grace equal to the attempt timeout.
  if (opts.requireUnexpired && (opts.now ?? Date.now()) > exp) return false;
  return true;
}
