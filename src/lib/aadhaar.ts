/** Aadhaar number rules. Pure and browser-safe. */
import { verhoeffDigit, verhoeffValid } from "@/lib/verhoeff";

/** The shape only (for schemas and forms); the Verhoeff check digit needs `isValidAadhaar`. */
export const AADHAAR_PATTERN = "^[2-9][0-9]{11}$";

const AADHAAR_REGEX = new RegExp(AADHAAR_PATTERN);

/** 12 digits, the first 2–9 (UIDAI never issues 0 or 1 there), the last a Verhoeff check digit. */
export function isValidAadhaar(s: string): boolean {
  return AADHAAR_REGEX.test(s) && verhoeffValid(s);
}

/** The only form of the number that may be shown or stored in plain text. */
export function maskAadhaar(n: string): string {
  return `XXXXXXXX${n.slice(-4)}`;
}

/** The 12-digit number whose first 11 digits are `first11`. */
export function withVerhoeffDigit(first11: string): string {
  if (!/^\d{11}$/.test(first11)) throw new RangeError("Expected 11 digits");
  return first11 + verhoeffDigit(first11);
}
