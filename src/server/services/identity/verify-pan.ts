import type { PanCategory } from "@/lib/pan";
import { isAppError } from "@/server/errors";
import type { PanProvider } from "@/server/providers/pan/types";
import type { VerificationRecord } from "@/server/rest/state";
import { nameMatchResult, nameMatchScore } from "@/server/services/identity/name-match";

export interface PanVerification {
  pan: string;
  name: string | null;
  status: "VALID" | "INVALID" | "DEACTIVATED" | "DELETED";
  category: PanCategory;
  name_match: number | null;
  aadhaar_linked: boolean;
  aadhaar_seeding_status: "LINKED" | "NOT_LINKED" | "NOT_APPLICABLE";
  name_match_result: "MATCH" | "PARTIAL" | "NO_MATCH" | null;
  remarks: string | null;
}

/**
 * One PAN check (B3). `pan` is normalised and valid. The outcome is also recorded on `sink` for
 * the merchant's verification history (written with the audit record).
 */
export async function verifyPan(
  provider: PanProvider,
  pan: string,
  name: string | null,
  sink?: { verification: VerificationRecord | null },
): Promise<PanVerification> {
  try {
    const record = await provider.lookup(pan);
    const score = name && record.name ? nameMatchScore(name, record.name) : null;
    const result: PanVerification = {
      pan: record.pan,
      name: record.name,
      status: record.status,
      category: record.category,
      name_match: score,
      aadhaar_linked: record.aadhaarSeedingStatus === "LINKED",
      aadhaar_seeding_status: record.aadhaarSeedingStatus,
      name_match_result: score === null ? null : nameMatchResult(score),
      remarks: record.remarks,
    };
    if (sink) sink.verification = { kind: "PAN", subject: pan, nameQueried: name, outcome: record.status, nameMatch: score, errorCode: null };
    return result;
  } catch (err) {
    if (sink && isAppError(err)) {
      sink.verification = { kind: "PAN", subject: pan, nameQueried: name, outcome: "ERROR", nameMatch: null, errorCode: err.code };
    }
    throw err;
  }
}
