import { getConfig } from "@/server/config";
import type { Db } from "@/server/db/client";
import { hmacSha256Hex } from "@/server/lib/crypto";
import { sharedLimits } from "@/server/services/limits/shared";

/**
 * Wrong-password protection. Failures count per account email AND client IP: after three, each
 * further failure is answered slowly; the fifth locks that email for that client for 15 minutes.
 * A stranger elsewhere therefore cannot lock the owner out, and a password reset clears every lock.
 * Unknown emails are counted the same way, so the lock says nothing about which accounts exist.
 * Independently, one IP may fail at most IP_MAX_FAILURES times per window, whatever the emails.
 */
export const SLOW_DOWN_AFTER = 3;
export const LOCK_AFTER = 5;
export const LOCK_MINUTES = 15;
const LOCK_MS = LOCK_MINUTES * 60_000;
/** Failures older than this (since the last one) no longer count. */
const FAILURE_WINDOW_MS = LOCK_MS;
const IP_WINDOW_MS = 15 * 60 * 1000;
const IP_MAX_FAILURES = 30;
const PURGE_EVERY_MS = 60 * 60 * 1000;

export type AccountRole = "merchant" | "admin";

export interface Attempt {
  id: string;
  failures: number;
  locked: boolean;
}

/**
 * Failures per key (an address, a device token) in fixed windows, counted in the server-wide limit
 * store (one count for every worker): a slot is taken before the password is checked and given back
 * when the attempt did not fail.
 */
export class FailureWindows {
  constructor(
    private readonly name: string,
    private readonly maxFailures: number,
    private readonly windowMs: number,
  ) {}

  /** Takes one of the key's slots (false when none is left in its window). */
  async reserve(key: string, now: number): Promise<boolean> {
    return (await sharedLimits().count(`${this.name}|${key}`, this.windowMs, this.maxFailures, now)).ok;
  }

  /** The attempt did not fail (signed in, or only asked for its second factor): its slot comes back. */
  release(key: string) {
    sharedLimits().release(`${this.name}|${key}`);
  }
}

const ipFailures = new FailureWindows("signin-address", IP_MAX_FAILURES, IP_WINDOW_MS);

/**
 * Takes one of the IP's failure slots before the password is checked (false when none is left), so
 * parallel guesses cannot all pass the check before any is counted. A success gives it back.
 */
export function reserveIpAttempt(ip: string, now: number): Promise<boolean> {
  return ipFailures.reserve(ip, now);
}

/** The attempt did not fail (signed in, or only asked for its second factor): its slot comes back. */
export function releaseIpAttempt(ip: string) {
  ipFailures.release(ip);
}

// Keyed hashes: the table holds no email or IP in clear, and rows cannot be matched to people without the key.
export function throttleSubject(role: AccountRole, email: string): string {
  return hmacSha256Hex(getConfig().secrets.hashKey, `signin|${role}|${email.trim().toLowerCase()}`);
}

function throttleId(role: AccountRole, email: string, ip: string): string {
  return hmacSha256Hex(getConfig().secrets.hashKey, `signin|${role}|${email.trim().toLowerCase()}|${ip}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Counts an attempt before its password is checked (so parallel guesses all see the count); a
 * success clears it, a TOTP prompt undoes it. `locked` when this email is locked for this client,
 * or when more attempts are already in flight than the lock allows.
 */
export async function startAttempt(db: Db, role: AccountRole, email: string, ip: string, now = Date.now()): Promise<Attempt> {
  const id = throttleId(role, email, ip);
  void purgeStale(db, now);
  const row = await db.signInThrottle.findUnique({ where: { id } });
  if (row?.lockedUntil && row.lockedUntil.getTime() > now) return { id, failures: row.failures, locked: true };
  if (row && (row.lockedUntil || now - row.updatedAt.getTime() > FAILURE_WINDOW_MS)) {
    // The lock ran out, or the failures are old: start counting again.
    await db.signInThrottle.updateMany({ where: { id, updatedAt: row.updatedAt }, data: { failures: 0, lockedUntil: null } });
  }
  const counted = await db.signInThrottle.upsert({
    where: { id },
    create: { id, subject: throttleSubject(role, email), failures: 1 },
    update: { failures: { increment: 1 } },
  });
  return { id, failures: counted.failures, locked: counted.failures > LOCK_AFTER };
}

/** After a wrong password or code: "locked" on the LOCK_AFTER-th failure, else slowed down past SLOW_DOWN_AFTER. */
export async function finishFailure(db: Db, attempt: Attempt, now = Date.now()): Promise<"locked" | "failed"> {
  if (attempt.failures >= LOCK_AFTER) {
    await db.signInThrottle.update({ where: { id: attempt.id }, data: { lockedUntil: new Date(now + LOCK_MS), failures: 0 } });
    return "locked";
  }
  if (attempt.failures >= SLOW_DOWN_AFTER) await sleep(500 * (attempt.failures - SLOW_DOWN_AFTER + 1));
  return "failed";
}

export async function undoAttempt(db: Db, attempt: Attempt) {
  await db.signInThrottle.updateMany({ where: { id: attempt.id, failures: { gt: 0 } }, data: { failures: { decrement: 1 } } });
}

export async function clearThrottle(db: Db, attempt: Attempt) {
  await db.signInThrottle.deleteMany({ where: { id: attempt.id } });
}

/** The latest lock still running for this email, from any client (for operators). */
export async function activeLocks(db: Db, role: AccountRole, email: string, now = new Date()) {
  const rows = await db.signInThrottle.findMany({ where: { subject: throttleSubject(role, email), lockedUntil: { gt: now } }, select: { lockedUntil: true } });
  const until = rows.reduce<Date | null>((max, r) => (r.lockedUntil && (!max || r.lockedUntil > max) ? r.lockedUntil : max), null);
  return { clients: rows.length, until };
}

let lastPurge = 0;

/** Rows of finished locks and old failures are worthless; drop them at most once an hour per process. */
async function purgeStale(db: Db, now: number) {
  if (now - lastPurge < PURGE_EVERY_MS) return;
  lastPurge = now;
  const before = new Date(now - LOCK_MS - FAILURE_WINDOW_MS);
  await db.signInThrottle.deleteMany({ where: { updatedAt: { lt: before } } }).catch(() => undefined);
}
