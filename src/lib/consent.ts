import { z } from "zod";

// Browser-safe: the consent and purpose of live checks (contract C6), shared by the API's fields, the
// dashboard's settings form and the services.

export const PURPOSE_MIN_CHARS = 20;
export const PURPOSE_MAX_CHARS = 200;

/** Where a check's consent attestation came from: the request's own field, or the merchant's standing attestation. */
export type ConsentSource = "request" | "standing";

/** What a live vendor call is told of the person's consent (sent to vendors that take it, e.g. Setu's consent and reason). */
export interface VendorConsent {
  purpose: string;
  source: ConsentSource;
}

/** Why a check is made, as the person was told: 20-200 characters after trimming. */
export const purposeSchema = z
  .string()
  .trim()
  .min(PURPOSE_MIN_CHARS, `must be at least ${PURPOSE_MIN_CHARS} characters`)
  .max(PURPOSE_MAX_CHARS, `must be at most ${PURPOSE_MAX_CHARS} characters`);

/** The dashboard's consent settings: a default purpose (or none) and the standing attestation. */
export const consentSettingsInput = z.object({
  purpose: z.union([purposeSchema, z.literal("").transform(() => null)]).nullable(),
  standing: z.boolean(),
});

export type ConsentSettingsInput = z.output<typeof consentSettingsInput>;

/** A check's consent as screens say it. */
export function consentLabel(consent: boolean | null, source: string | null): string {
  if (consent === true) return source === "standing" ? "Given (standing attestation)" : "Given (in the request)";
  if (consent === false) return "Not given";
  return "Not recorded";
}

/** The consent columns of the dashboard's CSV exports, after each export's own. */
export const CONSENT_CSV_COLUMNS = ["consent", "purpose", "consent_source"] as const;
