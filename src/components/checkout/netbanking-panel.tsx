"use client";

import { useState } from "react";
import type { ActionResult, PayPayload } from "@/components/checkout/types";
import { bankShortName } from "@/components/checkout/bank-names";
import { Button, Notice, cx } from "@/components/ui";

/** Pick a bank, then continue to its (sandbox: mock) page to approve the payment. */
export function NetbankingPanel({
  banks,
  initialBank,
  sandbox,
  busy,
  onPay,
}: {
  banks: string[];
  /** The bank of the attempt that just failed, so "Try again" does not make the customer choose it again. */
  initialBank: string | null;
  sandbox: boolean;
  busy: boolean;
  onPay: (payment: PayPayload) => Promise<ActionResult>;
}) {
  const [bank, setBank] = useState<string | null>(() => (initialBank && banks.includes(initialBank) ? initialBank : null));
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!bank) return setError("Choose your bank to continue.");
    setError(null);
    setSubmitting(true);
    const res = await onPay({ method: "NETBANKING", bank });
    setSubmitting(false);
    if (!res.ok) setError(res.fieldErrors["payment.bank"] ?? res.fieldErrors.bank ?? res.message);
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      {error && <Notice tone="error">{error}</Notice>}
      <fieldset>
        <legend className="text-sm font-medium text-slate-700">Choose your bank</legend>
        <div className="mt-2 grid grid-cols-1 gap-2 sm:grid-cols-2">
          {banks.map((b) => (
            <label
              key={b}
              className={cx(
                "flex cursor-pointer items-center gap-3 rounded-lg border px-3 py-2 text-sm transition-colors has-focus-visible:ring-2 has-focus-visible:ring-brand-500",
                bank === b ? "border-brand-600 bg-brand-50 font-medium text-slate-900" : "border-slate-200 text-slate-700 hover:border-slate-300",
              )}
            >
              <input
                type="radio"
                name="checkout-bank"
                value={b}
                checked={bank === b}
                onChange={() => {
                  setBank(b);
                  setError(null);
                }}
                className="sr-only"
              />
              <span
                aria-hidden="true"
                data-bank-badge
                className="flex h-8 w-14 shrink-0 items-center justify-center overflow-hidden rounded-md bg-slate-100 px-1 text-[11px] font-semibold tracking-tight text-slate-600"
              >
                {bankShortName(b)}
              </span>
              <span className="min-w-0 flex-1">{b}</span>
              {bank === b && (
                <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4 text-brand-600" fill="currentColor">
                  <path
                    fillRule="evenodd"
                    d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.6l7.3-7.3a1 1 0 0 1 1.4 0Z"
                    clipRule="evenodd"
                  />
                </svg>
              )}
            </label>
          ))}
        </div>
      </fieldset>
      {sandbox && <p className="text-xs text-slate-500">Sandbox: you&apos;ll see a test bank page where you choose Success or Failure.</p>}
      <Button type="submit" className="w-full py-3" loading={submitting} disabled={busy}>
        {bank ? `Continue to ${bank}` : "Continue to your bank"}
      </Button>
    </form>
  );
}
