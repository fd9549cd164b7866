import type { ConsentSource, VendorConsent } from "@/lib/consent";
import type { Mode } from "@/lib/mode";
import { AppError } from "@/server/errors";
import { storedFreeText } from "@/server/services/audit/redact";

/** The consent fields a call sent (both optional). */
export interface ConsentFields {
  consent?: boolean | null;
  purpose?: string | null;
}

/** The merchant's dashboard settings: its default purpose, and whether it attested that it collects consent before every check. */
export interface StandingConsent {
  purpose: string | null;
  standing: boolean;
}

export const NO_STANDING_CONSENT: StandingConsent = { purpose: null, standing: false };

/** What is stored with a check: the attestation, the purpose and where the attestation came from. */
export interface ConsentOnRecord {
  consent: boolean | null;
  purpose: string | null;
  source: ConsentSource | null;
}

export const NO_CONSENT: ConsentOnRecord = { consent: null, purpose: null, source: null };

/**
 * The consent a check is made under: the request's own fields win, each on its own, over the
 * merchant's standing attestation and default purpose. A live check without a consent of true or
 * without a purpose is refused (422 CONSENT_REQUIRED) before anything else is done for it: no
 * vendor call, no hold on the wallet. Sandbox checks never need them, and keep what they were given.
 */
export function consentFor(mode: Mode, sent: ConsentFields, merchant: StandingConsent): ConsentOnRecord {
  const fromRequest = sent.consent !== undefined && sent.consent !== null;
  const consent = fromRequest ? sent.consent! : merchant.standing ? true : null;
  const source: ConsentSource | null = fromRequest ? "request" : merchant.standing ? "standing" : null;
  // Free text, kept for years: never a card or Aadhaar number typed into it (B9).
  const purpose = storedFreeText(sent.purpose ?? merchant.purpose ?? null);
  if (mode === "live") {
    const details = [
      consent === true
        ? null
        : { field: "consent", message: consent === false ? "consent is false" : "send consent: true, or set a standing attestation in the dashboard" },
      purpose ? null : { field: "purpose", message: "send a purpose of 20-200 characters, or set a default purpose in the dashboard" },
    ].filter((d) => d !== null);
    if (details.length) {
      const missing = details.map((d) => d.field).join(" and ");
      throw new AppError(
        "CONSENT_REQUIRED",
        `Live checks need the person's consent and a purpose; missing: ${missing} (${details.map((d) => d.message).join("; ")}).`,
        {
          field: details[0]!.field,
          details,
        },
      );
    }
  }
  return { consent, purpose, source };
}

/** What a live vendor call is told; absent in sandbox (its fixtures take none) and whenever the attestation is not complete. */
export function vendorConsentOf(mode: Mode, c: ConsentOnRecord): VendorConsent | undefined {
  return mode === "live" && c.consent === true && c.purpose && c.source ? { purpose: c.purpose, source: c.source } : undefined;
}
