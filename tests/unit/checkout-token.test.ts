import crypto from "node:crypto";
import { describe, expect, it } from "vitest";

process.env.HASH_KEY = crypto.randomBytes(32).toString("base64");
process.env.ENCRYPTION_KEY = crypto.randomBytes(32).toString("base64");
process.env.NEXTAUTH_SECRET = crypto.randomBytes(32).toString("base64url");
const { issueCheckoutToken, verifyCheckoutToken } = await import("@/server/services/payments/checkout-token");

describe("checkout token", () => {
  const paymentId = "pay_1763806530123_Xk2P9aQm4TzB7c";
  const expires = new Date(Date.now() + 30 * 60_000);
  const token = issueCheckoutToken(paymentId, expires);

  it("verifies for its payment only", () => {
    expect(verifyCheckoutToken(paymentId, token)).toBe(true);
    expect(verifyCheckoutToken("pay_1763806530123_Other000000000", token)).toBe(false);
  });

  it.each([
    ["an extra segment", (t: string) => `${t}.junk`],
    ["an empty extra segment", (t: string) => `${t}.`],
    ["a leading space", (t: string) => ` ${t}`],
    ["a trailing newline", (t: string) => `${t}\n`],
    ["another version", (t: string) => t.replace(/^ct1/, "ct2")],
    ["an upper-cased expiry", (t: string) => t.replace(/^ct1\.([0-9a-z]+)/, (_m, e: string) => `ct1.${e.toUpperCase()}`)],
    ["a padded signature", (t: string) => `${t}=`],
    ["a truncated signature", (t: string) => t.slice(0, -1)],
  ])("refuses a token with %s", (_what, mutate) => {
    const forged = mutate(token);
    expect(forged).not.toBe(token);
    expect(verifyCheckoutToken(paymentId, forged)).toBe(false);
  });

  it("refuses an expired token when asked to", () => {
    const old = issueCheckoutToken(paymentId, new Date(Date.now() - 1000));
    expect(verifyCheckoutToken(paymentId, old)).toBe(true);
    expect(verifyCheckoutToken(paymentId, old, { requireUnexpired: true })).toBe(false);
  });
});
