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
