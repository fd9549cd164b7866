"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { FilterPanel, InvalidFiltersNotice, ListBody, RefreshButton, useFilterDraft, useUrlFilters } from "@/components/dashboard/list-page";
import { CsvDownloadButton } from "@/components/dashboard/csv-download-button";
import { Field, MiddleTruncate, PageHeader, Table, Td, Th } from "@/components/ui";
import { IstStamp } from "@/components/dashboard/ist-stamp";
import { useMode } from "@/components/dashboard/mode";
import { formatRupees } from "@/lib/money";
import {
  PAGE_SIZE,
  PAYMENT_STATUSES,
  PAYMENT_STATUS_LABELS,
  paymentFiltersFromQuery,
  paymentFiltersSchema,
  paymentFiltersToQuery,
  type PaymentFilters,
} from "@/lib/schemas/payments";
import { useTRPC, type RouterOutputs } from "@/lib/trpc/client";
import { CopyIconButton, formatIst } from "../logs/parts";
import { DateRangeFields, SelectField } from "@/components/dashboard/filter-fields";
import { RefundSummaryBadge } from "../refunds/parts";
import { PaymentStatusBadge, methodLabel } from "./parts";

const STATUS_OPTIONS = [{ value: "", label: "Any status" }, ...PAYMENT_STATUSES.map((s) => ({ value: s, label: PAYMENT_STATUS_LABELS[s] }))];

type Draft = { status: string; orderId: string; from: string; to: string };

function FilterForm({ initial, onApply, onClear }: { initial: PaymentFilters; onApply: (f: PaymentFilters) => void; onClear: () => void }) {
  const { draft, errors, set, setValue, submit } = useFilterDraft<Draft, PaymentFilters>(
    { status: initial.status ?? "", orderId: initial.orderId ?? "", from: initial.from ?? "", to: initial.to ?? "" },
    paymentFiltersSchema,
    onApply,
  );

  return (
    <FilterPanel
      id="payment-filters"
      label="Filter payments"
      activeCount={Object.values(initial).filter(Boolean).length}
      onSubmit={submit}
      onClear={onClear}
      hint="The order id must match exactly. Dates are whole IST days."
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
          label="Order id"
          name="orderId"
          placeholder="ORDER_123"
          value={draft.orderId}
          onChange={set("orderId")}
          error={errors.orderId}
          spellCheck={false}
          autoComplete="off"
        />
        <DateRangeFields from={draft.from} to={draft.to} errors={errors} set={set} />
      </div>
    </FilterPanel>
  );
}

type PaymentItem = RouterOutputs["payments"]["list"]["items"][number];

const detailHref = (p: PaymentItem) => `/dashboard/payments/${encodeURIComponent(p.id)}`;

function PaymentsTable({ items }: { items: PaymentItem[] }) {
  const router = useRouter();
  return (
    <Table
      caption="Payments, newest first"
      head={
        <tr>
          <Th>Created (IST)</Th>
          <Th>Order id</Th>
          <Th className="text-right">Amount</Th>
          <Th>Status</Th>
          <Th>Method</Th>
          <Th>Payment id</Th>
        </tr>
      }
    >
      {items.map((p) => (
        <tr
          key={p.id}
          className="cursor-pointer hover:bg-slate-50"
          onClick={(e) => {
            // The row is a mouse shortcut; the order id link is the keyboard path to the same page.
            if ((e.target as HTMLElement).closest("a,button")) return;
            router.push(detailHref(p));
          }}
        >
          <Td>
            <IstStamp at={p.createdAt} />
          </Td>
          <Td>
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
          </Td>
          <Td className="text-right font-medium tabular-nums text-slate-900">{formatRupees(p.amountPaise)}</Td>
          <Td>
            {/* Stacked: a refund badge beside the status would widen the column past 1280 px. */}
            <span className="flex flex-col items-start gap-1">
              <PaymentStatusBadge status={p.status} />
              <RefundSummaryBadge refundStatus={p.refundStatus} />
            </span>
          </Td>
          <Td>{methodLabel(p.method)}</Td>
          <Td>
            <span className="inline-flex items-center gap-1">
              <MiddleTruncate value={p.id} />
              <CopyIconButton value={p.id} label={`Copy payment id ${p.id}`} />
            </span>
          </Td>
        </tr>
      ))}
    </Table>
  );
}

/** Phone layout: one tappable block per payment. */
function PaymentsList({ items }: { items: PaymentItem[] }) {
  return (
    <ul className="-mx-4 divide-y divide-slate-100 sm:mx-0" aria-label="Payments, newest first">
      {items.map((p) => (
        <li key={p.id}>
          <Link href={detailHref(p)} className="block px-4 py-3 hover:bg-slate-50 sm:px-0">
            <div className="flex items-center justify-between gap-3">
              <span className="font-medium tabular-nums text-slate-900">{formatRupees(p.amountPaise)}</span>
              <span className="inline-flex items-center gap-1.5">
                <PaymentStatusBadge status={p.status} />
                <RefundSummaryBadge refundStatus={p.refundStatus} />
              </span>
            </div>
            <div className="mt-1 truncate font-mono text-xs text-slate-800">{p.orderId}</div>
            <div className="mt-0.5 flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-slate-500">
              <span>{formatIst(p.createdAt, true)}</span>
              {p.method && <span>{methodLabel(p.method)}</span>}
              {p.customerName && <span className="truncate">{p.customerName}</span>}
            </div>
            <div className="mt-0.5 truncate font-mono text-[11px] text-slate-400">{p.id}</div>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Downloads the CSV through fetch so a refusal can be explained instead of saved as a file. */
export function PaymentsView() {
  const { mode } = useMode();
  const trpc = useTRPC();
  const { filters, urlErrors, queryKey, hasFilters, apply, clear } = useUrlFilters(paymentFiltersFromQuery, paymentFiltersToQuery);
  const payments = useInfiniteQuery(
    trpc.payments.list.infiniteQueryOptions({ mode, ...filters, limit: PAGE_SIZE }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
  );
  const items = payments.data?.pages.flatMap((p) => p.items) ?? [];
  const modeName = mode === "live" ? "live" : "sandbox";

  return (
    <>
      <PageHeader
        title="Payments"
        description={`Payments created with your ${modeName} keys, newest first.`}
        actions={
          <div className="flex flex-wrap gap-2">
            <CsvDownloadButton
              url={`/api/dashboard/payments/export${paymentFiltersToQuery(filters, { mode })}`}
              fallbackName="payments.csv"
              label="Export CSV"
              action="Export"
            />
            <RefreshButton query={payments} />
          </div>
        }
      />
      {/* Re-mounted when the URL changes so the form always shows the filters in effect. */}
      <FilterForm key={queryKey} initial={filters} onApply={apply} onClear={clear} />
      <InvalidFiltersNotice errors={urlErrors} />
      <ListBody
        query={payments}
        items={items}
        loadingLabel="Loading payments…"
        filtered={hasFilters}
        emptyFiltered={{ title: "No payments match these filters", onClear: clear }}
        emptyNone={{
          title: `No ${modeName} payments yet`,
          children: (
            <p>
              Create one from your server with <code className="font-mono text-xs">POST /api/checkout</code> and your {modeName} keys; it appears here at once.
              See the{" "}
              <Link href="/docs" className="text-brand-600 hover:underline">
                API docs
              </Link>
              .
            </p>
          ),
        }}
        table={(rows) => <PaymentsTable items={rows} />}
        list={(rows) => <PaymentsList items={rows} />}
        noun={["payment", "payments"]}
      />
    </>
  );
}
