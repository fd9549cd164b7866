import { describe, expect, it } from "vitest";
import { redactedBodyText, redactValue } from "@/server/services/audit/redact";

/**
 * Every key name the audit log must redact (secrets, OTPs, Aadhaar numbers, photos, addresses,
 * card numbers and CVVs), pinned one by one: dropping any of them from the redaction list fails
 * its own row. Adding keys to the list is fine; removing one needs this table changed too.
 */
const MUST_REDACT = [
  // credentials and tokens
  "secret",
  "secretKey",
  "apiSecret",
  "x-secret-key",
  "x-api-secret",
  "signingSecret",
  "password",
  "token",
  "accessToken",
  "refreshToken",
  "checkoutToken",
  "authorization",
  // one-time codes
  "otp",
  "totp",
  "recoveryCode",
  "pin",
  // Aadhaar and its virtual ids
  "aadhaar",
  "aadhaarNumber",
  "aadhaarNo",
  "uid",
  "vid",
  // photos
  "photo",
  "image",
  // addresses
  "address",
  "fullAddress",
  "careOf",
  "house",
  "street",
  "landmark",
  // cards
  "cardNumber",
  "number",
  "cvv",
  "cvc",
  "expiry",
] as const;

// Values that look like nothing in particular: only the key name can get them redacted (values that
// look like card or Aadhaar numbers are also caught by value, which must not hide a dropped key).
const SENSITIVE = "plain-sensitive-value";

/** The same key as different clients spell it: the match is on the letters and digits only. */
function spellings(key: string): string[] {
  const words = key
    .replace(/[-_]/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(" ")
    .filter(Boolean);
  return [...new Set([key, words.join("_"), words.join("-"), words.join("_").toUpperCase()])];
}

describe("every redacted key", () => {
  it.each(MUST_REDACT)("%s is redacted in every spelling, at the top level and nested", (key) => {
    for (const k of spellings(key)) {
      expect(redactValue({ [k]: SENSITIVE }), k).toEqual({ [k]: "[REDACTED]" });
      const nested = { data: { items: [{ card: { [k]: SENSITIVE } }] } };
      expect(redactValue(nested), k).toEqual({ data: { items: [{ card: { [k]: "[REDACTED]" } }] } });
    }
  });

  it.each(MUST_REDACT)("%s never reaches the stored body text, whatever its value's type", (key) => {
    for (const value of [SENSITIVE, 737, { inner: SENSITIVE }, [SENSITIVE]]) {
      const stored = redactedBodyText(JSON.stringify({ keep: "visible", [key]: value }));
      expect(JSON.parse(stored!)).toEqual({ keep: "visible", [key]: "[REDACTED]" });
      expect(stored).not.toContain(SENSITIVE);
    }
  });

  it("redacts a whole card object's number, CVC and expiry together", () => {
    // A short number, so only the key names (not the card-number scan) can redact it.
    const card = { method: "CARD", card: { number: "4111 1111", cvc: "123", cvv: "123", expiry: "12/35", network: "VISA", last4: "1111" } };
    expect(redactValue(card)).toEqual({
      method: "CARD",
      card: { number: "[REDACTED]", cvc: "[REDACTED]", cvv: "[REDACTED]", expiry: "[REDACTED]", network: "VISA", last4: "1111" },
    });
  });
});
