import { z } from "zod";
import { consentFields } from "@/server/api/consent.schema";
import { apiEnvelopeWithMessage } from "@/server/rest/envelope";
import { merchantIdField, aadhaarNumberField, KYC_COMMON_ERRORS, kycMeta } from "@/server/api/kyc/kyc.schema";

export const generateOtpInput = z.object({ merchantId: merchantIdField, aadhaarNumber: aadhaarNumberField, ...consentFields });

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
      "UPSTREAM_ERROR",
      "SOURCE_UNAVAILABLE",
      "SOURCE_TIMEOUT",
    ],
    fieldCodes: { aadhaarNumber: "INVALID_AADHAAR" },
    sensitive: true,
  },
);
