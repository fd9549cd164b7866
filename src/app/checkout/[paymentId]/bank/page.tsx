import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { MockBank } from "@/components/checkout/mock-bank";
import { CheckoutFrame } from "@/components/checkout/frame";
import { formatRupees } from "@/lib/money";
import { TrpcProviders } from "@/components/trpc/client";
import { issueCheckoutToken } from "@/server/services/payments/checkout-token";
import { checkoutState } from "@/server/services/payments/checkout-page";
import { getServices } from "@/server/services";
import { loadCheckoutPayment } from "../load";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: { absolute: "Sandbox bank · Parakh" }, robots: { index: false, follow: false } };

type Params = { params: Promise<{ paymentId: string }> };

/** Sandbox stand-in for a bank's netbanking page: the customer decides the outcome. */
export default async function MockBankPage({ params }: Params) {
  const data = await loadCheckoutPayment((await params).paymentId);
  if (!data) notFound();
  const { payment, merchant } = data;
  const state = await checkoutState(getServices().db, payment.id);
  // Live payments go to real banks: a link to this page leads to the bank's page of a pending attempt, else back to the checkout.
  if (payment.mode !== "sandbox")
    redirect(state.attempt?.action?.kind === "redirect" ? state.attempt.action.url : `/checkout/${encodeURIComponent(payment.id)}`);
  const token = issueCheckoutToken(payment.id, payment.expiresAt);
  return (
    <CheckoutFrame sandbox>
      <TrpcProviders>
        <MockBank
          paymentId={payment.id}
          token={token}
          state={state}
          merchantName={merchant.label}
          orderId={payment.orderId}
          amountLabel={formatRupees(payment.amountPaise)}
        />
      </TrpcProviders>
    </CheckoutFrame>
  );
}
