import type { VendorConsent } from "@/lib/consent";
import { AppError } from "@/server/errors";
import type { EpfoMember, EpfoProvider } from "@/server/providers/epfo/types";
import type { AnsweringVendor } from "@/server/providers/pan/types";
import type { VerificationRecord } from "@/server/services/audit/audit-writer";

export type EpfoLookup = { uan: string } | { pfNumber: string };

/** One EPFO member check by UAN or by PF number (slash form). Unknown → 404 error. */
export async function verifyEpfo(provider: EpfoProvider, lookup: EpfoLookup, consent?: VendorConsent): Promise<EpfoMember> {
  const options = consent ? { consent } : undefined;
  const member = "uan" in lookup ? await provider.byUan(lookup.uan, options) : await provider.byPfNumber(lookup.pfNumber, options);
  if (!member) throw new AppError("uan" in lookup ? "UAN_NOT_FOUND" : "PF_NUMBER_NOT_FOUND");
  return member;
}

/**
 * The merchant's verification history row for an EPFO check, whether it answered or failed; `vendor`
 * is the live vendor that answered (EPFO has one: the provider's), absent in sandbox.
 */
export function epfoVerificationRecord(
  lookup: EpfoLookup,
  outcome: { result: EpfoMember } | { error: AppError },
  vendor?: AnsweringVendor,
): VerificationRecord {
  const subject = "uan" in lookup ? lookup.uan : lookup.pfNumber;
  if ("result" in outcome)
    return { kind: "EPFO", subject, nameQueried: null, outcome: outcome.result.member_status, nameMatch: null, vendor: vendor ?? null, errorCode: null };
  const code = outcome.error.code;
  return {
    kind: "EPFO",
    subject,
    nameQueried: null,
    outcome: code === "UAN_NOT_FOUND" || code === "PF_NUMBER_NOT_FOUND" ? "NOT_FOUND" : "ERROR",
    nameMatch: null,
    errorCode: code,
  };
}
