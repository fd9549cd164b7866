"use client";

import { DataTable, type Column } from "@/components/dashboard/list-rows";
import { EmptyState } from "@/components/ui";
import { formatRupees } from "@/lib/money";
import { CopyIconButton, formatIst } from "../../logs/parts";
import { RefundReason, RefundStatusBadge } from "../../refunds/parts";
import type { PaymentDetailData } from "./payment-detail-data";

type Refund = PaymentDetailData["refunds"][number];

/** The wide table's columns; `reason` names the attempt an automatic refund returned. */
const columns = (reason: (r: Refund) => React.ReactNode): Column<Refund>[] => [
  {
    head: "Refund id",
    cell: (r) => (
      <>
        <span className="inline-flex items-center gap-1">
          <code className="font-mono text-xs">{r.refundId}</code>
          <CopyIconButton value={r.refundId} label={`Copy refund id ${r.refundId}`} />
        </span>
        {r.merchantRefundId && <span className="block font-mono text-[11px] text-slate-500">{r.merchantRefundId}</span>}
      </>
    ),
  },
  { head: "Amount", className: "text-right font-medium tabular-nums text-slate-900", cell: (r) => formatRupees(r.amountPaise) },
  { head: "Status", cell: (r) => <RefundStatusBadge status={r.status} /> },
  {
    head: "Reason",
    className: "whitespace-normal",
    cell: (r) => <div className="min-w-[10rem] max-w-[15rem] whitespace-normal break-words text-sm">{reason(r)}</div>,
  },
  {
    head: "Created (IST)",
    cell: (r) => (
      <>
        {formatIst(r.createdAt, true)}
        {r.processedAt && <span className="block text-xs text-slate-500">processed {formatIst(r.processedAt, true)}</span>}
      </>
    ),
  },
];

/** The payment's refunds, newest first, with what is refunded and what is left. */
export function RefundsSection({ d }: { d: PaymentDetailData }) {
  const attemptNo = new Map(d.attempts.map((a, i) => [a.id, i + 1]));
  if (d.refunds.length === 0) {
    return (
      <EmptyState title="No refunds">
        {d.payment.refundablePaise > 0
          ? "Use Refund at the top of the page to return all or part of this payment to the customer."
          : d.payment.status === "SUCCESS"
            ? "This payment can no longer be refunded."
            : "Only a successful payment can be refunded."}
      </EmptyState>
    );
  }
  const reason = (r: Refund) => <RefundReason r={r} attemptNo={r.attemptId ? attemptNo.get(r.attemptId) : undefined} />;
  return (
    <>
      <div className="hidden md:block">
        <DataTable caption="Refunds, newest first" columns={columns(reason)} rows={d.refunds} rowKey={(r) => r.refundId} testId="refund-row" />
      </div>
      <ul className="-mx-4 divide-y divide-slate-100 md:hidden" aria-label="Refunds, newest first">
        {d.refunds.map((r) => (
          <li key={r.refundId} className="px-4 py-3" data-testid="refund-row">
            <div className="flex items-center justify-between gap-3">
              <span className="font-medium tabular-nums text-slate-900">{formatRupees(r.amountPaise)}</span>
              <RefundStatusBadge status={r.status} />
            </div>
            <div className="mt-1 text-sm">{reason(r)}</div>
            <p className="mt-0.5 text-xs text-slate-500">
              {formatIst(r.createdAt, true)}
              {r.processedAt && ` · processed ${formatIst(r.processedAt, true)}`}
            </p>
            <p className="mt-0.5 break-all font-mono text-[11px] text-slate-400">{r.refundId}</p>
          </li>
        ))}
      </ul>
    </>
  );
}
