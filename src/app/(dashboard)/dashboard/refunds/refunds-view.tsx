"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ListPage, nextPage, useUrlFilters, withUrlFilters, type FilterSpec, type RowsSpec } from "@/components/dashboard/list-page";
import { anyOr } from "@/components/dashboard/filter-fields";
import { PhoneCard, type Column } from "@/components/dashboard/list-rows";
import { formatRupees } from "@/lib/money";
import {
  REFUND_STATUSES,
  REFUND_STATUS_LABELS,
  refundFiltersFromQuery,
  refundFiltersSchema,
  refundFiltersToQuery,
  type RefundFilters,
} from "@/lib/schemas/refunds";
import { useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { CopyIconButton, formatIst } from "../logs/parts";
import { RefundReason, RefundStatusBadge, refundReasonText } from "./parts";

const FILTERS: FilterSpec<RefundFilters> = {
  id: "refund-filters",
  label: "Filter refunds",
  hint: "Ids must match exactly. Dates are whole IST days of the refund's creation.",
  columns: "lg:grid-cols-[minmax(0,1.2fr)_minmax(0,2fr)_minmax(0,1.2fr)_minmax(0,1.2fr)]",
  fields: [
    { select: "status", label: "Status", options: anyOr("Any status", REFUND_STATUSES, REFUND_STATUS_LABELS) },
    { text: "q", label: "Refund, payment or order id", placeholder: "rfnd_…, pay_… or ORDER_123", autoComplete: "off" },
    "dates",
  ],
  schema: refundFiltersSchema,
};

type RefundItem = RouterOutputs["refunds"]["list"]["items"][number];

const paymentHref = (r: RefundItem) => `/dashboard/payments/${encodeURIComponent(r.paymentId)}`;
const refundKey = (r: RefundItem) => r.refundId;
const hasReason = (r: RefundItem) => Boolean(refundReasonText(r) || r.failureReason);

const COLUMNS: Column<RefundItem>[] = [
  {
    head: "Created (IST)",
    cell: (r) => (
      <>
        {formatIst(r.createdAt, true)}
        {r.processedAt && <div className="text-xs text-slate-500">processed {formatIst(r.processedAt, true)}</div>}
      </>
    ),
  },
  {
    head: "Refund",
    className: "whitespace-normal",
    cell: (r) => (
      <>
        <span className="inline-flex items-center gap-1">
          <code className="whitespace-nowrap font-mono text-xs" title={r.refundId}>
            {r.refundId}
          </code>
          <CopyIconButton value={r.refundId} label={`Copy refund id ${r.refundId}`} />
        </span>
        {r.merchantRefundId && (
          <div className="max-w-[16rem] truncate font-mono text-[11px] text-slate-500" title={`Your refund id: ${r.merchantRefundId}`}>
            {r.merchantRefundId}
          </div>
        )}
        {hasReason(r) && (
          <div className="mt-0.5 max-w-[16rem] whitespace-normal break-words text-sm">
            <RefundReason r={r} />
          </div>
        )}
      </>
    ),
  },
  { head: "Amount", className: "text-right font-medium tabular-nums text-slate-900", cell: (r) => formatRupees(r.amountPaise) },
  { head: "Status", cell: (r) => <RefundStatusBadge status={r.status} /> },
  {
    head: "Payment",
    cell: (r) => (
      <>
        <Link
          href={paymentHref(r)}
          className="block max-w-[12rem] truncate font-mono text-xs text-slate-900 hover:text-brand-700 hover:underline"
          title={`Payment ${r.paymentId}`}
        >
          {r.merchantOrderId}
        </Link>
        <div className="max-w-[12rem] truncate font-mono text-[11px] text-slate-500" title={r.paymentId}>
          {r.paymentId}
        </div>
      </>
    ),
  },
];

/** Phone layout: one tappable block per refund, opening its payment. */
function RefundCard({ r }: { r: RefundItem }) {
  return (
    <PhoneCard
      title={<span className="font-medium tabular-nums text-slate-900">{formatRupees(r.amountPaise)}</span>}
      aside={<RefundStatusBadge status={r.status} />}
      line={r.merchantOrderId}
      meta={<span>{formatIst(r.createdAt, true)}</span>}
      note={hasReason(r) && <RefundReason r={r} />}
      foot={r.refundId}
    />
  );
}

const ROWS: RowsSpec<RefundItem> = {
  caption: "Refunds, newest first",
  columns: COLUMNS,
  rowKey: refundKey,
  href: paymentHref,
  testId: "refund-row",
  card: (r) => <RefundCard r={r} />,
};

export const RefundsView = withUrlFilters("Loading refunds…", function Refunds() {
  const trpc = useTRPC();
  const page = useUrlFilters(refundFiltersFromQuery, refundFiltersToQuery);
  const refunds = useInfiniteQuery(
    trpc.refunds.list.infiniteQueryOptions(page.input, {
      ...nextPage,
      // Sandbox refunds settle within seconds: keep pending ones current without a click.
      refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((i) => i.status === "PENDING")) ? 5000 : false),
    }),
  );
  return (
    <ListPage
      title="Refunds"
      description={`Refunds of your ${page.modeName} payments, newest first, automatic refunds of late attempts included.`}
      exportCsv={{ url: `/api/dashboard/refunds/export${refundFiltersToQuery(page.filters, { mode: page.mode })}`, fallbackName: "refunds.csv" }}
      page={page}
      filters={FILTERS}
      query={refunds}
      loadingLabel="Loading refunds…"
      empty={{
        filtered: "No refunds match these filters",
        none: `No ${page.modeName} refunds yet`,
        children: (
          <p>
            Refund a successful payment from its page under{" "}
            <Link href="/dashboard/payments" className="text-brand-600 hover:underline">
              Payments
            </Link>
            , or from your server with <code className="font-mono text-xs">POST /api/payments/{"{paymentId}"}/refunds</code>.
          </p>
        ),
      }}
      rows={ROWS}
      noun={["refund", "refunds"]}
    />
  );
});
