/**
 * Redaction before anything reaches the audit log (contract B9): secrets, OTPs, full Aadhaar
 * numbers, photos, addresses, card numbers and CVVs. Matching is on normalised key names.
 */
const REDACTED_KEYS = new Set([
  "secret", "secretkey", "apisecret", "xsecretkey", "xapisecret", "signingsecret", "password", "token",
  "accesstoken", "refreshtoken", "checkouttoken", "authorization", "otp", "aadhaar", "aadhaarnumber",
  "aadhaarno", "uid", "vid", "photo", "image", "address", "fulladdress", "careof", "house", "street",
  "landmark", "cardnumber", "number", "cvv", "cvc", "expiry", "pin", "totp", "recoverycode",
]);

const MAX_STORED_CHARS = 256 * 1024;

function normaliseKey(key: string): string {
  return key.replace(/[^a-z0-9]/gi, "").toLowerCase();
}

export function redactValue(value: unknown, depth = 0): unknown {
  if (depth > 20) return "[TRUNCATED]";
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = REDACTED_KEYS.has(normaliseKey(k)) && v !== null ? "[REDACTED]" : redactValue(v, depth + 1);
    }
    return out;
  }
  return value;
}

/** JSON text of the redacted value, capped so a batch body cannot bloat the log. */
export function redactedJson(value: unknown): string | null {
  if (value === undefined) return null;
  const text = JSON.stringify(redactValue(value));
  if (text.length <= MAX_STORED_CHARS) return text;
  return JSON.stringify({ truncated: true, originalChars: text.length, head: text.slice(0, MAX_STORED_CHARS / 2) });
}

/** Parses a body for redaction; non-JSON text is not stored verbatim (it may hold anything). */
export function redactedBodyText(raw: Buffer | string | null | undefined): string | null {
  if (raw === null || raw === undefined || raw.length === 0) return null;
  const text = typeof raw === "string" ? raw : raw.toString("utf8");
  try {
    return redactedJson(JSON.parse(text));
  } catch {
    return JSON.stringify({ unparsed: true, bytes: Buffer.byteLength(text) });
  }
}
