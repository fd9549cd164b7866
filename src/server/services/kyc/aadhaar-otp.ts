import { changedRows, sql, type WriteScript } from "@/server/db/atomic-write";
import type { Db } from "@/server/db/client";
import { LOCK_SPACES, takeScopedLock } from "@/server/db/locks";
import { AppError, isAppError } from "@/server/errors";
import { hmacSha256Hex } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { maskAadhaar } from "@/lib/aadhaar";
import type { AadhaarProvider } from "@/server/providers/aadhaar/types";
import { runChargedKyc, vendorOptionsOf, withSourceTimeout, type KycCaller, type KycVault } from "@/server/services/kyc/charge";

/** The OTP rules: 10-minute OTPs, 60 s between sends, 5 sends per 30 minutes, 3 wrong tries. */
export const OTP_TTL_MS = 10 * 60 * 1000;
export const OTP_RESEND_MS = 60 * 1000;
export const OTP_WINDOW_MS = 30 * 60 * 1000;
export const OTP_MAX_PER_WINDOW = 5;
export const OTP_MAX_WRONG = 3;
/** A request left VERIFYING this long belongs to a call whose process died; it is opened again. */
export const OTP_VERIFYING_STALE_MS = 2 * 60 * 1000;
const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/**
 * Limits beyond one merchant's: what one Aadhaar number receives from every merchant of a mode
 * together (each merchant account would otherwise add its own guesses and texts), and how many OTPs
 * a merchant may have sent in the last minute that no verify-otp has followed (generate-otp is free,
 * and its answer tells whether a number has a linked mobile).
 */
export interface OtpLimits {
  numberPerMinute: number;
  numberPerDay: number;
  unverifiedPerMinute: number;
}

export const DEFAULT_OTP_LIMITS: OtpLimits = { numberPerMinute: 1, numberPerDay: 10, unverifiedPerMinute: 100 };

/** Source answers about the number itself: the lookup happened, so its row stays and counts as unverified. */
const LOOKUP_ANSWERS = new Set(["AADHAAR_MOBILE_NOT_LINKED", "AADHAAR_LOCKED"]);

/** The keyed hash that stands in for the number in storage: look-ups without keeping it. */
export function aadhaarLookupHash(hashKeyBase64: string, aadhaarNumber: string): string {
  return hmacSha256Hex(Buffer.from(hashKeyBase64, "base64"), `aadhaar:${aadhaarNumber}`);
}

function secondsUntil(at: number, now: number) {
  return Math.max(1, Math.ceil((at - now) / 1000));
}

export interface OtpSent {
  message: string;
  data: { requestId: string; message: string; expiresAt: string; resendAvailableAt: string };
}

/** When the window holding `times` (newest first) has room again for one more than `limit - 1`. */
function retryAfter(times: { createdAt: Date }[], limit: number, windowMs: number, now: number) {
  return secondsUntil(times[limit - 1]!.createdAt.getTime() + windowMs, now);
}

/**
 * Takes one of the number's sends, or refuses with the limit that applies. The checks and the
 * reserved row commit together under locks on the number and on the merchant (always taken in that
 * order), so concurrent requests, on any number of app instances, cannot both pass.
 */
