import { z } from "zod";
import { withPage } from "@/lib/schemas/logs";
import { filtersFromQuery, filtersToQuery } from "@/lib/url-filters";

// Browser-safe: the verification-history filters, shared by the search form and verifications.list.

export const VERIFICATION_KINDS = ["PAN", "EPFO"] as const;
export const verificationKindSchema = z.enum(VERIFICATION_KINDS);

/**
 * A PAN, UAN or PF number, matched exactly. Upper-cased; a PF number typed without slashes gets
 * them, because the history stores the slash form.
 */
export const verificationSubjectSchema = z
  .string()
  .trim()
  .min(1, "Enter a PAN, UAN or PF number")
  .max(40, "At most 40 characters")
  .transform((v) => {
    const up = v.toUpperCase().replace(/\s+/g, "");
    const compactPf = /^([A-Z]{2})([A-Z]{3})(\d{7})(\d{3})(\d{7})$/.exec(up);
    return compactPf ? compactPf.slice(1).join("/") : up;
  });

export const verificationFiltersSchema = z.object({
  kind: verificationKindSchema.optional(),
  subject: verificationSubjectSchema.optional(),
});

export const verificationsListInput = withPage(verificationFiltersSchema.shape);

export type VerificationFilters = z.output<typeof verificationFiltersSchema>;

const VERIFICATION_QUERY_NAMES = { subject: "subject", kind: "kind" } as const;

/** Filters as they appear in the page's URL query. */
export const verificationFiltersFromQuery = (q: { get(name: string): string | null }) =>
  filtersFromQuery<VerificationFilters>(verificationFiltersSchema, VERIFICATION_QUERY_NAMES, q);

export const verificationFiltersToQuery = (f: VerificationFilters, extra: Record<string, string> = {}) => filtersToQuery(f, VERIFICATION_QUERY_NAMES, extra);
