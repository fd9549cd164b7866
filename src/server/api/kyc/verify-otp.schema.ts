import { z } from "zod";
import { consentFields } from "@/server/api/consent.schema";
import { apiEnvelopeWithMessage } from "@/server/rest/envelope";
import { merchantIdField, aadhaarNumberField, otpField, chargeFields, CHARGED_ERRORS, kycMeta } from "@/server/api/kyc/kyc.schema";

export const verifyOtpInput = z.object({
  merchantId: merchantIdField,
  aadhaarNumber: aadhaarNumberField,
  otp: otpField,
  requestId: z.string().max(64).nullish().meta({ description: "The generate-otp requestId; without it the newest open request for this number is used." }),
  ...consentFields,
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