async function reserveSend(
  db: Db,
  scope: { merchantId: string; mode: string; aadhaarHash: string },
  row: { id: string; maskedAadhaar: string; createdAt: Date; expiresAt: Date },
  limits: OtpLimits,
  acrossMerchants: boolean,
) {
  await db.$transaction(async (tx) => {
    await takeScopedLock(tx, LOCK_SPACES.aadhaarNumber, `${scope.mode}:${scope.aadhaarHash}`);
    await takeScopedLock(tx, LOCK_SPACES.merchantOtpSends, `${scope.merchantId}:${scope.mode}`);
    const now = row.createdAt.getTime();
    const since = (ms: number) => new Date(now - ms);
    const sent = { not: "REFUSED" };

    // This merchant's sends to this number.
    const mine = await tx.kycOtpRequest.findMany({
      where: { ...scope, state: sent, createdAt: { gt: since(OTP_WINDOW_MS) } },
      orderBy: { createdAt: "desc" },
      take: OTP_MAX_PER_WINDOW,
      select: { createdAt: true },
    });
    const newest = mine[0]?.createdAt.getTime();
    if (newest !== undefined && now - newest < OTP_RESEND_MS) {
      throw new AppError("OTP_RESEND_TOO_SOON", undefined, { retryAfterSeconds: secondsUntil(newest + OTP_RESEND_MS, now) });
    }
    if (mine.length >= OTP_MAX_PER_WINDOW) {
      throw new AppError("OTP_GENERATION_LIMIT", undefined, { retryAfterSeconds: retryAfter(mine, OTP_MAX_PER_WINDOW, OTP_WINDOW_MS, now) });
    }

    // This merchant's sends (and refused lookups) of the last minute that no verify-otp has claimed.
    const unverified = await tx.kycOtpRequest.findMany({
      where: { merchantId: scope.merchantId, mode: scope.mode, claimedAt: null, createdAt: { gt: since(MINUTE_MS) } },
      orderBy: { createdAt: "desc" },
      take: limits.unverifiedPerMinute,
      select: { createdAt: true },
    });
    if (unverified.length >= limits.unverifiedPerMinute) {
      throw new AppError(
        "RATE_LIMITED",
        `At most ${limits.unverifiedPerMinute} OTPs a minute may be sent without a verify-otp; retry after the time in Retry-After.`,
        { retryAfterSeconds: retryAfter(unverified, limits.unverifiedPerMinute, MINUTE_MS, now) },
      );
    }

    // Every merchant's sends to this number, in this mode.
    if (acrossMerchants) {
      const everyone = await tx.kycOtpRequest.findMany({
        where: { mode: scope.mode, aadhaarHash: scope.aadhaarHash, state: sent, createdAt: { gt: since(DAY_MS) } },
        orderBy: { createdAt: "desc" },
        take: Math.max(limits.numberPerDay, limits.numberPerMinute),
        select: { createdAt: true },
      });
      const lastMinute = everyone.filter((r) => r.createdAt.getTime() > now - MINUTE_MS);
      if (lastMinute.length >= limits.numberPerMinute) {
        throw new AppError(
          "OTP_GENERATION_LIMIT",
          `At most ${limits.numberPerMinute} OTP${limits.numberPerMinute === 1 ? "" : "s"} a minute go to one Aadhaar number; try again later.`,
          {
            retryAfterSeconds: retryAfter(lastMinute, limits.numberPerMinute, MINUTE_MS, now),
          },
        );
      }
      if (everyone.length >= limits.numberPerDay) {
        throw new AppError("OTP_GENERATION_LIMIT", `At most ${limits.numberPerDay} OTPs a day go to one Aadhaar number; try again later.`, {
          retryAfterSeconds: retryAfter(everyone, limits.numberPerDay, DAY_MS, now),
        });
      }
    }
    // SENDING until the source has sent it; a send the source refuses gives its slot back.
    await tx.kycOtpRequest.create({ data: { ...row, ...scope, state: "SENDING", mobileLast4: "", sourceReference: "" } });
  });
}

