import type { VendorConsent } from "@/lib/consent";
import type { AnsweringVendor } from "@/server/providers/pan/types";

/** Address parts as UIDAI's eKYC gives them; any part may be empty except vtc, district, state, country and pincode. */
export interface AadhaarAddress {
  house: string;
  street: string;
  landmark: string;
  locality: string;
  /** Village, town or city. */
  vtc: string;
  postOffice: string;
  subDistrict: string;
  district: string;
  state: string;
  country: string;
  /** 6 digits. */
  pincode: string;
}

export interface AadhaarEkyc {
  name: string;
  /** YYYY-MM-DD */
  dob: string;
  /** YYYY, the year of `dob`. */
  yearOfBirth: string;
  gender: "M" | "F" | "T";
  /** Relation and name, e.g. "S/O RAJESH KUMAR". */
  careOf: string;
  address: AadhaarAddress;
  /** The non-empty address parts in field order joined with ", ", a name repeated before the state (e.g. city = district) only once. */
  fullAddress: string;
  /** Base64 JPEG, no data: prefix. */
  photo: string;
}

export interface AadhaarOtpSent {
  /** Last four digits of the linked mobile, e.g. "4321"; empty when the source does not give them (the live source's answer names none). */
  mobileLast4: string;
  /** The source's reference for this OTP (live: the vendor's ref_id), passed back to submitOtp; kept beside the request, never shown to the merchant. */
  reference: string;
}

export type AadhaarOtpResult = { kind: "verified"; ekyc: AadhaarEkyc } | { kind: "wrong-otp" };

export interface AadhaarCallOptions {
  /** The person's consent and the purpose, on every live call (absent in sandbox); sent to vendors that take them. */
  consent?: VendorConsent;
}

export interface AadhaarProvider {
  /** The live vendor behind every answer of this provider (kept on the KYC transaction); absent in sandbox. */
  readonly vendor?: AnsweringVendor;
  /** `aadhaarNumber` is already valid. Throws AppError AADHAAR_MOBILE_NOT_LINKED, AADHAAR_LOCKED, SOURCE_UNAVAILABLE or SOURCE_TIMEOUT. */
  sendOtp(aadhaarNumber: string, options?: AadhaarCallOptions): Promise<AadhaarOtpSent>;
  /** The source checks the OTP. Throws OTP_EXPIRED or AADHAAR_MOBILE_NOT_LINKED where the source says so, SOURCE_UNAVAILABLE / SOURCE_TIMEOUT on source failure. */
  submitOtp(aadhaarNumber: string, reference: string, otp: string, options?: AadhaarCallOptions): Promise<AadhaarOtpResult>;
  /** Numbers every merchant of this mode uses as test fixtures: only each merchant's own OTP limits count them. */
  sharedTestNumbers?: ReadonlySet<string>;
}
