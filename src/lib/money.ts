/** Money is integer paise everywhere; strings with two fraction digits on the wire. */

const AMOUNT_TEXT = /^(?:0|[1-9]\d{0,11})(?:\.\d{1,2})?$/;

/**
 * What the API document says of amount strings (JSON Schema patterns): exactly the text the server
 * takes as a payment amount (1.00 to 100000.00) or a refund amount (at least 0.01), spaces around it
 * included (they are trimmed).
 */
export const PAYMENT_AMOUNT_PATTERN = "^\\s*(?:[1-9][0-9]{0,4}(?:\\.[0-9]{1,2})?|100000(?:\\.00?)?)\\s*$";
export const REFUND_AMOUNT_PATTERN = "^\\s*(?!0(?:\\.0{1,2})?\\s*$)(?:0|[1-9][0-9]{0,11})(?:\\.[0-9]{1,2})?\\s*$";

/**
 * Parses a number or numeric string with at most two fraction digits into paise.
 * Returns null for anything else (negative, exponent, more digits, NaN).
 */
export function parseAmountToPaise(input: unknown): number | null {
  let text: string;
  if (typeof input === "number") {
    if (!Number.isFinite(input) || input < 0) return null;
    text = String(input);
    if (/e/i.test(text)) return null;
  } else if (typeof input === "string") {
    text = input.trim();
  } else {
    return null;
  }
  if (!AMOUNT_TEXT.test(text)) return null;
  const [whole, frac = ""] = text.split(".");
  return Number(whole) * 100 + Number(frac.padEnd(2, "0"));
}

/** 49900 → "499.00" */
export function formatPaise(paise: number): string {
  const sign = paise < 0 ? "-" : "";
  const abs = Math.abs(paise);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/** 49900 → "₹499.00" with Indian digit grouping (₹1,00,000.00). */
export function formatRupees(paise: number): string {
  const [whole, frac] = formatPaise(Math.abs(paise)).split(".");
  const w = whole!;
  const grouped = w.length <= 3 ? w : `${w.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, ",")},${w.slice(-3)}`;
  return `${paise < 0 ? "-" : ""}₹${grouped}.${frac}`;
}
