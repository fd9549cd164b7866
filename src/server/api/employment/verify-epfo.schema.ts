import { z } from "zod";
import { normalizePfNumber, PF_NUMBER_PATTERN, UAN_PATTERN } from "@/lib/epfo";
import { consentFields, CONSENT_NOTE } from "@/server/api/consent.schema";
import { v1EnvelopeNoTimestamp } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";

export const uanField = z
  .string()
  .max(32)
  .trim()
  .regex(new RegExp(UAN_PATTERN), "must be 12 digits")
  .meta({ description: "Universal Account Number: 12 digits.", example: "100200300400" });

export const pfNumberField = z
  .string()
  .max(40)
  .trim()
  .refine(
    (v) => normalizePfNumber(v) !== null,
    "must be region (2 letters), office (3 letters), establishment (7 digits), extension (3 digits), member (7 digits)",
  )
  .transform((v) => normalizePfNumber(v)!)
  .meta({
    description: "PF member id; slashes optional. Answers always use the slash form.",
    example: "MH/BAN/0000064/000/0000123",
    pattern: PF_NUMBER_PATTERN,
  });

export const epfoLookupFields = { uan: uanField.optional(), pf_number: pfNumberField.optional() };

/** How the document says "exactly one of uan or pf_number". */
const EXACTLY_ONE_LOOKUP = { oneOf: [{ required: ["uan"] }, { required: ["pf_number"] }] };

/** An EPFO lookup takes exactly one of uan or pf_number; the document says so with a oneOf. */
export function exactlyOneLookup<S extends z.ZodType<{ uan?: string; pf_number?: string }>>(schema: S): S {
  return schema
    .refine((v) => v !== null && typeof v === "object" && (v.uan === undefined) !== (v.pf_number === undefined), {
      message: "send exactly one of uan or pf_number",
      params: { code: "VALIDATION_ERROR" },
      when: () => true,
    })
    .meta({ override: EXACTLY_ONE_LOOKUP });
}

/** A member to look up: the single call's body without its consent, and a batch item's. */
export const epfoLookupInput = exactlyOneLookup(z.object(epfoLookupFields));

export const verifyEpfoInput = exactlyOneLookup(z.object({ ...epfoLookupFields, ...consentFields }));

const employment = z.object({
  establishment_id: z.string(),
  employer: z.string(),
  pf_number: z.string(),
  date_of_joining: z.string().meta({ description: "YYYY-MM-DD" }),
  date_of_exit: z.string().nullable().meta({ description: "YYYY-MM-DD; null while employed" }),
  last_contribution_month: z.string().nullable().meta({ description: "YYYY-MM; null when the source does not give it (live mode)" }),
  is_current: z.boolean(),
});

export const epfoVerificationData = z
  .object({
    uan: z.string(),
    pf_number: z.string().meta({ description: "Slash form; the one looked up when the call was by PF number." }),
    member_name: z.string().meta({ description: "Upper case" }),
    employer: z.string(),
    member_status: z.enum(["ACTIVE", "EXITED", "INACTIVE"]),
    last_contribution_month: z.string().nullable().meta({ description: "YYYY-MM; null when the source does not give it (live mode)", example: "2026-10" }),
    date_of_exit: z.string().nullable().meta({ description: "YYYY-MM-DD, or null when there is no exit" }),
    employment_history: z.array(employment).meta({ description: "Newest first." }),
  })
  .meta({ id: "EpfoVerification" });

export const verifyEpfoOutput = v1EnvelopeNoTimestamp(epfoVerificationData);

export const verifyEpfoMeta = {
  openapi: {
    method: "POST",
    path: "/v1/employment/epfo/verify",
    tags: ["Employment"],
    summary: "Verify an EPFO member account",
    description:
      "Looks up an EPFO member by exactly one of `uan` or `pf_number`. The success envelope has no `timestamp` (as specified). Live lookups need a UAN: a `pf_number` there answers 422 LOOKUP_NOT_SUPPORTED." +
      CONSENT_NOTE,
  },
  rest: {
    auth: "bearer",
    errors: [
      "VALIDATION_ERROR",
      "INVALID_UAN",
      "INVALID_PF_NUMBER",
      "UAN_NOT_FOUND",
      "PF_NUMBER_NOT_FOUND",
      "LOOKUP_NOT_SUPPORTED",
      "CONSENT_REQUIRED",
      "UPSTREAM_ERROR",
      "SOURCE_UNAVAILABLE",
      "SOURCE_TIMEOUT",
    ],
    fieldCodes: { uan: "INVALID_UAN", pf_number: "INVALID_PF_NUMBER" },
    documentBody: EXACTLY_ONE_LOOKUP,
  },
} satisfies RestOperationMeta;
