import { z } from "zod";
import { PURPOSE_MAX_CHARS, PURPOSE_MIN_CHARS, purposeSchema } from "@/lib/consent";

// The consent and purpose every live verification and KYC call carries (contract C6). One word each,
// so the /v1 (snake_case) and /api (camelCase) bodies name them alike.

const WHERE_FROM =
  "Live mode: required unless you set a standing attestation and a default purpose in the dashboard (a request's own field wins); without either, 422 CONSENT_REQUIRED before any vendor call or charge. Sandbox does not need it.";

export const consentFields = {
  consent: z
    .boolean()
    .nullish()
    .meta({
      description: `true: you attest that the person consented to this check for the stated purpose (DPDP Act 2023; UIDAI for Aadhaar). false refuses a live call. ${WHERE_FROM} Stored with the check.`,
      example: true,
    }),
  purpose: purposeSchema.nullish().meta({
    description: `Why the check is made, as the person was told (${PURPOSE_MIN_CHARS}-${PURPOSE_MAX_CHARS} characters after trimming). ${WHERE_FROM} Stored with the check and sent to vendors that take it.`,
    example: "Employee onboarding: identity check before the offer letter",
  }),
};

/** How a body-wide note of an operation's description states the fields. */
export const CONSENT_NOTE =
  " Live calls carry `consent` and `purpose` (or rely on the merchant's standing attestation and default purpose), else 422 CONSENT_REQUIRED; sandbox does not need them.";
