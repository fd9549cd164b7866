import { passwordHashCost, type Config } from "@/server/config";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { hashPassword, sha256Hex, verifyPassword } from "@/server/lib/crypto";
import { newId, randomToken } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import {
  clearThrottle,
  finishFailure,
  releaseIpAttempt,
  reserveIpAttempt,
  startAttempt,
  throttleSubject,
  type AccountRole,
} from "@/server/services/accounts/throttle";
import { sendEmail } from "@/server/services/email/email";
import { sharedLimits } from "@/server/services/limits/shared";

export const RESET_TOKEN_MINUTES = 30;
/** Reset emails per account per window: more requests answer the same but send nothing. */
export const RESET_EMAILS_PER_ACCOUNT = 3;
/** Reset requests per client IP per window, whatever the emails: more answer RATE_LIMITED. */
export const RESET_REQUESTS_PER_IP = 10;
const RESET_WINDOW_MS = 15 * 60_000;
const PURGE_EVERY_MS = 60 * 60_000;

const INVALID_LINK = "This reset link is not valid any more: it expires after 30 minutes and works once. Ask for a new one.";

/** Reset requests from one address in the current window, server-wide: seconds to wait, or 0. */
async function takeIpRequest(ip: string, now: number): Promise<number> {
  const w = await sharedLimits().count(`password-reset|${ip}`, RESET_WINDOW_MS, RESET_REQUESTS_PER_IP, now);
  return w.ok ? 0 : Math.max(1, Math.ceil((w.resetAt - now) / 1000));
}

async function findAccount(db: Db, role: AccountRole, email: string) {
  if (role === "merchant") {
    const m = await db.merchant.findUnique({ where: { email }, select: { id: true, email: true } });
    return m;
  }
  return db.adminUser.findUnique({ where: { email }, select: { id: true, email: true } });
}

function resetEmail(role: AccountRole, email: string, link: string) {
  const who = role === "admin" ? "Parakh operator account" : "Parakh account";
  return {
    to: email,
    subject: "Reset your Parakh password",
    text: [
      `Someone (hopefully you) asked to reset the password of the ${who} ${email}.`,
      "",
      `Open this link within ${RESET_TOKEN_MINUTES} minutes to choose a new password:`,
      link,
      "",
      "The link works once. Setting a new password also unlocks sign-in and signs out every session.",
      "If you did not ask for this, ignore this email: your password stays as it is.",
    ].join("\n"),
  };
}

/**
 * "Forgot password": answers the same whether or not the email has an account. For an account, a
 * 30-minute single-use link goes by email; only the token's SHA-256 is stored. The link carries the
 * token in the URL fragment, which browsers never send to a server or in a Referer.
 */
export async function requestPasswordReset(
  { db, config }: { db: Db; config: Config },
  input: { email: string; role: AccountRole },
  ip: string,
  now = Date.now(),
): Promise<void> {
  const wait = await takeIpRequest(ip, now);
  if (wait > 0) {
    throw new AppError("RATE_LIMITED", `Too many reset requests from this network. Try again in ${Math.ceil(wait / 60)} minutes.`, { retryAfterSeconds: wait });
  }
  void purgeOldTokens(db, now);
  const email = input.email.trim().toLowerCase();
  const account = await findAccount(db, input.role, email);
  if (!account) return;
  const recent = await db.passwordResetToken.count({ where: { role: input.role, accountId: account.id, createdAt: { gt: new Date(now - RESET_WINDOW_MS) } } });
  if (recent >= RESET_EMAILS_PER_ACCOUNT) {
    log.info("password reset not sent: too many for this account", { role: input.role, accountId: account.id });
    return;
  }
  const token = randomToken(43); // ≈ 256 bits
  await db.passwordResetToken.create({
    data: {
      id: newId("prt"),
      role: input.role,
      accountId: account.id,
      tokenHash: sha256Hex(token),
      expiresAt: new Date(now + RESET_TOKEN_MINUTES * 60_000),
      createdAt: new Date(now),
    },
  });
  const link = `${config.appUrl}/reset-password#token=${token}`;
  await sendEmail(db, config, resetEmail(input.role, account.email, link));
}

/**
 * Whether a reset link can still set a password, so the page can say a used or expired link at once
 * rather than after the new password is typed twice. Read-only: the link is not claimed.
 */
export async function checkResetLink(db: Db, token: string, now = new Date()): Promise<{ usable: true }> {
  const tokenHash = sha256Hex(token.trim());
  const usable = await db.passwordResetToken.findFirst({ where: { tokenHash, usedAt: null, expiresAt: { gt: now } }, select: { id: true } });
  if (!usable) throw new AppError("VALIDATION_ERROR", INVALID_LINK, { field: "token" });
  return { usable: true };
}

