"use client";

import { WARN_BELOW_MS } from "@/components/checkout/checkout-state";
import { formatRemaining } from "@/components/checkout/parts";
import { cx } from "@/components/ui";

/** The order id and description under the amount, and the time left to pay while paying is possible. */
export function OrderSummary({
  orderId,
  description,
  showTimer,
  msLeft,
  expiresAt,
}: {
  orderId: string;
  description: string | null;
  showTimer: boolean;
  msLeft: number;
  expiresAt: string;
}) {
  return (
    <dl className="flex flex-wrap items-start justify-between gap-x-6 gap-y-2 border-b border-slate-100 px-5 py-3 text-sm sm:px-6">
      <div className="min-w-0">
        <dt className="sr-only">Order</dt>
        <dd className="font-mono text-xs text-slate-500">{orderId}</dd>
        {description && (
          <>
            <dt className="sr-only">Description</dt>
            <dd className="mt-0.5 text-slate-800">{description}</dd>
          </>
        )}
      </div>
      {showTimer && (
        <div>
          <dt className="sr-only">Time left to pay</dt>
          <dd
            className={cx(
              "inline-flex items-center gap-1.5 rounded-full px-2.5 py-1 text-xs font-medium tabular-nums",
              msLeft <= 0 ? "bg-slate-100 text-slate-600" : msLeft < WARN_BELOW_MS ? "bg-amber-100 text-amber-900" : "bg-slate-100 text-slate-700",
            )}
          >
            <ClockIcon />
            {msLeft > 0 ? (
              <span>
                Expires in <time dateTime={expiresAt}>{formatRemaining(msLeft)}</time>
              </span>
            ) : (
              <span>Time is up</span>
            )}
          </dd>
        </div>
      )}
    </dl>
  );
}

function ClockIcon() {
  return (
    <svg aria-hidden="true" viewBox="0 0 20 20" className="h-3.5 w-3.5" fill="none" stroke="currentColor" strokeWidth="2">
      <circle cx="10" cy="10" r="7.5" />
      <path d="M10 6v4l2.5 2" strokeLinecap="round" />
    </svg>
  );
}
