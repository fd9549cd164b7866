"use client";

import { Card } from "@/components/ui";
import { DetailList, DetailRow, IdRow, noValue } from "@/components/dashboard/detail-page";
import { REFUND_WINDOW_DAYS } from "@/lib/limits";
import { formatRupees } from "@/lib/money";
import { formatIst } from "../../logs/parts";
import { RefundSummaryBadge } from "../../refunds/parts";
import { PaymentStatusBadge, methodLabel } from "../parts";
import type { PaymentDetailData } from "./payment-detail-data";

type Payment = PaymentDetailData["payment"];

/** For a paid payment: how much has gone back to the customer and how much still can. */
function RefundFacts({ p }: { p: Payment }) {
  return (
    <>
      <DetailRow label="Refunded">
        <span className="inline-flex flex-wrap items-center gap-2">
          <span className="tabular-nums">{formatRupees(p.refundedPaise)}</span>
          <RefundSummaryBadge refundStatus={p.refundStatus} />
        </span>
      </DetailRow>
      <DetailRow label="Refundable">
        {p.refundablePaise > 0 ? (
          <>
            <span className="tabular-nums">{formatRupees(p.refundablePaise)}</span>
            {p.refundableUntil && <span className="text-slate-500"> until {formatIst(p.refundableUntil)} IST</span>}
          </>
        ) : (
          <span className="text-slate-500">
            {p.refundedPaise >= p.amountPaise ? "Nothing: refunded in full" : `Nothing: the ${REFUND_WINDOW_DAYS}-day refund window has closed`}
          </span>
        )}
      </DetailRow>
    </>
  );
}

/** The payment's Details card: ids, amount, customer, times. */
export function PaymentFacts({ p }: { p: Payment }) {
  const customer = [p.customer.name, p.customer.email, p.customer.phone].filter(Boolean);
  return (
    <Card title="Details">
      <DetailList labelWidth="9rem">
        <IdRow label="Payment id" id={p.id} />
        <DetailRow label="Order id">
          <code className="break-all font-mono text-[13px]">{p.orderId}</code>
        </DetailRow>
        <DetailRow label="Amount">
          <span className="tabular-nums">{formatRupees(p.amountPaise)}</span> <span className="text-slate-500">{p.currency}</span>
        </DetailRow>
        <DetailRow label="Status">
          <PaymentStatusBadge status={p.status} />
        </DetailRow>
        <DetailRow label="Method">{p.method ? methodLabel(p.method) : noValue}</DetailRow>
        <DetailRow label="Bank reference">{p.bankReference ? <code className="font-mono text-[13px]">{p.bankReference}</code> : noValue}</DetailRow>
        <DetailRow label="Description">{p.description ?? noValue}</DetailRow>
        <DetailRow label="Customer">
          {customer.length ? (
            <span className="flex flex-col">
              {customer.map((c) => (
                <span key={c}>{c}</span>
              ))}
            </span>
          ) : (
            noValue
          )}
        </DetailRow>
        <DetailRow label="Redirect URL">{p.redirectUrl ? <code className="break-all font-mono text-[13px]">{p.redirectUrl}</code> : noValue}</DetailRow>
        <DetailRow label="Created">{formatIst(p.createdAt)} IST</DetailRow>
        <DetailRow label={p.status === "EXPIRED" ? "Expired" : "Expires"}>{formatIst(p.expiresAt)} IST</DetailRow>
        <DetailRow label="Paid">{p.paidAt ? `${formatIst(p.paidAt)} IST` : noValue}</DetailRow>
        {p.status === "SUCCESS" && <RefundFacts p={p} />}
        <DetailRow label="Mode">
          <span className="capitalize">{p.mode}</span>
        </DetailRow>
      </DetailList>
    </Card>
  );
}
