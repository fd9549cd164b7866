import { dbProvider, type Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { hmacSha256Hex } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { maskAadhaar } from "@/lib/aadhaar";
import type { AadhaarProvider } from "@/server/providers/aadhaar/types";
import { runChargedKyc, withSourceTimeout, type KycCaller, type KycVault } from "@/server/services/kyc/charge";

/** The OTP rules of the contract: 10-minute OTPs, 60 s between sends, 5 sends per 30 minutes, 3 wrong tries. */
export const OTP_TTL_MS = 10 * 60 * 1000;
export const OTP_RESEND_MS = 60 * 1000;
export const OTP_WINDOW_MS = 30 * 60 * 1000;
export const OTP_MAX_PER_WINDOW = 5;
export const OTP_MAX_WRONG = 3;
/** A request left VERIFYING this long belongs to a call whose process died; it is opened again. */
export const OTP_VERIFYING_STALE_MS = 2 * 60 * 1000;

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

/**
 * Takes one of the number's sends, or refuses with the limit that applies. The limit check and the
 * reserved row commit together under a lock (an advisory lock on PostgreSQL, the write lock on
 * SQLite), so concurrent requests, on any number of app instances, cannot both pass.
 */
async function reserveSend(
  db: Db,
  scope: { merchantId: string; mode: string; aadhaarHash: string },
  row: { id: string; maskedAadhaar: string; createdAt: Date; expiresAt: Date },
) {
  await db.$transaction(async (tx) => {
    if (dbProvider(db) === "postgresql") {
      await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext(${`otp:${scope.merchantId}:${scope.mode}:${scope.aadhaarHash}`}))) AS l`;
    }
    const now = row.createdAt.getTime();
    const recent = await tx.kycOtpRequest.findMany({
      where: { ...scope, createdAt: { gt: new Date(now - OTP_WINDOW_MS) } },
      orderBy: { createdAt: "desc" },
      select: { createdAt: true },
    });
    const newest = recent[0]?.createdAt.getTime();
    if (newest !== undefined && now - newest < OTP_RESEND_MS) {
      throw new AppError("OTP_RESEND_TOO_SOON", undefined, { retryAfterSeconds: secondsUntil(newest + OTP_RESEND_MS, now) });
    }
    if (recent.length >= OTP_MAX_PER_WINDOW) {
      const oldest = recent[recent.length - 1]!.createdAt.getTime();
      throw new AppError("OTP_GENERATION_LIMIT", undefined, { retryAfterSeconds: secondsUntil(oldest + OTP_WINDOW_MS, now) });
    }
    // SENDING until the source has sent it; a send the source refuses gives its slot back.
    await tx.kycOtpRequest.create({ data: { ...row, ...scope, state: "SENDING", mobileLast4: "", sourceReference: "" } });
  });
}

/** Sends an OTP to the number's linked mobile, within the resend and per-window limits. Never charged. */
export async function generateAadhaarOtp(db: Db, hashKey: string, provider: AadhaarProvider, caller: KycCaller, aadhaarNumber: string): Promise<OtpSent> {
  const scope = { merchantId: caller.merchantId, mode: caller.mode, aadhaarHash: aadhaarLookupHash(hashKey, aadhaarNumber) };
  const id = newId("kyc_req");
  const createdAt = new Date();
  const expiresAt = new Date(createdAt.getTime() + OTP_TTL_MS);
  await reserveSend(db, scope, { id, maskedAadhaar: maskAadhaar(aadhaarNumber), createdAt, expiresAt });
  let sent;
  try {
    sent = await withSourceTimeout(provider.sendOtp(aadhaarNumber));
  } catch (err) {
    await db.kycOtpRequest.deleteMany({ where: { id, state: "SENDING" } });
    throw err;
  }
  await db.kycOtpRequest.update({ where: { id }, data: { state: "OPEN", mobileLast4: sent.mobileLast4, sourceReference: sent.reference } });
  const message = `OTP sent to the mobile number ending ${sent.mobileLast4} linked with this Aadhaar number.`;
  return {
    message,
    data: { requestId: id, message, expiresAt: expiresAt.toISOString(), resendAvailableAt: new Date(createdAt.getTime() + OTP_RESEND_MS).toISOString() },
  };
}

type OtpRequestRow = NonNullable<Awaited<ReturnType<Db["kycOtpRequest"]["findFirst"]>>>;

/** The request a verify names, or the newest open one for the number (falling back to the newest of any state). */
async function findOtpRequest(db: Db, scope: { merchantId: string; mode: string; aadhaarHash: string }, requestId: string | null): Promise<OtpRequestRow> {
  if (requestId) {
    const row = await db.kycOtpRequest.findFirst({ where: { id: requestId, ...scope } });
    if (!row) throw new AppError("OTP_REQUEST_NOT_FOUND", "No OTP request with this requestId for this Aadhaar number.");
    return row;
  }
  // Without a requestId only an open request counts (contract B6): a used, locked or expired one is "none".
  const open = await db.kycOtpRequest.findFirst({
    where: { ...scope, state: { in: ["OPEN", "VERIFYING"] }, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
  });
  if (!open) throw new AppError("OTP_REQUEST_NOT_FOUND", "No open OTP request for this Aadhaar number; generate a new OTP.");
  return open;
}

/** Why a request cannot take an OTP now, or null when it can. */
function refusalFor(row: { state: string; expiresAt: Date }, now = Date.now()): AppError | null {
  if (row.state === "VERIFIED" || row.state === "VERIFYING") return new AppError("OTP_ALREADY_USED");
  if (row.state === "LOCKED") return new AppError("OTP_ATTEMPTS_EXCEEDED");
  if (row.expiresAt.getTime() <= now) return new AppError("OTP_EXPIRED");
  return null;
}

/**
 * Checks an OTP and, when the source confirms it, answers the eKYC record charged once. The request
 * moves OPEN → VERIFYING → VERIFIED (or back to OPEN, or LOCKED on the third wrong OTP) by
 * conditional updates, so of two concurrent right OTPs one succeeds and one gets OTP_ALREADY_USED.
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
      throw refusalFor(now) ?? new AppError("OTP_ALREADY_USED");
    }
    // The claim makes this call the request's only owner: its count of wrong tries is read now, not
    // before the claim, so parallel wrong guesses cannot each start from the same count.
    const claimed = await db.kycOtpRequest.findUniqueOrThrow({ where: { id: request.id }, select: { wrongAttempts: true } });
    let result;
    try {
      result = await withSourceTimeout(provider.submitOtp(input.aadhaarNumber, request.sourceReference, input.otp));
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
      summary: { kind: "AADHAAR_OTP", subjectMasked: request.maskedAadhaar, outcome: "VERIFIED", otpRequestId: request.id },
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
