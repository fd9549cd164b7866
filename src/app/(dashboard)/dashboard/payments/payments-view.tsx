"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ApiDocsLink, ListPage, nextPage, useUrlFilters, withUrlFilters, type FilterSpec, type RowsSpec } from "@/components/dashboard/list-page";
import { anyOr } from "@/components/dashboard/filter-fields";
import { PhoneCard, type Column } from "@/components/dashboard/list-rows";
import { MiddleTruncate } from "@/components/ui";
import { IstStamp } from "@/components/dashboard/ist-stamp";
import { formatRupees } from "@/lib/money";
import {
  PAYMENT_STATUSES,
  PAYMENT_STATUS_LABELS,
  paymentFiltersFromQuery,
  paymentFiltersSchema,
  paymentFiltersToQuery,
  type PaymentFilters,
} from "@/lib/schemas/payments";
import { useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { CopyIconButton, formatIst } from "../logs/parts";
import { RefundSummaryBadge } from "../refunds/parts";
import { PaymentStatusBadge, methodLabel } from "./parts";

const FILTERS: FilterSpec<PaymentFilters> = {
  id: "payment-filters",
  label: "Filter payments",
  hint: "The order id must match exactly. Dates are whole IST days.",
  columns: "lg:grid-cols-[minmax(0,1.2fr)_minmax(0,2fr)_minmax(0,1.2fr)_minmax(0,1.2fr)]",
  fields: [
    { select: "status", label: "Status", options: anyOr("Any status", PAYMENT_STATUSES, PAYMENT_STATUS_LABELS) },
    { text: "orderId", label: "Order id", placeholder: "ORDER_123", autoComplete: "off" },
    "dates",
  ],
  schema: paymentFiltersSchema,
};

type PaymentItem = RouterOutputs["payments"]["list"]["items"][number];

const detailHref = (p: PaymentItem) => `/dashboard/payments/${encodeURIComponent(p.id)}`;
const paymentKey = (p: PaymentItem) => p.id;

const COLUMNS: Column<PaymentItem>[] = [
  { head: "Created (IST)", cell: (p) => <IstStamp at={p.createdAt} /> },
  {
    head: "Order id",
    cell: (p) => (
      <>
        <Link
          href={detailHref(p)}
          className="block max-w-[12rem] truncate font-mono text-xs text-slate-900 hover:text-brand-700 hover:underline"
          title={p.orderId}
        >
          {p.orderId}
        </Link>
        {p.customerName && (
          <div className="mt-0.5 max-w-[12rem] truncate text-xs text-slate-500" title={p.customerName}>
            {p.customerName}
          </div>
        )}
      </>
    ),
  },
  { head: "Amount", className: "text-right font-medium tabular-nums text-slate-900", cell: (p) => formatRupees(p.amountPaise) },
  {
    head: "Status",
    // Stacked: a refund badge beside the status would widen the column past 1280 px.
    cell: (p) => (
      <span className="flex flex-col items-start gap-1">
        <PaymentStatusBadge status={p.status} />
        <RefundSummaryBadge refundStatus={p.refundStatus} />
      </span>
    ),
  },
  { head: "Method", cell: (p) => methodLabel(p.method) },
  {
    head: "Payment id",
    cell: (p) => (
      <span className="inline-flex items-center gap-1">
        <MiddleTruncate value={p.id} />
        <CopyIconButton value={p.id} label={`Copy payment id ${p.id}`} />
      </span>
    ),
  },
];

/** Phone layout: one tappable block per payment. */
function PaymentCard({ p }: { p: PaymentItem }) {
  return (
    <PhoneCard
      title={<span className="font-medium tabular-nums text-slate-900">{formatRupees(p.amountPaise)}</span>}
      aside={
        <span className="inline-flex items-center gap-1.5">
          <PaymentStatusBadge status={p.status} />
          <RefundSummaryBadge refundStatus={p.refundStatus} />
        </span>
      }
      line={p.orderId}
      meta={
        <>
          <span>{formatIst(p.createdAt, true)}</span>
          {p.method && <span>{methodLabel(p.method)}</span>}
          {p.customerName && <span className="truncate">{p.customerName}</span>}
        </>
      }
      foot={p.id}
    />
  );
}

const ROWS: RowsSpec<PaymentItem> = {
  caption: "Payments, newest first",
  columns: COLUMNS,
  rowKey: paymentKey,
  href: detailHref,
  card: (p) => <PaymentCard p={p} />,
};

export const PaymentsView = withUrlFilters("Loading payments…", function Payments() {
  const trpc = useTRPC();
  const page = useUrlFilters(paymentFiltersFromQuery, paymentFiltersToQuery);
  const payments = useInfiniteQuery(trpc.payments.list.infiniteQueryOptions(page.input, nextPage));
  return (
    <ListPage
      title="Payments"
      description={`Payments created with your ${page.modeName} keys, newest first.`}
      exportCsv={{ url: `/api/dashboard/payments/export${paymentFiltersToQuery(page.filters, { mode: page.mode })}`, fallbackName: "payments.csv" }}
      page={page}
      filters={FILTERS}
      query={payments}
      loadingLabel="Loading payments…"
      empty={{
        filtered: "No payments match these filters",
        none: `No ${page.modeName} payments yet`,
        children: (
          <p>
            Create one from your server with <code className="font-mono text-xs">POST /api/checkout</code> and your {page.modeName} keys; it appears here at
            once. See the <ApiDocsLink />.
          </p>
        ),
      }}
      rows={ROWS}
      noun={["payment", "payments"]}
    />
  );
});
