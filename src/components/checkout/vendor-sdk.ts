// The payment processor's JS checkout (Cashfree.js v3), loaded on a live checkout page only when the
// customer chooses to pay by card, never on a sandbox page. The page's CSP allows its origin there only.

export interface VendorCheckoutProps {
  /** Where the script is: Cashfree's SDK host, or the tests' fake vendor on loopback. */
  sdkUrl: string;
  mode: "sandbox" | "production";
}

interface CashfreeInstance {
  checkout(options: { paymentSessionId: string; redirectTarget?: "_self" | "_blank" | "_top" | "_modal" }): Promise<{ error?: { message?: string } }>;
}
type CashfreeFactory = (options: { mode: "sandbox" | "production" }) => CashfreeInstance;

let loading: Promise<CashfreeFactory> | null = null;

function loadScript(url: string): Promise<CashfreeFactory> {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url;
    script.async = true;
    script.onload = () => {
      const factory = (window as unknown as { Cashfree?: CashfreeFactory }).Cashfree;
      if (typeof factory === "function") resolve(factory);
      else reject(new Error("the card page's script did not load"));
    };
    script.onerror = () => reject(new Error("the card page's script did not load"));
    document.head.appendChild(script);
  });
}

/** The SDK, loaded once per page (a failed load may be tried again). */
export function loadVendorCheckout(vendor: VendorCheckoutProps): Promise<CashfreeInstance> {
  loading ??= loadScript(vendor.sdkUrl).catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading.then((Cashfree) => Cashfree({ mode: vendor.mode }));
}
