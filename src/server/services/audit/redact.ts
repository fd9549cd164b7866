import { luhnValid } from "@/lib/cards";
import { verhoeffValid } from "@/lib/verhoeff";

/**
 * Redaction before anything reaches the audit log: secrets, OTPs, full Aadhaar numbers, photos,
 * addresses, card numbers and CVVs. Keys with a sensitive name are redacted whole; every other
 * string and number is also scanned for values that look like card numbers, Aadhaar numbers or
 * secret keys, whatever field they were sent in.
 */
const REDACTED_KEYS = new Set([
  "secret",
  "secretkey",
  "apisecret",
  "xsecretkey",
  "xapisecret",
  "signingsecret",
  "password",
  "token",
  "accesstoken",
  "refreshtoken",
  "checkouttoken",
  "authorization",
  "otp",
  "aadhaar",
  "aadhaarnumber",
  "aadhaarno",
  "uid",
  "vid",
  "photo",
  "image",
  "address",
  "fulladdress",
  "careof",
  "house",
  "street",
  "landmark",
  "cardnumber",
  "number",
  "cvv",
  "cvc",
  "expiry",
  "pin",
  "totp",
  "recoverycode",
  "cvv2",
  "cvc2",
  "cvn",
  "securitycode",
  "cardno",
  "ccnum",
  "ccnumber",
  "cardnum",
  "newpassword",
  "currentpassword",
]);

/** Fields whose digits are identifiers a merchant must be able to read (a UAN has 12 digits). */
const READABLE_KEYS = new Set(["uan", "pfnumber", "requestid", "paymentid", "attemptid", "merchantid", "orderid", "merchantorderid"]);

/** Most bytes of one stored body; a larger one keeps its first half and its size. */
export const MAX_STORED_BYTES = 256 * 1024;

/**
 * Field names repeat on every request: each short one is normalised once. The cache is bounded in
 * entries and in name length, since the names come from request bodies.
 */
const normalisedKeys = new Map<string, string>();
const NORMALISED_KEYS_KEPT = 4096;
const NORMALISED_KEY_CHARS = 64;

function normaliseKey(key: string): string {
  let normal = normalisedKeys.get(key);
  if (normal === undefined) {
    normal = key.replace(/[^a-z0-9]/gi, "").toLowerCase();
    if (key.length > NORMALISED_KEY_CHARS) return normal;
    if (normalisedKeys.size >= NORMALISED_KEYS_KEPT) normalisedKeys.clear();
    normalisedKeys.set(key, normal);
  }
  return normal;
}

/**
 * What may separate the digits of a number a person typed or pasted: spaces of every kind (the
 * no-break and thin spaces a copied card number carries, zero-width ones included), dots and dashes
 * of every kind. At most two between digits.
 */
const SEP = "[ \\t\\u00a0\\u1680\\u2000-\\u200d\\u202f\\u205f\\u2060\\u3000\\ufeff.\\-\\u2010-\\u2015\\u2212\\ufe58\\ufe63\\uff0d]";
/** Digits as typed: ASCII, fullwidth (CJK keyboards) and Devanagari. */
const DIGIT = "[0-9\\uff10-\\uff19\\u0966-\\u096f]";
const DIGIT_RUN = `(?<!${DIGIT})((?:${DIGIT}${SEP}{0,2}){11,18}${DIGIT})(?!${DIGIT})`;
const SECRET = "((?:sk_(?:test|live)_|whsec_)[A-Za-z0-9]+|\\bsk_[A-Za-z0-9_]{16,})";

/**
 * One pass over a string: secret keys, and digit runs bounded by non-digits. Our own ids need no
 * exception: their random parts hold no long digit runs, and the millisecond timestamp of a payment
 * id starts with 1, which no card number or Aadhaar number does (an exception for id-like prefixes
 * once let anything behind one through, `key_sk_live_…`).
 */
const SCAN = new RegExp(`${SECRET}|${DIGIT_RUN}`, "g");

/**
 * Card numbers start with a payment network's digit (2–6: Mastercard, Amex, Diners, JCB, Visa,
 * Discover, RuPay 6x; RuPay also 81, 82). Other Luhn-valid runs, such as a 13-digit millisecond
 * timestamp in an order or request id (one in ten passes Luhn), stay readable.
 */
