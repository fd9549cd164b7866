import type { inferRouterOutputs } from "@trpc/server";
import type { DashboardRouter } from "@/server/api/dashboard/router";

/** What `checkout.state` (and every checkout action) answers. */
export type CheckoutState = inferRouterOutputs<DashboardRouter>["checkout"]["state"];

export interface CheckoutMerchant {
  name: string;
  logoUrl: string | null;
  brandColor: string | null;
}

/** Everything the server page hands the client island; no secrets beyond the page's own token. */
export interface CheckoutAppProps {
  paymentId: string;
  token: string;
  mode: "sandbox" | "live";
  merchant: CheckoutMerchant;
  orderId: string;
  description: string | null;
  /** "₹499.00" */
  amountLabel: string;
  upiIntent: string;
  /** An SVG data URL of the QR code for `upiIntent`, drawn on the server. */
  upiQr: string;
  banks: string[];
  /** Live pages with a processor: its JS checkout, for cards. Null on sandbox pages. */
  vendorCheckout: import("@/components/checkout/vendor-sdk").VendorCheckoutProps | null;
  initialState: CheckoutState;
  /** Server clock at render time (ms), so the first client render matches the server's HTML. */
  renderedAt: number;
}

export type PayPayload = import("@/lib/schemas/checkout").PayInput;

/** How a checkout action ended, for the form that started it to show. */
export type ActionResult = { ok: true; state: CheckoutState } | { ok: false; message: string; fieldErrors: Record<string, string>; appCode?: string };