/** Sends an OTP to the number's linked mobile, within the merchant's and the number's limits. Never charged. */
export async function generateAadhaarOtp(
  db: Db,
  hashKey: string,
  provider: AadhaarProvider,
  caller: KycCaller,
  aadhaarNumber: string,
  limits: OtpLimits = DEFAULT_OTP_LIMITS,
): Promise<OtpSent> {
  const scope = { merchantId: caller.merchantId, mode: caller.mode, aadhaarHash: aadhaarLookupHash(hashKey, aadhaarNumber) };
  const id = newId("kyc_req");
  const createdAt = new Date();
  const expiresAt = new Date(createdAt.getTime() + OTP_TTL_MS);
  // A number every merchant of the mode uses as a fixture (the sandbox's documented ones) would be used up by them all.
  const acrossMerchants = !provider.sharedTestNumbers?.has(aadhaarNumber);
  await reserveSend(db, scope, { id, maskedAadhaar: maskAadhaar(aadhaarNumber), createdAt, expiresAt }, limits, acrossMerchants);
  let sent;
  try {
    sent = await withSourceTimeout(provider.sendOtp(aadhaarNumber, vendorOptionsOf(caller)));
  } catch (err) {
    // A refusal about the number was a lookup all the same: its row stays to count against the merchant's
    // unverified sends (and nothing else). Any other failure gives the slot back.
    if (isAppError(err) && LOOKUP_ANSWERS.has(err.code)) {
      await db.kycOtpRequest.updateMany({ where: { id, state: "SENDING" }, data: { state: "REFUSED" } });
    } else {
      await db.kycOtpRequest.deleteMany({ where: { id, state: "SENDING" } });
    }
    throw err;
  }
  await db.kycOtpRequest.update({ where: { id }, data: { state: "OPEN", mobileLast4: sent.mobileLast4, sourceReference: sent.reference } });
  // Mobile digits only where the source gives them.
  const message = sent.mobileLast4
    ? `OTP sent to the mobile number ending ${sent.mobileLast4} linked with this Aadhaar number.`
    : "OTP sent to the mobile number linked with this Aadhaar number.";
  return {
    message,
    data: { requestId: id, message, expiresAt: expiresAt.toISOString(), resendAvailableAt: new Date(createdAt.getTime() + OTP_RESEND_MS).toISOString() },
  };
}

type OtpRequestRow = NonNullable<Awaited<ReturnType<Db["kycOtpRequest"]["findFirst"]>>>;