/**
 * Completes a reset: the token is claimed by a conditional update (so it works once, even under a
 * double submit), then in the same transaction the password changes, every session ends, other
 * open links die and every sign-in lock of the email is cleared.
 */
export async function resetPassword(db: Db, input: { token: string; password: string }, now = new Date()): Promise<{ role: AccountRole }> {
  const tokenHash = sha256Hex(input.token.trim());
  // A link that cannot work is refused before any hashing: a stranger's guesses cost no scrypt.
  await checkResetLink(db, input.token, now);
  // Hashed before the transaction: scrypt is slow and must not hold the database's write lock.
  const passwordHash = await hashPassword(input.password, passwordHashCost());
  return db.$transaction(async (tx) => {
    const claimed = await tx.passwordResetToken.updateMany({ where: { tokenHash, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    if (claimed.count !== 1) throw new AppError("VALIDATION_ERROR", INVALID_LINK, { field: "token" });
    const row = await tx.passwordResetToken.findUniqueOrThrow({ where: { tokenHash } });
    const role: AccountRole = row.role === "admin" ? "admin" : "merchant";
    const where = { id: row.accountId };
    const account =
      role === "merchant"
        ? await tx.merchant.findUnique({ where, select: { email: true } })
        : await tx.adminUser.findUnique({ where, select: { email: true } });
    if (!account) throw new AppError("VALIDATION_ERROR", INVALID_LINK, { field: "token" });
    const data = { passwordHash, sessionVersion: { increment: 1 } };
    if (role === "merchant") await tx.merchant.update({ where, data });
    else await tx.adminUser.update({ where, data });
    await tx.passwordResetToken.updateMany({ where: { role, accountId: row.accountId, usedAt: null }, data: { usedAt: now } });
    await tx.signInThrottle.deleteMany({ where: { subject: throttleSubject(role, account.email) } });
    log.info("password reset", { role, accountId: row.accountId });
    return { role };
  });
}

const TOO_MANY_WRONG = "Too many wrong passwords. Wait 15 minutes, or reset your password from the sign-in page.";

/**
 * Checks a signed-in merchant's password again (a password change, a sensitive act): wrong guesses
 * count toward the same per-client lock and per-address cap as sign-in, so a stolen session cannot
 * guess it any faster than the sign-in page could. A wrong one is a VALIDATION_ERROR on `field`.
 */
export async function checkMerchantPassword(db: Db, merchantId: string, password: string, ip: string, field: string, wrong: string): Promise<void> {
  const m = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { email: true, passwordHash: true } });
  const now = Date.now();
  const attempt = await startAttempt(db, "merchant", m.email, ip, now);
  if (attempt.locked) throw new AppError("RATE_LIMITED", TOO_MANY_WRONG);
  if (!(await reserveIpAttempt(ip, now)))
    throw new AppError("RATE_LIMITED", "Too many wrong passwords from this network. Wait 15 minutes, or reset your password from the sign-in page.");
  if (!(await verifyPassword(password, m.passwordHash))) {
    const outcome = await finishFailure(db, attempt, now);
    if (outcome === "locked") throw new AppError("RATE_LIMITED", TOO_MANY_WRONG);
    throw new AppError("VALIDATION_ERROR", wrong, { field });
  }
  await clearThrottle(db, attempt);
  releaseIpAttempt(ip);
}

/**
 * Settings → change password: the current password is required (and wrong guesses count toward the
 * same per-client lock as sign-in). Every session ends, this one included.
 */
export async function changeMerchantPassword(db: Db, merchantId: string, input: { currentPassword: string; newPassword: string }, ip: string) {
  if (input.currentPassword === input.newPassword) {
    throw new AppError("VALIDATION_ERROR", "Choose a password different from the current one.", { field: "newPassword" });
  }
  await checkMerchantPassword(db, merchantId, input.currentPassword, ip, "currentPassword", "The current password is not right.");
  const passwordHash = await hashPassword(input.newPassword, passwordHashCost());
  await db.merchant.update({ where: { id: merchantId }, data: { passwordHash, sessionVersion: { increment: 1 } } });
  log.info("password changed", { merchantId });
}

/** Ends every session of the merchant, on every device (this one included). */
export async function signOutMerchantEverywhere(db: Db, merchantId: string) {
  await db.merchant.update({ where: { id: merchantId }, data: { sessionVersion: { increment: 1 } } });
  log.info("signed out everywhere", { merchantId });
}

let lastPurge = 0;

/** Used and expired links are kept a day (for support questions), then dropped; at most hourly per process. */
async function purgeOldTokens(db: Db, now: number) {
  if (now - lastPurge < PURGE_EVERY_MS) return;
  lastPurge = now;
  await db.passwordResetToken.deleteMany({ where: { expiresAt: { lt: new Date(now - 24 * 60 * 60_000) } } }).catch(() => undefined);
}
