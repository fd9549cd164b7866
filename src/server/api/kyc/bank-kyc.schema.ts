import { z } from "zod";
import { consentFields } from "@/server/api/consent.schema";
import { apiEnvelopeWithMessage } from "@/server/rest/envelope";
import { ACCOUNT_NUMBER_PATTERN, IFSC_PATTERN } from "@/lib/bank";
import { holderNameField } from "@/server/api/identity/verify-pan.schema";
import { merchantIdField, chargeFields, nameMatch, CHARGED_ERRORS, kycMeta } from "@/server/api/kyc/kyc.schema";

export const bankKycInput = z.object({
  merchantId: merchantIdField,
  accountNumber: z
    .string()
    .max(32)
    .trim()
    .regex(new RegExp(ACCOUNT_NUMBER_PATTERN), "must be 9 to 18 digits")
    .meta({ description: "9 to 18 digits.", example: "50100123456789" }),
  ifsc: z
    .string()
    .max(20)
    .trim()
    .toUpperCase()
    .regex(new RegExp(IFSC_PATTERN), "must be 4 letters, a zero and 6 letters or digits")
    .meta({ description: "Branch IFSC, e.g. HDFC0001234.", example: "HDFC0001234" }),
  name: holderNameField.nullish().meta({ description: "Name to match against the name the bank holds." }),
  ...consentFields,
});

export const bankKycData = z
  .object({
    accountExists: z.boolean(),
    accountStatus: z.enum(["VALID", "INVALID", "BLOCKED", "CLOSED", "PENDING"]),
    nameAtBank: z.string().nullable(),
    nameMatch,
    ifscDetails: z
      .object({ bank: z.string().nullable(), branch: z.string().nullable(), city: z.string().nullable(), state: z.string().nullable() })
      .meta({ description: "Each part is null when the source does not give it (in live mode, the state; and all four for an account that does not exist)." }),
    bankReference: z.string(),
    ...chargeFields,
  })
  .meta({ id: "BankKyc" });

export const bankKycOutput = apiEnvelopeWithMessage(bankKycData);

export const bankKycMeta = kycMeta(
  "/api/kyc/bank/verify",
  "Bank account KYC",
  "A penny-drop style check of a bank account with the branch's IFSC details, charged from the wallet (bank KYC fee). Every account status is an answer and is charged.",
  {
    errors: [...CHARGED_ERRORS, "INVALID_ACCOUNT_NUMBER", "INVALID_IFSC"],
    fieldCodes: { accountNumber: "INVALID_ACCOUNT_NUMBER", ifsc: "INVALID_IFSC" },
    sensitive: true,
  },
);
