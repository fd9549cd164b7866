import type { Metadata } from "next";
import { CheckoutFrame } from "@/components/checkout/frame";

export const metadata: Metadata = { title: "Payment not found", robots: { index: false, follow: false } };

/** An unknown payment id (HTTP 404): say what happened and where to go, without guessing at the merchant. */
export default function CheckoutNotFound() {
  return (
    <CheckoutFrame sandbox={false}>
      <div className="rounded-xl border border-slate-200 bg-white px-6 py-10 text-center shadow-sm">
        <span aria-hidden="true" className="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-slate-100 text-2xl text-slate-500">
          ?
        </span>
        <h1 className="mt-4 text-lg font-semibold text-slate-900">We couldn&apos;t find this payment</h1>
        <p className="mt-2 text-sm text-slate-600">
          The payment link may be mistyped or incomplete. Go back to the shop or app you were paying and start the payment again; you have not been charged.
        </p>
      </div>
    </CheckoutFrame>
  );
}
