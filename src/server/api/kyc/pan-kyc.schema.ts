import { z } from "zod";
import { consentFields } from "@/server/api/consent.schema";
import { apiEnvelopeWithMessage } from "@/server/rest/envelope";
import { PAN_CATEGORY_VALUES } from "@/lib/pan";
import { holderNameField, panField } from "@/server/api/identity/verify-pan.schema";
import { merchantIdField, chargeFields, nameMatch, CHARGED_ERRORS, kycMeta } from "@/server/api/kyc/kyc.schema";

const dobField = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date as YYYY-MM-DD")
  .refine((v) => {
    const d = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v) && d.getTime() <= Date.now();
  }, "must be a real date, not in the future")
  .meta({ description: "Date of birth (or incorporation) to match, YYYY-MM-DD: a real date, not in the future.", example: "1990-01-01", format: "date" });

export const panKycInput = z.object({
  merchantId: merchantIdField,
  pan: panField,
  name: holderNameField.nullish().meta({ description: "Name to match against the name on record." }),
  dob: dobField.nullish(),
  ...consentFields,
});

export const panKycData = z
  .object({
    pan: z.string(),
    status: z.enum(["VALID", "INVALID", "DEACTIVATED", "DELETED"]),
    registeredName: z.string().nullable(),
    category: z.enum(PAN_CATEGORY_VALUES),
    nameMatch,
    dobMatch: z.boolean().nullable().meta({ description: "Null when no dob was sent or none is on record." }),
    aadhaarSeedingStatus: z.enum(["LINKED", "NOT_LINKED", "NOT_APPLICABLE"]),
    ...chargeFields,
  })
  .meta({ id: "PanKyc" });

export const panKycOutput = apiEnvelopeWithMessage(panKycData);

export const panKycMeta = kycMeta(
  "/api/kyc/pan/verify",
  "PAN KYC",
  "Checks a PAN with the holder's name and date of birth, charged from the wallet (PAN KYC fee). Every status is an answer, INVALID included, and is charged.",
  { errors: [...CHARGED_ERRORS, "INVALID_PAN"], fieldCodes: { pan: "INVALID_PAN" }, sensitive: true },
);
