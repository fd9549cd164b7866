import { getConfig } from "@/server/config";
import { hmacSha256Hex, safeEqual } from "@/server/lib/crypto";
import { randomToken } from "@/server/lib/ids";
import { FailureWindows, throttleSubject, type AccountRole } from "@/server/services/accounts/throttle";

/**
 * Device tokens, after OWASP's device-cookie pattern: a browser that has signed in to an account
 * keeps a signed token naming that account. Next time it signs in to that account it gets past the
 * per-address failure cap, so a guessing attack from a shared address (an office behind one NAT)
 * cannot lock out owners. The token's own failures are capped instead, and the per-account +
 * client lock still applies to it.
 */
export const DEVICE_TOKEN_MAX_AGE_SECONDS = 180 * 24 * 60 * 60;
const DEVICE_WINDOW_MS = 15 * 60 * 1000;
const DEVICE_MAX_FAILURES = 10;

function signature(subject: string, nonce: string, issuedAt: number): string {
  return hmacSha256Hex(getConfig().secrets.hashKey, `device|${subject}|${nonce}|${issuedAt}`);
}

/** One cookie per account a browser signs in to; the name holds no email, only a keyed hash's prefix. */
export function deviceCookieName(role: AccountRole, email: string): string {
  return `parakh_device_${throttleSubject(role, email).slice(0, 16)}`;
}

/** A fresh token for a browser that just signed in to this account. */
export function issueDeviceToken(role: AccountRole, email: string, now = Date.now()): string {
  const nonce = randomToken(22);
  const issuedAt = Math.floor(now / 1000);
  return `${nonce}.${issuedAt}.${signature(throttleSubject(role, email), nonce, issuedAt)}`;
}

/** The token's nonce when it is this account's, genuine and not expired; else null. */
export function verifyDeviceToken(role: AccountRole, email: string, token: string | null | undefined, now = Date.now()): string | null {
  if (!token || token.length > 200) return null;
  const [nonce, issued, sig, ...rest] = token.split(".");
  if (!nonce || !issued || !sig || rest.length || !/^[A-Za-z0-9]+$/.test(nonce) || !/^\d{1,12}$/.test(issued)) return null;
  const issuedAt = Number(issued);
  if (issuedAt * 1000 > now + 60_000 || now - issuedAt * 1000 > DEVICE_TOKEN_MAX_AGE_SECONDS * 1000) return null;
  return safeEqual(sig, signature(throttleSubject(role, email), nonce, issuedAt)) ? nonce : null;
}

const deviceFailures = new FailureWindows("signin-device", DEVICE_MAX_FAILURES, DEVICE_WINDOW_MS);

/** Takes one of the token's failure slots before the password is checked (false when none is left). */
export function reserveDeviceAttempt(nonce: string, now: number): Promise<boolean> {
  return deviceFailures.reserve(nonce, now);
}

/** The attempt did not fail: its slot comes back. */
export function releaseDeviceAttempt(nonce: string) {
  deviceFailures.release(nonce);
}
