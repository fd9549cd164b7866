/** UAN and PF number format rules. Pure and browser-safe. */

export const UAN_PATTERN = "^\\d{12}$";

const UAN_REGEX = new RegExp(UAN_PATTERN);

export function normalizeUan(input: string): string {
  return input.trim();
}

export function isValidUan(uan: string): boolean {
  return UAN_REGEX.test(uan);
}

/**
 * PF number as accepted on input (after trimming): fully slashed (MH/BAN/0000064/000/0000123) or
 * with no slashes (MHBAN00000640000000123), any letter case. A mix of the two is rejected: more
 * likely a typo than a format.
 */
export const PF_NUMBER_PATTERN = "^(?:[A-Za-z]{2}/[A-Za-z]{3}/[0-9]{7}/[0-9]{3}/[0-9]{7}|[A-Za-z]{5}[0-9]{17})$";

const PF_SLASHED = /^([A-Z]{2})\/([A-Z]{3})\/([0-9]{7})\/([0-9]{3})\/([0-9]{7})$/;
const PF_COMPACT = /^([A-Z]{2})([A-Z]{3})([0-9]{7})([0-9]{3})([0-9]{7})$/;

export interface PfNumberParts {
  /** 2 letters, e.g. MH */
  region: string;
  /** 3 letters, e.g. BAN */
  office: string;
  /** 7 digits */
  establishment: string;
  /** 3 digits */
  extension: string;
  /** 7 digits */
  member: string;
}

/** Trims and upper-cases, then splits; null when the input is not a PF number. */
export function parsePfNumber(input: string): PfNumberParts | null {
  const text = input.trim().toUpperCase();
  const m = PF_SLASHED.exec(text) ?? PF_COMPACT.exec(text);
  if (!m) return null;
  return { region: m[1]!, office: m[2]!, establishment: m[3]!, extension: m[4]!, member: m[5]! };
}

/** Slash form, the one responses always use. */
export function formatPfNumber(parts: PfNumberParts): string {
  return `${parts.region}/${parts.office}/${parts.establishment}/${parts.extension}/${parts.member}`;
}

export function normalizePfNumber(input: string): string | null {
  const parts = parsePfNumber(input);
  return parts ? formatPfNumber(parts) : null;
}

/** Establishment id as EPFO prints it: region + office + establishment code, e.g. MHBAN0000064. */
export function establishmentId(parts: Pick<PfNumberParts, "region" | "office" | "establishment">): string {
  return `${parts.region}${parts.office}${parts.establishment}`;
}
