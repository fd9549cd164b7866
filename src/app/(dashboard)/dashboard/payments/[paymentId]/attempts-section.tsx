"use client";

import { EmptyState, ToneBadge, type Tone } from "@/components/ui";
import { DataTable } from "@/components/dashboard/list-rows";
import { noValue } from "@/components/dashboard/detail-page";
import { formatIst } from "../../logs/parts";
import { instrumentLabel, methodLabel } from "../parts";
import type { PaymentDetailData } from "./payment-detail-data";

const ATTEMPT_TONES: Record<string, Tone> = { SUCCESS: "green", FAILED: "red", PENDING: "blue", ABANDONED: "amber" };
const ATTEMPT_LABELS: Record<string, string> = { SUCCESS: "Succeeded", FAILED: "Failed", PENDING: "Pending", ABANDONED: "Abandoned" };

/** Each time the customer tried to pay, oldest first, with what went wrong. */
export function AttemptsSection({ d }: { d: PaymentDetailData }) {
  if (d.attempts.length === 0) {
    return <EmptyState title="No attempts yet">The customer has not started paying on the checkout page.</EmptyState>;
  }
  const status = (s: string) => <ToneBadge status={s} tones={ATTEMPT_TONES} labels={ATTEMPT_LABELS} />;
  // A late success that could not be the payment: its money went back in an automatic refund.
  const refundOf = new Map(d.refunds.filter((r) => r.attemptId).map((r) => [r.attemptId, r]));
  const returned = (id: string) => {
    const r = refundOf.get(id);
    return r ? (
      <span className="block max-w-[22rem] whitespace-normal text-xs text-slate-600">
        Succeeded late; refunded automatically (<code className="break-all font-mono">{r.refundId}</code>)
      </span>
    ) : null;
  };
  return (
    <>
      <div className="hidden md:block">
        <DataTable
          caption="Payment attempts, oldest first"
          columns={[
            { head: "#", className: "tabular-nums text-slate-500", cell: (a) => a.n },
            { head: "Started (IST)", cell: (a) => formatIst(a.createdAt, true) },
            { head: "Method", cell: (a) => methodLabel(a.method) },
            { head: "Paid with", cell: (a) => <span className="font-mono text-xs">{instrumentLabel(a)}</span> },
            { head: "Status", cell: (a) => status(a.status) },
            {
              head: "Error",
              className: "whitespace-normal",
              cell: (a) =>
                a.errorCode ? (
                  <div className="max-w-[22rem]">
                    <code className="font-mono text-xs text-slate-800">{a.errorCode}</code>
                    {a.errorMessage && <p className="text-xs text-slate-500">{a.errorMessage}</p>}
                  </div>
                ) : (
                  (returned(a.id) ?? noValue)
                ),
            },
          ]}
          rows={d.attempts.map((a, i) => ({ ...a, n: i + 1 }))}
          rowKey={(a) => a.id}
        />
      </div>
      <ol className="-mx-4 divide-y divide-slate-100 md:hidden" aria-label="Payment attempts, oldest first">
        {d.attempts.map((a, i) => (
          <li key={a.id} className="px-4 py-3">
            <div className="flex items-center justify-between gap-3">
              <span className="text-sm font-medium text-slate-900">
                {i + 1}. {methodLabel(a.method)}
              </span>
              {status(a.status)}
            </div>
            <p className="mt-0.5 font-mono text-xs text-slate-700">{instrumentLabel(a)}</p>
            <p className="mt-0.5 text-xs text-slate-500">{formatIst(a.createdAt, true)}</p>
            {a.errorCode && (
              <p className="mt-1 text-xs text-slate-600">
                <code className="font-mono">{a.errorCode}</code>
                {a.errorMessage && ` · ${a.errorMessage}`}
              </p>
            )}
            {!a.errorCode && refundOf.has(a.id) && <p className="mt-1">{returned(a.id)}</p>}
          </li>
        ))}
      </ol>
    </>
  );
}
