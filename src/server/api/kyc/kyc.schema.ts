import { z } from "zod";
import { AADHAAR_PATTERN, isValidAadhaar } from "@/lib/aadhaar";
import { ACCOUNT_NUMBER_PATTERN, IFSC_PATTERN } from "@/lib/bank";
import { PAN_CATEGORY_VALUES } from "@/lib/pan";
import { holderNameField, panField } from "@/server/api/identity/verify-pan.schema";
import { apiEnvelopeWithMessage } from "@/server/rest/envelope";
import type { RestMeta, RestOperationMeta } from "@/server/rest/meta";

// The four KYC operations (contract A7–A9, B6): inputs, answers and what each can refuse with.

const merchantIdField = z
  .string()
  .trim()
  .min(1, "is required")
  .max(64)
  .meta({ description: "Your merchant id; must be the API key's merchant.", example: "mer_8fK2mQ9xT4bV1cZ7" });

export const aadhaarNumberField = z
  .string()
  .max(20)
  .transform((v) => v.replace(/[\s-]/g, ""))
  .refine((v) => new RegExp(AADHAAR_PATTERN).test(v) && isValidAadhaar(v), "must be 12 digits, the first 2–9, with a valid Verhoeff check digit")
  .meta({ description: "12 digits (spaces allowed between groups); never stored or logged in full.", example: "234567890009" });

const otpField = z
  .string()
  .regex(/^\d{6}$/, "must be a string of 6 digits")
  .meta({ description: "The 6-digit OTP, as a string (leading zeros matter).", example: "123456" });

const chargeFields = {
  kycTransactionId: z.string().meta({ example: "kyc_txn_Q2w9Xk4mTz8bV1cN" }),
  charge: z.object({ amount: z.string().meta({ example: "3.00" }), currency: z.literal("INR") }),
  walletBalance: z.string().meta({ description: "The wallet balance after this charge.", example: "9997.00" }),
};

const nameMatch = z
  .object({ score: z.number().min(0).max(100), result: z.enum(["MATCH", "PARTIAL", "NO_MATCH"]) })
  .nullable()
  .meta({ description: "Score 0–100 (MATCH ≥ 90, PARTIAL 70–89.99, NO_MATCH < 70); null when no name was sent or none is on record." });

const KYC_COMMON_ERRORS = ["VALIDATION_ERROR", "MERCHANT_MISMATCH", "BROWSER_REQUEST_FORBIDDEN"] as const;
const CHARGED_ERRORS = [...KYC_COMMON_ERRORS, "INSUFFICIENT_BALANCE", "SOURCE_UNAVAILABLE", "SOURCE_TIMEOUT"] as const;

function kycMeta(path: `/api/kyc/${string}`, summary: string, description: string, rest: Omit<RestMeta, "auth">): RestOperationMeta {
  return { openapi: { method: "POST", path, tags: ["KYC"], summary, description }, rest: { auth: "kyc", ...rest } };
}

// ---------------------------------------------------------------------------------------------
// Aadhaar OTP

export const generateOtpInput = z.object({ merchantId: merchantIdField, aadhaarNumber: aadhaarNumberField });

export const generateOtpData = z
  .object({
    requestId: z.string().meta({ example: "kyc_req_H7d2Lm9QxT3vB8kP" }),
    message: z.string().meta({ description: "Names only the last digits of the mobile." }),
    expiresAt: z.string().meta({ description: "When the OTP stops working (10 minutes)." }),
    resendAvailableAt: z.string().meta({ description: "The earliest time another OTP may be requested for this number (60 s)." }),
  })
  .meta({ id: "AadhaarOtpSent" });

export const generateOtpOutput = apiEnvelopeWithMessage(generateOtpData);

