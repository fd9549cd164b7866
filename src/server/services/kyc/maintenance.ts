import type { Db } from "@/server/db/client";
import type { AtomicWriter } from "@/server/db/atomic-write";
import { reopenStaleOtpRequests } from "@/server/services/kyc/aadhaar-otp";
import { releaseStaleHolds } from "@/server/services/wallet/wallet";

/** OTP requests hold only a keyed hash and a masked number; they are history after this. */
export const OTP_REQUEST_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Undoes what a crashed call left half-way: holds never settled, OTP requests never answered. */
export async function sweepUnfinishedKyc(db: Db, writer: AtomicWriter, now = new Date()) {
  const holds = await releaseStaleHolds(db, writer, now);
  const otpRequests = await reopenStaleOtpRequests(db, now);
  return { holds, otpRequests };
}

/** Drops full KYC results past their retention (the masked summary stays) and old OTP requests. */
export async function purgeKycData(db: Db, now = new Date()) {
  const results = await db.kycTransaction.updateMany({ where: { resultExpiresAt: { lt: now } }, data: { resultEnc: null, resultExpiresAt: null } });
  const otpRequests = await db.kycOtpRequest.deleteMany({ where: { createdAt: { lt: new Date(now.getTime() - OTP_REQUEST_RETENTION_MS) } } });
  return { results: results.count, otpRequests: otpRequests.count };
}
