import { z } from "zod";
import { KYC_KINDS } from "@/lib/kyc";
import { datedListFilters } from "@/lib/schemas/logs";

// Browser-safe: the KYC transactions list filters, shared by the filter form and the kyc router.

export const kycKindSchema = z.enum(KYC_KINDS, { error: "Choose a KYC type from the list" });

/** Every outcome a charged call records: VERIFIED (Aadhaar), the PAN statuses and the account statuses. */
export const KYC_OUTCOMES = ["VERIFIED", "VALID", "INVALID", "DEACTIVATED", "DELETED", "BLOCKED", "CLOSED", "PENDING"] as const;
export const kycOutcomeSchema = z.enum(KYC_OUTCOMES, { error: "Choose an outcome from the list" });

export const KYC_OUTCOME_LABELS: Record<(typeof KYC_OUTCOMES)[number], string> = {
  VERIFIED: "Verified",
  VALID: "Valid",
  INVALID: "Invalid",
  DEACTIVATED: "Deactivated",
  DELETED: "Deleted",
  BLOCKED: "Blocked",
  CLOSED: "Closed",
  PENDING: "Pending",
};

const kycList = datedListFilters(
  { kind: kycKindSchema.optional(), outcome: kycOutcomeSchema.optional() },
  { kind: "kind", outcome: "outcome", from: "from", to: "to" },
);

export const kycFiltersSchema = kycList.schema;
export type KycFilters = z.infer<typeof kycFiltersSchema>;
export const kycListInput = kycList.listInput;
export const kycFiltersFromQuery = kycList.fromQuery;
export const kycFiltersToQuery = kycList.toQuery;

export const kycTransactionIdSchema = z.string().trim().min(1, "Enter a KYC transaction id").max(80, "KYC transaction ids are at most 80 characters");
export const kycGetInput = z.object({ id: kycTransactionIdSchema });
