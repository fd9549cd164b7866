"use client";

import { EmptyState, Table, Td, Th } from "@/components/ui";
import { formatRupees } from "@/lib/money";
import { CopyIconButton, formatIst } from "../../logs/parts";
import { RefundReason, RefundStatusBadge } from "../../refunds/parts";
import type { PaymentDetailData } from "./payment-detail-data";

type Refund = PaymentDetailData["refunds"][number];

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
  const status = (r: Refund) => <RefundStatusBadge status={r.status} />;
  return (
    <>
      <div className="hidden md:block">
        <Table
          caption="Refunds, newest first"
          head={
            <tr>
              <Th>Refund id</Th>
              <Th className="text-right">Amount</Th>
              <Th>Status</Th>
              <Th>Reason</Th>
              <Th>Created (IST)</Th>
            </tr>
          }
        >
          {d.refunds.map((r) => (
            <tr key={r.refundId} data-testid="refund-row">
              <Td>
                <span className="inline-flex items-center gap-1">
                  <code className="font-mono text-xs">{r.refundId}</code>
                  <CopyIconButton value={r.refundId} label={`Copy refund id ${r.refundId}`} />
                </span>
                {r.merchantRefundId && <span className="block font-mono text-[11px] text-slate-500">{r.merchantRefundId}</span>}
              </Td>
              <Td className="text-right font-medium tabular-nums text-slate-900">{formatRupees(r.amountPaise)}</Td>
              <Td>{status(r)}</Td>
              <Td className="whitespace-normal">
                <div className="min-w-[10rem] max-w-[15rem] whitespace-normal break-words text-sm">{reason(r)}</div>
              </Td>
              <Td>
                {formatIst(r.createdAt, true)}
                {r.processedAt && <span className="block text-xs text-slate-500">processed {formatIst(r.processedAt, true)}</span>}
              </Td>
            </tr>
          ))}
        </Table>
      </div>
      <ul className="-mx-4 divide-y divide-slate-100 md:hidden" aria-label="Refunds, newest first">
        {d.refunds.map((r) => (
          <li key={r.refundId} className="px-4 py-3" data-testid="refund-row">
            <div className="flex items-center justify-between gap-3">
              <span className="font-medium tabular-nums text-slate-900">{formatRupees(r.amountPaise)}</span>
              {status(r)}
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
