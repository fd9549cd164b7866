import { z } from "zod";
import { ISSUED_PAN_PATTERN, PAN_PATTERN } from "@/lib/pan";
import { panVerificationData } from "@/server/services/identity/verify-pan";
import { consentFields, CONSENT_NOTE } from "@/server/api/consent.schema";
import { v1Envelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";

export const panField = z
  .string()
  .max(32)
  .trim()
  .toUpperCase()
  .regex(new RegExp(PAN_PATTERN), "must be 5 letters, 4 digits and a letter, with a valid 4th (category) letter")
  .refine((pan) => pan.slice(5, 9) !== "0000", "must not have the serial 0000")
  .meta({
    description: "PAN; trimmed and upper-cased before validation. The 4th letter is the holder category; the serial 0000 is never issued.",
    example: "ABCPK1234F",
    // The two checks above as the one pattern the document can state.
    override: { pattern: ISSUED_PAN_PATTERN },
  });

export const holderNameField = z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters");

/** A PAN to check: the single call's body without its consent, and a batch item's. */
export const panLookupInput = z.object({
  pan: panField,
  name: holderNameField.nullish().meta({
    description: "Name to match against the name on record (optional; without it name_match is null).",
  }),
});

export const verifyPanInput = panLookupInput.extend(consentFields);

export const verifyPanOutput = v1Envelope(panVerificationData);

export const verifyPanMeta = {
  openapi: {
    method: "POST",
    path: "/v1/identity/pan/verify",
    tags: ["Identity"],
    summary: "Verify a PAN",
    description:
      "Checks a PAN against the tax registry: holder name, status, category, Aadhaar link and, when a name is sent, a name-match score. A PAN that is not on record is an outcome (status INVALID), not an error." +
      CONSENT_NOTE,
  },
  rest: {
    auth: "bearer",
    errors: ["VALIDATION_ERROR", "INVALID_PAN", "CONSENT_REQUIRED", "UPSTREAM_ERROR", "SOURCE_UNAVAILABLE", "SOURCE_TIMEOUT"],
    fieldCodes: { pan: "INVALID_PAN" },
  },
} satisfies RestOperationMeta;
