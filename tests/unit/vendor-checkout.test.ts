import { describe, expect, it } from "vitest";
import { pageSecurityHeaders } from "@/server/http/security-headers";
import { vendorCheckoutFor, vendorCheckoutForPage } from "@/server/providers/payments/cashfree-checkout";

// The SDK address and the modes are the vendor's documented ones (Cashfree.js v3: a script from
// sdk.cashfree.com, then Cashfree({ mode: "sandbox" | "production" })), written out here by hand.
describe("where a live checkout page gets the processor's JS checkout", () => {
  it("uses the vendor's SDK host for its production and test hosts, in the matching mode", () => {
    expect(vendorCheckoutFor("https://api.cashfree.com/pg")).toEqual({
      sdkUrl: "https://sdk.cashfree.com/js/v3/cashfree.js",
      mode: "production",
      scriptOrigin: "https://sdk.cashfree.com",
      checkoutOrigin: "https://api.cashfree.com",
    });
    expect(vendorCheckoutFor("https://sandbox.cashfree.com/pg")).toEqual({
      sdkUrl: "https://sdk.cashfree.com/js/v3/cashfree.js",
      mode: "sandbox",
      scriptOrigin: "https://sdk.cashfree.com",
      checkoutOrigin: "https://sandbox.cashfree.com",
    });
  });

  it("takes the script from a loopback fake vendor in tests, and refuses plain http anywhere else", () => {
    expect(vendorCheckoutFor("http://127.0.0.1:41234/pg")).toEqual({
      sdkUrl: "http://127.0.0.1:41234/js/v3/cashfree.js",
      mode: "sandbox",
      scriptOrigin: "http://127.0.0.1:41234",
      checkoutOrigin: "http://127.0.0.1:41234",
    });
    expect(vendorCheckoutFor("http://localhost:9000/pg").sdkUrl).toBe("http://localhost:9000/js/v3/cashfree.js");
    expect(() => vendorCheckoutFor("http://pg.example.com/pg")).toThrow(/loopback/);
  });
});

describe("which pages open their CSP to the processor's checkout", () => {
  const cashfree = { provider: "cashfree", cashfree: { baseUrl: "https://api.cashfree.com/pg" } };

  it("a live payment's checkout page, with Cashfree as the live processor", () => {
    expect(vendorCheckoutForPage({ live: true }, cashfree)).toMatchObject({
      scriptOrigin: "https://sdk.cashfree.com",
      checkoutOrigin: "https://api.cashfree.com",
    });
  });

  it("never a sandbox checkout page, another page, or a live page without a processor", () => {
    expect(vendorCheckoutForPage({ live: false }, cashfree)).toBeUndefined();
    expect(vendorCheckoutForPage(null, cashfree)).toBeUndefined();
    expect(vendorCheckoutForPage({ live: true }, { ...cashfree, provider: "none" })).toBeUndefined();
  });
});

function directives(csp: string): Record<string, string[]> {
  return Object.fromEntries(
    csp.split(";").map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values];
    }),
  );
}

describe("the checkout page's Content-Security-Policy", () => {
  const base = { nonce: "bm9uY2U=", dev: false, frameAncestors: [] as string[] };

  it("keeps a page without the processor's checkout (sandbox, dashboard) as strict as before", () => {
    const csp = directives(pageSecurityHeaders(base)["Content-Security-Policy"]!);
    expect(csp["script-src"]).toEqual(["'self'", "'nonce-bm9uY2U='", "'strict-dynamic'"]);
    expect(csp["connect-src"]).toEqual(["'self'"]);
    expect(csp["form-action"]).toEqual(["'self'"]);
    expect(csp["frame-ancestors"]).toEqual(["'none'"]);
    expect(JSON.stringify(csp)).not.toMatch(/cashfree/);
  });

  it("allows on a live page exactly the SDK's origin for scripts and the vendor's checkout host for forms and calls", () => {
    const vendorCheckout = vendorCheckoutFor("https://api.cashfree.com/pg");
    const csp = directives(pageSecurityHeaders({ ...base, vendorCheckout })["Content-Security-Policy"]!);
    expect(csp["script-src"]).toEqual(["'self'", "'nonce-bm9uY2U='", "'strict-dynamic'", "https://sdk.cashfree.com"]);
    expect(csp["connect-src"]).toEqual(["'self'", "https://api.cashfree.com"]);
    expect(csp["form-action"]).toEqual(["'self'", "https://api.cashfree.com"]);
    // Nothing else opens up: no frames, objects or other hosts.
    expect(csp["default-src"]).toEqual(["'self'"]);
    expect(csp["object-src"]).toEqual(["'none'"]);
    expect(csp["frame-ancestors"]).toEqual(["'none'"]);
    expect(csp["frame-src"]).toBeUndefined();
  });
});
