/** Bank account and IFSC format rules. Pure and browser-safe. */

/** 4-letter bank code, a reserved 0, then 6 letters or digits naming the branch. */
export const IFSC_PATTERN = "^[A-Z]{4}0[A-Z0-9]{6}$";

export const ACCOUNT_NUMBER_PATTERN = "^[0-9]{9,18}$";

const IFSC_REGEX = new RegExp(IFSC_PATTERN);
const ACCOUNT_NUMBER_REGEX = new RegExp(ACCOUNT_NUMBER_PATTERN);

/** Expects the IFSC as sent: lower case is not accepted. */
export function isValidIfsc(ifsc: string): boolean {
  return IFSC_REGEX.test(ifsc);
}

/** 9 to 18 digits, nothing else (no spaces or dashes). */
export function isValidAccountNumber(accountNumber: string): boolean {
  return ACCOUNT_NUMBER_REGEX.test(accountNumber);
}
