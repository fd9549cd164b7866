import { z } from "zod";
import { AADHAAR_PATTERN, isValidAadhaar } from "@/lib/aadhaar";
import { CONSENT_NOTE } from "@/server/api/consent.schema";
import type { RestMeta, RestOperationMeta } from "@/server/rest/meta";

// What the four KYC operations share: the caller's merchant id, the Aadhaar number and OTP fields, the
// charge in every charged answer, and what each operation can refuse with.

export const merchantIdField = z
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

export const otpField = z
  .string()
  .regex(/^\d{6}$/, "must be a string of 6 digits")
  .meta({ description: "The 6-digit OTP, as a string (leading zeros matter).", example: "123456" });

export const chargeFields = {
  kycTransactionId: z.string().meta({ example: "kyc_txn_Q2w9Xk4mTz8bV1cN" }),
  charge: z.object({ amount: z.string().meta({ example: "3.00" }), currency: z.literal("INR") }),
  walletBalance: z.string().meta({ description: "The wallet balance after this charge.", example: "9997.00" }),
};

export const nameMatch = z
  .object({ score: z.number().min(0).max(100), result: z.enum(["MATCH", "PARTIAL", "NO_MATCH"]) })
  .nullable()
  .meta({ description: "Score 0–100 (MATCH ≥ 90, PARTIAL 70–89.99, NO_MATCH < 70); null when no name was sent or none is on record." });

export const KYC_COMMON_ERRORS = ["VALIDATION_ERROR", "MERCHANT_MISMATCH", "BROWSER_REQUEST_FORBIDDEN", "CONSENT_REQUIRED"] as const;
export const CHARGED_ERRORS = [...KYC_COMMON_ERRORS, "INSUFFICIENT_BALANCE", "UPSTREAM_ERROR", "SOURCE_UNAVAILABLE", "SOURCE_TIMEOUT"] as const;

export function kycMeta(path: `/api/kyc/${string}`, summary: string, description: string, rest: Omit<RestMeta, "auth">): RestOperationMeta {
  return { openapi: { method: "POST", path, tags: ["KYC"], summary, description: description + CONSENT_NOTE }, rest: { auth: "kyc", ...rest } };
}
