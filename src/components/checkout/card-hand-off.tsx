"use client";

import { useState } from "react";
import { loadVendorCheckout, type VendorCheckoutProps } from "@/components/checkout/vendor-sdk";
import { Button, Notice } from "@/components/ui";

/**
 * Live cards: the customer types the card on the payment processor's own secure page, never here.
 * The script is loaded first (so a blocked script starts no attempt), then the attempt is made and
 * the processor's page opens in this tab; it sends the customer back here when they are done.
 */
export function CardHandOff({
  amountLabel,
  vendor,
  busy,
  onHandOff,
}: {
  amountLabel: string;
  vendor: VendorCheckoutProps | null;
  busy: boolean;
  onHandOff: () => Promise<{ ok: true; sessionId: string } | { ok: false; message: string }>;
}) {
  const [error, setError] = useState<string | null>(null);
  const [going, setGoing] = useState(false);

  async function go() {
    if (!vendor) return setError("Card payments are not available right now. Please pay by UPI or netbanking.");
    setError(null);
    setGoing(true);
    try {
      const cashfree = await loadVendorCheckout(vendor);
      const res = await onHandOff();
      if (!res.ok) return setError(res.message);
      const answer = await cashfree.checkout({ paymentSessionId: res.sessionId, redirectTarget: "_self" });
      if (answer?.error) setError(answer.error.message ?? "The card page could not be opened.");
    } catch {
      setError("We couldn't open Cashfree's card page. Check your connection and try again, or pay by UPI or netbanking.");
    } finally {
      setGoing(false);
    }
  }

  return (
    <div className="space-y-4">
      {error && <Notice tone="error">{error}</Notice>}
      <div className="rounded-lg border border-slate-200 p-4">
        <p className="text-sm font-medium text-slate-900">Pay by debit or credit card on Cashfree&apos;s secure page</p>
        <p className="mt-1 text-sm text-slate-600">
          Cashfree Payments is our payment partner. You&apos;ll enter your card details and the OTP from your bank on their page, not on this one, and come back
          here when it&apos;s done.
        </p>
      </div>
      <Button type="button" className="w-full py-2.5" onClick={() => void go()} loading={going} disabled={busy || going}>
        Continue to card payment of {amountLabel}
      </Button>
    </div>
  );
}

/** A live card attempt while it waits: the customer is on (or coming back from) the processor's card page. */
export function WaitingForCardPage({ amountLabel, headingRef }: { amountLabel: string; headingRef: React.Ref<HTMLHeadingElement> }) {
  return (
    <>
      {/* Focused by script after a state change, like every outcome heading. */}
      <h1 ref={headingRef} tabIndex={-1} style={{ outline: "none" }} className="mt-4 text-lg font-semibold text-slate-900">
        Waiting for your card payment
      </h1>
      <p className="mt-2 text-sm text-slate-600">
        Finish the payment of {amountLabel} on Cashfree&apos;s secure page. If you closed it, use another method below: you won&apos;t be charged twice.
      </p>
    </>
  );
}
