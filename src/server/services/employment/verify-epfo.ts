import { AppError, isAppError } from "@/server/errors";
import type { EpfoMember, EpfoProvider } from "@/server/providers/epfo/types";
import type { VerificationRecord } from "@/server/rest/state";

export type EpfoLookup = { uan: string } | { pfNumber: string };

/** One EPFO member check (B4) by UAN or by PF number (slash form). Unknown → 404 error. */
export async function verifyEpfo(
  provider: EpfoProvider,
  lookup: EpfoLookup,
  sink?: { verification: VerificationRecord | null },
): Promise<EpfoMember> {
  const subject = "uan" in lookup ? lookup.uan : lookup.pfNumber;
  const record = (outcome: string, errorCode: string | null) => {
    if (sink) sink.verification = { kind: "EPFO", subject, nameQueried: null, outcome, nameMatch: null, errorCode };
  };
  try {
    const member = "uan" in lookup ? await provider.byUan(lookup.uan) : await provider.byPfNumber(lookup.pfNumber);
    if (!member) throw new AppError("uan" in lookup ? "UAN_NOT_FOUND" : "PF_NUMBER_NOT_FOUND");
    record(member.member_status, null);
    return member;
  } catch (err) {
    if (isAppError(err)) record(err.code === "UAN_NOT_FOUND" || err.code === "PF_NUMBER_NOT_FOUND" ? "NOT_FOUND" : "ERROR", err.code);
    throw err;
  }
}
