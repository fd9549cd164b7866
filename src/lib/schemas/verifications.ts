import { z } from "zod";
import { cursorSchema, limitSchema } from "@/lib/schemas/logs";

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

export const verificationsListInput = verificationFiltersSchema.extend({ cursor: cursorSchema.optional(), limit: limitSchema });
