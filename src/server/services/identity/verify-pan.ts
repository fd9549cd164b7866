import { z } from "zod";
import type { VendorConsent } from "@/lib/consent";
import { PAN_CATEGORY_VALUES } from "@/lib/pan";
import type { AppError } from "@/server/errors";
import type { AnsweringVendor, PanProvider, PanRecord } from "@/server/providers/pan/types";
import type { VerificationRecord } from "@/server/services/audit/audit-writer";
import { nameHolderOfPan, nameMatchResult, nameMatchScore, type NameHolder } from "@/server/services/identity/name-match";

/** What a PAN check answers: the `data` of the REST call, and its type. */
export const panVerificationData = z
  .object({
    pan: z.string().meta({ example: "ABCPK1234F" }),
    name: z.string().nullable().meta({ description: "Name on record, upper case; null when the PAN is not on record." }),
    status: z.enum(["VALID", "INVALID", "DEACTIVATED", "DELETED"]).meta({ description: "INVALID: not on record (an outcome, not an error)." }),
    category: z.enum(PAN_CATEGORY_VALUES),
    name_match: z.number().min(0).max(100).nullable().meta({ description: "0-100 with two decimals; null when no name was sent or none is on record." }),
    aadhaar_linked: z.boolean(),
    aadhaar_seeding_status: z.enum(["LINKED", "NOT_LINKED", "NOT_APPLICABLE"]),
    name_match_result: z.enum(["MATCH", "PARTIAL", "NO_MATCH"]).nullable().meta({ description: "MATCH ≥ 90, PARTIAL 70–89.99, NO_MATCH < 70." }),
    remarks: z.string().nullable(),
  })
  .meta({ id: "PanVerification" });

export type PanVerification = z.output<typeof panVerificationData>;

/** One PAN check: the merchant's answer, and the source's own name score, which only operators see. */
export interface PanCheck {
  answer: PanVerification;
  /** The live source's score for the name sent; null in sandbox, without a name, or when the source gave none. */
  sourceNameMatch: number | null;
  /** The live vendor that answered, for the record; null in sandbox. */
  vendor: AnsweringVendor | null;
}

/**
 * One PAN check. `pan` is normalised and valid; source failures throw AppError. `scoreNames` is
 * the name match (a batch passes one that remembers the pairs it has scored).
 */
/** Scores a name sent against the name on record (nameMatchScore, or one that remembers pairs). */
export type NameScorer = (queried: string, onRecord: string, holder: NameHolder) => number;

export async function checkPan(
  provider: PanProvider,
  pan: string,
  name: string | null,
  scoreNames: NameScorer = nameMatchScore,
  consent?: VendorConsent,
): Promise<PanCheck> {
  return panCheckOf(await provider.lookup(pan, consent ? { name, consent } : { name }), name, scoreNames);
}

/** A PAN check from the source's record (for sources that answer at once: `lookupLocal`). */
export function panCheckOf(record: PanRecord, name: string | null, scoreNames: NameScorer = nameMatchScore): PanCheck {
  // A business PAN (4th letter not P) has its legal-form words normalised: Ltd is Limited.
  const score = name && record.name ? scoreNames(name, record.name, nameHolderOfPan(record.category)) : null;
  return {
    answer: {
      pan: record.pan,
      name: record.name,
      status: record.status,
      category: record.category,
      name_match: score,
      aadhaar_linked: record.aadhaarSeedingStatus === "LINKED",
      aadhaar_seeding_status: record.aadhaarSeedingStatus,
      name_match_result: score === null ? null : nameMatchResult(score),
      remarks: record.remarks,
    },
    sourceNameMatch: record.sourceNameMatchScore ?? null,
    vendor: record.vendor ?? null,
  };
}

/** The merchant's answer to one PAN check. */
export async function verifyPan(provider: PanProvider, pan: string, name: string | null): Promise<PanVerification> {
  return (await checkPan(provider, pan, name)).answer;
}

/** The merchant's verification history row for a PAN check, whether it answered or failed. */
export function panVerificationRecord(pan: string, name: string | null, outcome: { result: PanCheck } | { error: AppError }): VerificationRecord {
  if ("result" in outcome) {
    const { answer, sourceNameMatch, vendor } = outcome.result;
    return { kind: "PAN", subject: pan, nameQueried: name, outcome: answer.status, nameMatch: answer.name_match, sourceNameMatch, vendor, errorCode: null };
  }
  return { kind: "PAN", subject: pan, nameQueried: name, outcome: "ERROR", nameMatch: null, sourceNameMatch: null, errorCode: outcome.error.code };
}
