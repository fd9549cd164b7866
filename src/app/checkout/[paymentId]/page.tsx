import type { Metadata } from "next";
import { notFound } from "next/navigation";
import QRCode from "qrcode";
import { CheckoutApp } from "@/components/checkout/checkout-app";
import { CheckoutFrame } from "@/components/checkout/frame";
import { SANDBOX_UPI_PAYEE, upiIntentUrl } from "@/components/checkout/upi";
import { formatPaise, formatRupees } from "@/lib/money";
import { TrpcProviders } from "@/components/trpc/client";
import { LIVE_NETBANKING_BANKS } from "@/server/providers/payments/cashfree";
import { SANDBOX_BANKS } from "@/server/providers/payments/sandbox";
import { issueCheckoutToken } from "@/server/services/payments/checkout-token";
import { checkoutState } from "@/server/services/payments/checkout-page";
import { getServices } from "@/server/services";
import { vendorCheckoutFor } from "@/server/providers/payments/cashfree-checkout";
import { checkCardHandOff } from "@/server/services/payments/card-hand-off";
import { loadCheckoutPayment } from "./load";

// Every visit shows the payment as it is now, with a token issued for this render.
export const dynamic = "force-dynamic";

type Params = { params: Promise<{ paymentId: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const data = await loadCheckoutPayment((await params).paymentId);
  const robots = { index: false, follow: false };
  if (!data) return { title: "Payment not found", robots };
  return { title: { absolute: `Pay ${formatRupees(data.payment.amountPaise)} to ${data.merchant.label}` }, robots };
}

export default async function CheckoutPage({ params }: Params) {
  const data = await loadCheckoutPayment((await params).paymentId);
  if (!data) notFound();
  const { payment, merchant } = data;
  const token = issueCheckoutToken(payment.id, payment.expiresAt);
  const services = getServices();
  const live = payment.mode === "live" && services.config.livePayments.provider === "cashfree" ? services.config.livePayments.cashfree : null;
  // Back from the processor's card page: its word on the order shows at once, before any webhook.
  if (live) await checkCardHandOff(services.db, services.paymentProcessors, payment.id, { leaveUnpaid: true });
  // The same answer the page's polling gets, so the first paint already shows the right state.
  const initialState = await checkoutState(services.db, payment.id);
  const vendor = live ? vendorCheckoutFor(live.baseUrl) : null;
  const upiIntent = upiIntentUrl({
    payee: SANDBOX_UPI_PAYEE,
    payeeName: merchant.label,
    amount: formatPaise(payment.amountPaise),
    orderId: payment.orderId,
    paymentId: payment.id,
  });
  const qrSvg = await QRCode.toString(upiIntent, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
  const amountLabel = formatRupees(payment.amountPaise);
  return (
    <CheckoutFrame sandbox={payment.mode === "sandbox"} supportEmail={merchant.supportEmail} brandColor={merchant.brandColor}>
      <div className="overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm">
        <TrpcProviders>
          <CheckoutApp
            paymentId={payment.id}
            token={token}
            mode={payment.mode === "live" ? "live" : "sandbox"}
            merchant={{ name: merchant.label, logoUrl: merchant.logoUrl, brandColor: merchant.brandColor }}
            orderId={payment.orderId}
            description={payment.description}
            amountLabel={amountLabel}
            // A live page's UPI link and QR are the processor's, per attempt; Parakh's own are for the sandbox only.
            upiIntent={payment.mode === "live" ? `/checkout/${encodeURIComponent(payment.id)}` : upiIntent}
            upiQr={`data:image/svg+xml;base64,${Buffer.from(qrSvg).toString("base64")}`}
            // A live page lists only the banks whose processor codes are confirmed.
            banks={payment.mode === "live" ? [...LIVE_NETBANKING_BANKS] : [...SANDBOX_BANKS]}
            vendorCheckout={vendor && { sdkUrl: vendor.sdkUrl, mode: vendor.mode }}
            initialState={initialState}
            renderedAt={Date.now()}
          />
        </TrpcProviders>
      </div>
    </CheckoutFrame>
  );
}
