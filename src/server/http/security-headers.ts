import crypto from "node:crypto";

/** Headers every response carries, API and pages alike. */
export function baseSecurityHeaders(httpsOrigin: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
  };
  // Only when the public origin is https: a browser that saw HSTS over plain http would lock itself out.
  if (httpsOrigin) headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains";
  return headers;
}

/** JSON and static answers: nothing to run, nothing to frame. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

export function newNonce(): string {
  return crypto.randomBytes(16).toString("base64");
}

export interface PageSecurityOptions {
  nonce: string;
  dev: boolean;
  /** Origins allowed to frame the page; empty = nobody. */
  frameAncestors: readonly string[];
  /**
   * Live checkout pages only: the payment processor's JS checkout (its script's origin) and the
   * origin of its hosted card page, which the script talks to and sends the customer to.
   */
  vendorCheckout?: { scriptOrigin: string; checkoutOrigin: string };
}

/**
 * Content-Security-Policy of the pages. Scripts run only with this response's nonce (Next puts it
 * on its own scripts) or when loaded by such a script ('strict-dynamic'); styles may be inline
 * (React style attributes); images may be data: URLs (QR codes) or https (merchant logos). A live
 * checkout page also allows the payment processor's JS checkout and its card page, and no other page does.
 */
export function pageSecurityHeaders(opts: PageSecurityOptions): Record<string, string> {
  const vendor = opts.vendorCheckout;
  // With 'strict-dynamic' a browser that knows it ignores host sources; the vendor's origin is for those that do not.
  const script = ["'self'", `'nonce-${opts.nonce}'`, "'strict-dynamic'", ...(vendor ? [vendor.scriptOrigin] : []), ...(opts.dev ? ["'unsafe-eval'"] : [])];
  const connect = ["'self'", ...(vendor ? [vendor.checkoutOrigin] : []), ...(opts.dev ? ["ws:", "wss:"] : [])];
  const formAction = ["'self'", ...(vendor ? [vendor.checkoutOrigin] : [])];
  const frame = opts.frameAncestors.length ? opts.frameAncestors.join(" ") : "'none'";
  const csp = [
    "default-src 'self'",
    `script-src ${script.join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    `connect-src ${connect.join(" ")}`,
    "object-src 'none'",
    "base-uri 'self'",
    `form-action ${formAction.join(" ")}`,
    `frame-ancestors ${frame}`,
  ].join("; ");
  const headers: Record<string, string> = {
    "Content-Security-Policy": csp,
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
  };
  // Older browsers know only X-Frame-Options, which cannot list origins: deny unless some are allowed.
  if (!opts.frameAncestors.length) headers["X-Frame-Options"] = "DENY";
  return headers;
}

/** The payment id of a hosted checkout path (`/checkout/<id>` and its sub-pages), if any. */
export function checkoutPaymentIdOf(pathname: string): string | null {
  // Dot segments (in any encoding) could lead from a checkout path to another page: no framing then.
  if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(pathname)) return null;
  const m = /^\/checkout\/(pay_[A-Za-z0-9_]{1,80})(?:\/|$)/.exec(pathname);
  return m ? m[1]! : null;
}
