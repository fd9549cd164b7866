/** PAN format rules. Pure and browser-safe. */

/** 3 letters, a category letter, the name initial, a 4-digit serial and a check letter. */
export const PAN_PATTERN = "^[A-Z]{3}[PCHFATBLJG][A-Z][0-9]{4}[A-Z]$";

/** What isValidPan accepts, as one pattern for API schemas: PAN_PATTERN without the serial 0000. */
export const ISSUED_PAN_PATTERN = "^[A-Z]{3}[PCHFATBLJG][A-Z](?!0000)[0-9]{4}[A-Z]$";

const PAN_REGEX = new RegExp(PAN_PATTERN);

export const PAN_CATEGORIES = {
  P: "INDIVIDUAL",
  C: "COMPANY",
  H: "HUF",
  F: "FIRM",
  A: "AOP",
  T: "TRUST",
  B: "BOI",
  L: "LOCAL_AUTHORITY",
  J: "ARTIFICIAL_JURIDICAL_PERSON",
  G: "GOVERNMENT",
} as const;

export type PanCategoryLetter = keyof typeof PAN_CATEGORIES;
export type PanCategory = (typeof PAN_CATEGORIES)[PanCategoryLetter];

/** All categories, in the order of PAN_CATEGORIES (handy for enums and docs). */
export const PAN_CATEGORY_VALUES = Object.values(PAN_CATEGORIES) as [PanCategory, ...PanCategory[]];

export function normalizePan(input: string): string {
  return input.trim().toUpperCase();
}

/** Expects a normalized PAN; serial 0000 is never issued, so it is rejected as fake. */
export function isValidPan(pan: string): boolean {
  return PAN_REGEX.test(pan) && pan.slice(5, 9) !== "0000";
}

/** Category from the 4th letter. Throws on a letter that is not a PAN category. */
export function panCategory(pan: string): PanCategory {
  const category = PAN_CATEGORIES[pan.charAt(3) as PanCategoryLetter];
  if (category === undefined) throw new RangeError("Not a PAN category letter");
  return category;
}

/** Ten characters shaped like a PAN, whether or not it was issued (a rejected row's PAN is someone's, mistyped). */
const PAN_SHAPE = /^[A-Z]{5}[0-9]{4}[A-Z]$/;

/**
 * How the dashboard shows a PAN: the four serial digits hidden (ABCPKXXXXF). The letters left
 * (holder type, surname initial, check letter) tell rows apart beside the name; the serial is what
 * singles a person out, and screens are read over shoulders. Text that is not shaped like a PAN
 * identifies nobody and is shown as typed, so a merchant can see what to fix.
 */
export function maskPan(value: string): string {
  const pan = normalizePan(value);
  return PAN_SHAPE.test(pan) ? `${pan.slice(0, 5)}XXXX${pan.slice(9)}` : value;
}
