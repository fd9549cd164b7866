import { z } from "zod";
import { KYC_KINDS } from "@/lib/kyc";
import { istDateSchema, withDatesInOrder, withPage } from "@/lib/schemas/logs";
import { filtersFromQuery, filtersToQuery } from "@/lib/url-filters";

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

const kycFilterFields = {
  kind: kycKindSchema.optional(),
  outcome: kycOutcomeSchema.optional(),
  /** Whole IST days, inclusive. */
  from: istDateSchema.optional(),
  to: istDateSchema.optional(),
};

export const kycFiltersSchema = withDatesInOrder(z.object(kycFilterFields));
export type KycFilters = z.infer<typeof kycFiltersSchema>;

export const kycListInput = withDatesInOrder(withPage(kycFilterFields));

export const kycTransactionIdSchema = z.string().trim().min(1, "Enter a KYC transaction id").max(80, "KYC transaction ids are at most 80 characters");
export const kycGetInput = z.object({ id: kycTransactionIdSchema });

const KYC_QUERY_NAMES = { kind: "kind", outcome: "outcome", from: "from", to: "to" } as const;

export const kycFiltersFromQuery = (q: { get(name: string): string | null }) => filtersFromQuery<KycFilters>(kycFiltersSchema, KYC_QUERY_NAMES, q);

export const kycFiltersToQuery = (f: KycFilters) => filtersToQuery(f, KYC_QUERY_NAMES);