/** The request a verify names, or the newest open one for the number (falling back to the newest of any state). */
async function findOtpRequest(db: Db, scope: { merchantId: string; mode: string; aadhaarHash: string }, requestId: string | null): Promise<OtpRequestRow> {
  if (requestId) {
    const row = await db.kycOtpRequest.findFirst({ where: { id: requestId, ...scope, state: { not: "REFUSED" } } });
    if (!row) throw new AppError("OTP_REQUEST_NOT_FOUND", "No OTP request with this requestId for this Aadhaar number.");
    return row;
  }
  // Without a requestId only an open request counts: a used, locked or expired one is "none".
  const open = await db.kycOtpRequest.findFirst({
    where: { ...scope, state: { in: ["OPEN", "VERIFYING"] }, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
  });
  if (!open) throw new AppError("OTP_REQUEST_NOT_FOUND", "No open OTP request for this Aadhaar number; generate a new OTP.");
  return open;
}

/** Another call's OTP is with the source; when it is answered this request is open again or used. */
const verificationInProgress = () => new AppError("OTP_VERIFICATION_IN_PROGRESS", undefined, { retryAfterSeconds: 1 });

/** Why a request cannot take an OTP now, or null when it can. */
function refusalFor(row: { state: string; expiresAt: Date }, now = Date.now()): AppError | null {
  if (row.state === "VERIFIED") return new AppError("OTP_ALREADY_USED");
  if (row.state === "VERIFYING") return verificationInProgress();
  if (row.state === "LOCKED") return new AppError("OTP_ATTEMPTS_EXCEEDED");
  if (row.expiresAt.getTime() <= now) return new AppError("OTP_EXPIRED");
  return null;
}

/** VERIFYING → VERIFIED, committed with the charge: a request verified by another call refuses (and rolls back) this charge. */
function* markVerified(requestId: string, at: Date): WriteScript<void> {
  const moved = yield* changedRows(
    sql`UPDATE "KycOtpRequest" SET "state" = 'VERIFIED', "verifiedAt" = ${at} WHERE "id" = ${requestId} AND "state" = 'VERIFYING'`,
  );
  if (moved !== 1) throw new AppError("OTP_ALREADY_USED");
}

/**
 * Checks an OTP and, when the source confirms it, answers the eKYC record charged once. The request
 * moves OPEN → VERIFYING → VERIFIED (or back to OPEN, or LOCKED on the third wrong OTP) by
 * conditional updates, so of concurrent calls one owns the request; the others get
 * OTP_VERIFICATION_IN_PROGRESS while it runs (retryable) and OTP_ALREADY_USED once it has verified.
 */
export async function verifyAadhaarOtp(
  hashKey: string,
  vault: KycVault,
  provider: AadhaarProvider,
  caller: KycCaller,
  input: { aadhaarNumber: string; otp: string; requestId: string | null },
) {
  const db = vault.db;
  const scope = { merchantId: caller.merchantId, mode: caller.mode, aadhaarHash: aadhaarLookupHash(hashKey, input.aadhaarNumber) };
  const request = await findOtpRequest(db, scope, input.requestId);
  const refused = refusalFor(request);
  if (refused) throw refused;

  return runChargedKyc(vault, caller, "AADHAAR_OTP", async () => {
    const claim = await db.kycOtpRequest.updateMany({
      where: { id: request.id, state: "OPEN", expiresAt: { gt: new Date() } },
      data: { state: "VERIFYING", claimedAt: new Date() },
    });
    if (claim.count === 0) {
      const now = await db.kycOtpRequest.findUniqueOrThrow({ where: { id: request.id } });
      // Still OPEN: another call claimed it and gave it back in between (a wrong OTP); a retry may claim it.
      throw refusalFor(now) ?? verificationInProgress();
    }
    // The claim makes this call the request's only owner: its count of wrong tries is read now, not
    // before the claim, so parallel wrong guesses cannot each start from the same count.
    const claimed = await db.kycOtpRequest.findUniqueOrThrow({ where: { id: request.id }, select: { wrongAttempts: true } });
    let result;
    try {
      result = await withSourceTimeout(provider.submitOtp(input.aadhaarNumber, request.sourceReference, input.otp, vendorOptionsOf(caller)));
    } catch (err) {
      await db.kycOtpRequest.updateMany({ where: { id: request.id, state: "VERIFYING" }, data: { state: "OPEN" } });
      throw err;
    }
    if (result.kind === "wrong-otp") {
      const wrong = claimed.wrongAttempts + 1;
      const locked = wrong >= OTP_MAX_WRONG;
      await db.kycOtpRequest.updateMany({ where: { id: request.id, state: "VERIFYING" }, data: { state: locked ? "LOCKED" : "OPEN", wrongAttempts: wrong } });
      if (locked) throw new AppError("OTP_ATTEMPTS_EXCEEDED", "The OTP is incorrect and this was the last try: the request is locked. Generate a new OTP.");
      const left = OTP_MAX_WRONG - wrong;
      throw new AppError("INVALID_OTP", `The OTP is incorrect; ${left} ${left === 1 ? "try" : "tries"} left.`, { extra: { attemptsRemaining: left } });
    }
    const ekyc = result.ekyc;
    const verifiedAt = new Date();
    return {
      data: { requestId: request.id, status: "VERIFIED" as const, maskedAadhaar: request.maskedAadhaar, ...ekyc, verifiedAt: verifiedAt.toISOString() },
      // The vendor that sent the OTP verified it (C6): the provider's one.
      summary: { kind: "AADHAAR_OTP", subjectMasked: request.maskedAadhaar, outcome: "VERIFIED", otpRequestId: request.id, vendor: provider.vendor ?? null },
      alsoCommit: (at: Date) => markVerified(request.id, at),
    };
  });
}

/** Requests left VERIFYING by a call whose process died are opened again (their OTP was never answered). */
export async function reopenStaleOtpRequests(db: Db, now = new Date()): Promise<number> {
  const res = await db.kycOtpRequest.updateMany({
    where: { state: "VERIFYING", claimedAt: { lt: new Date(now.getTime() - OTP_VERIFYING_STALE_MS) } },
    data: { state: "OPEN" },
  });
  return res.count;
}
