"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { FilterPanel, InvalidFiltersNotice, ListBody, RefreshButton, useFilterDraft, useUrlFilters } from "@/components/dashboard/list-page";
import { CsvDownloadButton } from "@/components/dashboard/csv-download-button";
import { Field, PageHeader, Table, Td, Th } from "@/components/ui";
import { useMode } from "@/components/dashboard/mode";
import { formatRupees } from "@/lib/money";
import {
  PAGE_SIZE,
  REFUND_STATUSES,
  REFUND_STATUS_LABELS,
  refundFiltersFromQuery,
  refundFiltersSchema,
  refundFiltersToQuery,
  type RefundFilters,
} from "@/lib/schemas/refunds";
import { useTRPC, type RouterOutputs } from "@/lib/trpc/client";
import { CopyIconButton, formatIst } from "../logs/parts";
import { DateRangeFields, SelectField } from "@/components/dashboard/filter-fields";
import { RefundReason, RefundStatusBadge, refundReasonText } from "./parts";

const STATUS_OPTIONS = [{ value: "", label: "Any status" }, ...REFUND_STATUSES.map((s) => ({ value: s, label: REFUND_STATUS_LABELS[s] }))];

type Draft = { status: string; q: string; from: string; to: string };

function FilterForm({ initial, onApply, onClear }: { initial: RefundFilters; onApply: (f: RefundFilters) => void; onClear: () => void }) {
  const { draft, errors, set, setValue, submit } = useFilterDraft<Draft, RefundFilters>(
    { status: initial.status ?? "", q: initial.q ?? "", from: initial.from ?? "", to: initial.to ?? "" },
    refundFiltersSchema,
    onApply,
  );

  return (
    <FilterPanel
      id="refund-filters"
      label="Filter refunds"
      activeCount={Object.values(initial).filter(Boolean).length}
      onSubmit={submit}
      onClear={onClear}
      hint="Ids must match exactly. Dates are whole IST days of the refund's creation."
    >
      <div className="grid grid-cols-2 gap-3 lg:grid-cols-[minmax(0,1.2fr)_minmax(0,2fr)_minmax(0,1.2fr)_minmax(0,1.2fr)]">
        <SelectField
          className="col-span-2 lg:col-span-1"
          label="Status"
          name="status"
          value={draft.status}
          onChange={setValue("status")}
          options={STATUS_OPTIONS}
          error={errors.status}
        />
        <Field
          className="col-span-2 lg:col-span-1"
          label="Refund, payment or order id"
          name="q"
          placeholder="rfnd_…, pay_… or ORDER_123"
          value={draft.q}
          onChange={set("q")}
          error={errors.q}
          spellCheck={false}
          autoComplete="off"
        />
        <DateRangeFields from={draft.from} to={draft.to} errors={errors} set={set} />
      </div>
    </FilterPanel>
  );
}

type RefundItem = RouterOutputs["refunds"]["list"]["items"][number];

const paymentHref = (r: RefundItem) => `/dashboard/payments/${encodeURIComponent(r.paymentId)}`;

function RefundsTable({ items }: { items: RefundItem[] }) {
  return (
    <Table
      caption="Refunds, newest first"
      head={
        <tr>
          <Th>Created (IST)</Th>
          <Th>Refund</Th>
          <Th className="text-right">Amount</Th>
          <Th>Status</Th>
          <Th>Payment</Th>
        </tr>
      }
    >
      {items.map((r) => (
        <tr key={r.refundId} data-testid="refund-row">
          <Td>
            {formatIst(r.createdAt, true)}
            {r.processedAt && <div className="text-xs text-slate-500">processed {formatIst(r.processedAt, true)}</div>}
          </Td>
          <Td className="whitespace-normal">
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
            {(refundReasonText(r) || r.failureReason) && (
              <div className="mt-0.5 max-w-[16rem] whitespace-normal break-words text-sm">
                <RefundReason r={r} />
              </div>
            )}
          </Td>
          <Td className="text-right font-medium tabular-nums text-slate-900">{formatRupees(r.amountPaise)}</Td>
          <Td>
            <RefundStatusBadge status={r.status} />
          </Td>
          <Td>
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
          </Td>
        </tr>
      ))}
    </Table>
  );
}

/** Phone layout: one tappable block per refund, opening its payment. */
function RefundsList({ items }: { items: RefundItem[] }) {
  return (
    <ul className="-mx-4 divide-y divide-slate-100 sm:mx-0" aria-label="Refunds, newest first">
      {items.map((r) => (
        <li key={r.refundId} data-testid="refund-row">
          <Link href={paymentHref(r)} className="block px-4 py-3 hover:bg-slate-50 sm:px-0">
            <div className="flex items-center justify-between gap-3">
              <span className="font-medium tabular-nums text-slate-900">{formatRupees(r.amountPaise)}</span>
              <RefundStatusBadge status={r.status} />
            </div>
            <div className="mt-1 truncate font-mono text-xs text-slate-800">{r.merchantOrderId}</div>
            <div className="mt-0.5 text-xs text-slate-500">
              <span>{formatIst(r.createdAt, true)}</span>
              {(refundReasonText(r) || r.failureReason) && (
                <div className="mt-0.5 break-words">
                  <RefundReason r={r} />
                </div>
              )}
            </div>
            <div className="mt-0.5 truncate font-mono text-[11px] text-slate-400">{r.refundId}</div>
          </Link>
        </li>
      ))}
    </ul>
  );
}

export function RefundsView() {
  const { mode } = useMode();
  const trpc = useTRPC();
  const { filters, urlErrors, queryKey, hasFilters, apply, clear } = useUrlFilters(refundFiltersFromQuery, refundFiltersToQuery);
  const refunds = useInfiniteQuery(
    trpc.refunds.list.infiniteQueryOptions(
      { mode, ...filters, limit: PAGE_SIZE },
      {
        getNextPageParam: (last) => last.nextCursor ?? undefined,
        // Sandbox refunds settle within seconds: keep pending ones current without a click.
        refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((i) => i.status === "PENDING")) ? 5000 : false),
      },
    ),
  );
  const items = refunds.data?.pages.flatMap((p) => p.items) ?? [];
  const modeName = mode === "live" ? "live" : "sandbox";

  return (
    <>
      <PageHeader
        title="Refunds"
        description={`Refunds of your ${modeName} payments, newest first, automatic refunds of late attempts included.`}
        actions={
          <div className="flex flex-wrap gap-2">
            <CsvDownloadButton
              url={`/api/dashboard/refunds/export${refundFiltersToQuery(filters, { mode })}`}
              fallbackName="refunds.csv"
              label="Export CSV"
              action="Export"
            />
            <RefreshButton query={refunds} />
          </div>
        }
      />
      {/* Re-mounted when the URL changes so the form always shows the filters in effect. */}
      <FilterForm key={queryKey} initial={filters} onApply={apply} onClear={clear} />
      <InvalidFiltersNotice errors={urlErrors} />
      <ListBody
        query={refunds}
        items={items}
        loadingLabel="Loading refunds…"
        filtered={hasFilters}
        emptyFiltered={{ title: "No refunds match these filters", onClear: clear }}
        emptyNone={{
          title: `No ${modeName} refunds yet`,
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
        table={(rows) => <RefundsTable items={rows} />}
        list={(rows) => <RefundsList items={rows} />}
        noun={["refund", "refunds"]}
      />
    </>
  );
}