export const generateOtpMeta = kycMeta(
  "/api/kyc/aadhaar/generate-otp",
  "Send an Aadhaar OTP",
  "Sends an OTP to the mobile number linked with the Aadhaar number. Never charged. OTPs are valid 10 minutes; another may be requested after 60 s (429 OTP_RESEND_TOO_SOON), and at most 5 per number per 30 minutes (429 OTP_GENERATION_LIMIT). One number receives at most 1 OTP a minute and 10 per 24 hours from all merchants together, counted per mode (429 OTP_GENERATION_LIMIT; the sandbox's documented test numbers count only toward each merchant's own limits). A merchant may have at most 100 OTPs sent in the last minute that no verify-otp has followed, refused lookups included (429 RATE_LIMITED). Every 429 carries Retry-After.",
  {
    errors: [
      ...KYC_COMMON_ERRORS,
      "INVALID_AADHAAR",
      "OTP_RESEND_TOO_SOON",
      "OTP_GENERATION_LIMIT",
      "RATE_LIMITED",
      "AADHAAR_MOBILE_NOT_LINKED",
      "AADHAAR_LOCKED",
      "SOURCE_UNAVAILABLE",
      "SOURCE_TIMEOUT",
    ],
    fieldCodes: { aadhaarNumber: "INVALID_AADHAAR" },
    sensitive: true,
  },
);

export const verifyOtpInput = z.object({
  merchantId: merchantIdField,
  aadhaarNumber: aadhaarNumberField,
  otp: otpField,
  requestId: z.string().max(64).nullish().meta({ description: "The generate-otp requestId; without it the newest open request for this number is used." }),
});

const address = z.object({
  house: z.string(),
  street: z.string(),
  landmark: z.string(),
  locality: z.string(),
  vtc: z.string().meta({ description: "Village, town or city" }),
  postOffice: z.string(),
  subDistrict: z.string(),
  district: z.string(),
  state: z.string(),
  country: z.string(),
  pincode: z.string(),
});

export const verifyOtpData = z
  .object({
    kycTransactionId: chargeFields.kycTransactionId,
    requestId: z.string(),
    status: z.literal("VERIFIED"),
    maskedAadhaar: z.string().meta({ example: "XXXXXXXX0009" }),
    name: z.string(),
    dob: z.string().meta({ description: "YYYY-MM-DD" }),
    yearOfBirth: z.string().meta({ description: "YYYY" }),
    gender: z.enum(["M", "F", "T"]),
    careOf: z.string(),
    address,
    fullAddress: z.string(),
    photo: z.string().meta({ description: "Base64 JPEG" }),
    charge: chargeFields.charge,
    walletBalance: chargeFields.walletBalance,
    verifiedAt: z.string(),
  })
  .meta({ id: "AadhaarKyc" });

export const verifyOtpOutput = apiEnvelopeWithMessage(verifyOtpData);

export const verifyOtpMeta = kycMeta(
  "/api/kyc/aadhaar/verify-otp",
  "Verify an Aadhaar OTP (eKYC)",
  "Checks the OTP and answers the holder's eKYC record, charged once from the wallet (Aadhaar OTP KYC fee). A wrong OTP answers 422 with attemptsRemaining; the third locks the request. While another verify-otp call for the same request is with the source, the answer is 409 OTP_VERIFICATION_IN_PROGRESS: retry after Retry-After (409 OTP_ALREADY_USED means the OTP was used). Only a VERIFIED answer is charged; with too little balance the answer is 402 and the OTP stays usable.",
  {
    errors: [
      ...CHARGED_ERRORS,
      "INVALID_AADHAAR",
      "OTP_REQUEST_NOT_FOUND",
      "INVALID_OTP",
      "OTP_ATTEMPTS_EXCEEDED",
      "OTP_EXPIRED",
      "OTP_ALREADY_USED",
      "OTP_VERIFICATION_IN_PROGRESS",
    ],
    fieldCodes: { aadhaarNumber: "INVALID_AADHAAR" },
    sensitive: true,
  },
);

// ---------------------------------------------------------------------------------------------
// PAN KYC

const dobField = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date as YYYY-MM-DD")
  .refine((v) => {
    const d = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v) && d.getTime() <= Date.now();
  }, "must be a real date, not in the future")
  .meta({ description: "Date of birth (or incorporation) to match, YYYY-MM-DD.", example: "1990-01-01" });

export const panKycInput = z.object({
  merchantId: merchantIdField,
  pan: panField,
  name: holderNameField.nullish().meta({ description: "Name to match against the name on record." }),
  dob: dobField.nullish(),
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

// ---------------------------------------------------------------------------------------------
// Bank account KYC

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
});

export const bankKycData = z
  .object({
    accountExists: z.boolean(),
    accountStatus: z.enum(["VALID", "INVALID", "BLOCKED", "CLOSED", "PENDING"]),
    nameAtBank: z.string().nullable(),
    nameMatch,
    ifscDetails: z.object({ bank: z.string(), branch: z.string(), city: z.string(), state: z.string() }),
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