const CARD_PREFIX = /^(?:[2-6]|8[12])/;

/** The run's digits as ASCII, separators dropped. */
function asciiDigits(run: string): string {
  let out = "";
  for (const ch of run) {
    const c = ch.charCodeAt(0);
    if (c >= 0x30 && c <= 0x39) out += ch;
    else if (c >= 0xff10 && c <= 0xff19) out += String(c - 0xff10);
    else if (c >= 0x0966 && c <= 0x096f) out += String(c - 0x0966);
  }
  return out;
}

function sensitiveDigits(digits: string): boolean {
  if (digits.length >= 13 && digits.length <= 19 && CARD_PREFIX.test(digits) && luhnValid(digits)) return true;
  return digits.length === 12 && /^[2-9]/.test(digits) && verhoeffValid(digits);
}

/** Every match needs an underscore (secrets) or a digit: text with neither is kept without a scan. */
const MAY_MATCH = /[_0-9\uff10-\uff19\u0966-\u096f]/;

export function redactString(value: string): string {
  if (value.length < 12 || !MAY_MATCH.test(value)) return value;
  return value.replace(SCAN, (match, secret: string | undefined, run: string | undefined) => {
    if (secret) return "[REDACTED]";
    if (run && sensitiveDigits(asciiDigits(run))) return "[REDACTED]";
    return match;
  });
}

/**
 * Free text a merchant or customer supplies (a payment's description or customer name, a refund's
 * reason, a batch item's name), as stored: a card or Aadhaar number or a secret key typed into it is
 * not kept (B9 applies to every stored text, not only the audit log).
 */
export function storedFreeText(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : redactString(value);
}

function redactNumber(value: number): number | string {
  if (!Number.isSafeInteger(value) || value < 1e11) return value;
  return sensitiveDigits(String(value)) ? "[REDACTED]" : value;
}

export function redactValue(value: unknown, depth = 0, readable = false): unknown {
  if (depth > 20) return "[TRUNCATED]";
  if (typeof value === "string") return readable ? value : redactString(value);
  if (typeof value === "number") return readable ? value : redactNumber(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1, readable));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    const source = value as Record<string, unknown>;
    for (const k of Object.keys(source)) {
      const v = source[k];
      const key = normaliseKey(k);
      out[k] = REDACTED_KEYS.has(key) && v !== null ? "[REDACTED]" : redactValue(v, depth + 1, READABLE_KEYS.has(key));
    }
    return out;
  }
  return value;
}

/** Stored JSON text cut to `maxBytes` (not characters: CJK text is 3 bytes a character): a larger one keeps its first half and its size. */
function capStoredText(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  const head = Buffer.from(text)
    .subarray(0, Math.floor(maxBytes / 2))
    .toString("utf8");
  return JSON.stringify({ truncated: true, originalBytes: bytes, head });
}

/** JSON text of the redacted value, capped in bytes. */
export function redactedJson(value: unknown, maxBytes = MAX_STORED_BYTES): string | null {
  if (value === undefined) return null;
  return capStoredText(JSON.stringify(redactValue(value)), maxBytes);
}

/** The redacted value's JSON text under each of several caps, redacted once. */
export function redactedJsonUnderCaps(value: unknown, caps: number[]): (string | null)[] {
  if (value === undefined) return caps.map(() => null);
  const text = JSON.stringify(redactValue(value));
  return caps.map((cap) => capStoredText(text, cap));
}

/** What is stored of a body that is not JSON: its size only (it may hold anything). */
export function unparsedBodyText(text: string): string {
  return JSON.stringify({ unparsed: true, bytes: Buffer.byteLength(text) });
}

/** Parses a body for redaction; non-JSON text is not stored verbatim. */
export function redactedBodyText(raw: Buffer | string | null | undefined, maxBytes = MAX_STORED_BYTES): string | null {
  if (raw === null || raw === undefined || raw.length === 0) return null;
  const text = typeof raw === "string" ? raw : raw.toString("utf8");
  try {
    return redactedJson(JSON.parse(text), maxBytes);
  } catch {
    return unparsedBodyText(text);
  }
}
