/**
 * Where a live checkout page gets the vendor's JS checkout, and which vendor origins that page's
 * Content-Security-Policy must allow, derived from CASHFREE_PG_BASE_URL alone:
 *
 *   PG base URL host          SDK mode     SDK script
 *   sandbox.cashfree.com      sandbox      https://sdk.cashfree.com/js/v3/cashfree.js
 *   any other https host      production   https://sdk.cashfree.com/js/v3/cashfree.js (api.cashfree.com is the real one)
 *   http on a loopback host   sandbox      {that origin}/js/v3/cashfree.js (the tests' fake vendor)
 *
 * The SDK sends the customer to the vendor's hosted page on the PG host's origin, so that origin is
 * the one the page may submit a form to and talk to; the SDK's origin is the one it may load a script from.
 */

export const CASHFREE_SDK_URL = "https://sdk.cashfree.com/js/v3/cashfree.js";

export interface VendorCheckout {
  /** The script to load, then `Cashfree({ mode })`. */
  sdkUrl: string;
  mode: "sandbox" | "production";
  /** The CSP additions of a live checkout page. */
  scriptOrigin: string;
  checkoutOrigin: string;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

export function vendorCheckoutFor(pgBaseUrl: string): VendorCheckout {
  const base = new URL(pgBaseUrl);
  if (base.protocol === "http:") {
    // Settings refuse plain http except on loopback; refuse here too rather than load a script over http from elsewhere.
    if (!isLoopback(base.hostname)) throw new Error("CASHFREE_PG_BASE_URL: plain http only for a loopback address");
    return { sdkUrl: `${base.origin}/js/v3/cashfree.js`, mode: "sandbox", scriptOrigin: base.origin, checkoutOrigin: base.origin };
  }
  return {
    sdkUrl: CASHFREE_SDK_URL,
    mode: base.hostname === "sandbox.cashfree.com" ? "sandbox" : "production",
    scriptOrigin: new URL(CASHFREE_SDK_URL).origin,
    checkoutOrigin: base.origin,
  };
}

/**
 * The vendor checkout a page's CSP opens: only a live payment's hosted page (`page.live`), and only
 * while Cashfree is the live processor. Sandbox checkout pages and every other page get none.
 */
export function vendorCheckoutForPage(
  page: { live: boolean } | null,
  livePayments: { provider: string; cashfree: { baseUrl: string } },
): VendorCheckout | undefined {
  if (!page?.live || livePayments.provider !== "cashfree") return undefined;
  return vendorCheckoutFor(livePayments.cashfree.baseUrl);
}
