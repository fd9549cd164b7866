"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { ListPage, ApiDocsLink, nextPage, useUrlFilters, withUrlFilters, type RowsSpec } from "@/components/dashboard/list-page";
import { PhoneCard, type Column } from "@/components/dashboard/list-rows";
import { MiddleTruncate, cx } from "@/components/ui";
import { IstStamp } from "@/components/dashboard/ist-stamp";
import { BATCH_MAX_ITEMS, countText } from "@/lib/limits";
import { BATCH_KINDS, batchFiltersFromQuery, batchFiltersToQuery, isBatchRunning, type BatchFilters } from "@/lib/schemas/batches";
import { useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { CopyIconButton, formatIst } from "../logs/parts";
import { NewBatch } from "./new-batch";
import { BatchProgress, BatchStatusBadge, formatDuration } from "./parts";

type BatchItem = RouterOutputs["batches"]["list"]["items"][number];

const detailHref = (b: BatchItem) => `/dashboard/batches/${encodeURIComponent(b.batch_id)}`;

function timing(b: BatchItem): string {
  if (b.completed_at) return `Took ${formatDuration(Date.parse(b.completed_at) - Date.parse(b.started_at ?? b.created_at))}`;
  if (b.started_at) return "Running";
  return "Waiting to start";
}

/** All, PAN or EPFO: links, so the filter lives in the URL like every list's. */
function KindFilter({ current }: { current: BatchFilters["kind"] }) {
  const pathname = usePathname();
  const options = [{ value: undefined, label: "All kinds" }, ...BATCH_KINDS.map((k) => ({ value: k, label: k }))];
  return (
    <nav aria-label="Filter by kind" className="mb-3 inline-flex rounded-md border border-slate-300 bg-white p-0.5 text-sm">
      {options.map((o) => (
        <Link
          key={o.label}
          href={`${pathname}${batchFiltersToQuery({ kind: o.value })}`}
          aria-current={current === o.value ? "page" : undefined}
          className={cx("rounded px-3 py-1", current === o.value ? "bg-brand-600 font-medium text-white" : "text-slate-700 hover:bg-slate-100")}
        >
          {o.label}
        </Link>
      ))}
    </nav>
  );
}

const batchKey = (b: BatchItem) => b.batch_id;

const COLUMNS: Column<BatchItem>[] = [
  { head: "Created (IST)", cell: (b) => <IstStamp at={b.created_at} /> },
  {
    head: "Batch",
    cell: (b) => (
      <>
        <div className="flex items-center gap-1.5">
          <span className="rounded bg-slate-100 px-1.5 py-0.5 text-[11px] font-semibold text-slate-600">{b.kind}</span>
          <Link href={detailHref(b)} className="text-slate-900 hover:text-brand-700 hover:underline">
            <MiddleTruncate value={b.batch_id} head={16} tail={8} />
          </Link>
          <CopyIconButton value={b.batch_id} label={`Copy batch id ${b.batch_id}`} />
        </div>
        {b.client_batch_id && (
          <div className="mt-0.5 max-w-[12rem] truncate text-xs text-slate-500" title={b.client_batch_id}>
            {b.client_batch_id}
          </div>
        )}
      </>
    ),
  },
  { head: "Status", cell: (b) => <BatchStatusBadge status={b.status} /> },
  {
    head: "Progress",
    cell: (b) => (
      <div className="min-w-[12rem] whitespace-normal">
        <BatchProgress b={b} size="sm" />
      </div>
    ),
  },
  {
    head: "Rows",
    className: "text-right tabular-nums",
    cell: (b) => (
      <>
        <div className="text-slate-900">{b.total.toLocaleString("en-IN")}</div>
        {b.rejected > 0 && <div className="text-xs text-amber-700">{b.rejected.toLocaleString("en-IN")} rejected</div>}
      </>
    ),
  },
  {
    head: "Time",
    className: "text-xs text-slate-500",
    // May wrap ("Waiting / to start") so the table fits at 1280 px.
    cell: (b) => <div className="min-w-[4.5rem] whitespace-normal">{timing(b)}</div>,
  },
];

/** Phone layout: one tappable block per batch. */
function BatchCard({ b }: { b: BatchItem }) {
  return (
    <PhoneCard
      title={
        <span className="flex min-w-0 items-center gap-1.5">
          <span className="rounded bg-slate-100 px-1.5 py-0.5 text-[11px] font-semibold text-slate-600">{b.kind}</span>
          <span className="truncate text-sm font-medium text-slate-900">{b.client_batch_id ?? `${b.total.toLocaleString("en-IN")} rows`}</span>
        </span>
      }
      aside={<BatchStatusBadge status={b.status} />}
      body={
        <div className="mt-2">
          <BatchProgress b={b} size="sm" />
        </div>
      }
      meta={
        <>
          <span>{formatIst(b.created_at, true)}</span>
          <span>{timing(b)}</span>
          {b.rejected > 0 && <span className="text-amber-700">{b.rejected.toLocaleString("en-IN")} rejected</span>}
        </>
      }
      foot={b.batch_id}
    />
  );
}

const ROWS: RowsSpec<BatchItem> = {
  caption: "Batches, newest first",
  columns: COLUMNS,
  rowKey: batchKey,
  href: detailHref,
  card: (b) => <BatchCard b={b} />,
};

export const BatchesView = withUrlFilters("Loading batches…", function Batches() {
  const trpc = useTRPC();
  const page = useUrlFilters(batchFiltersFromQuery, batchFiltersToQuery);
  const batches = useInfiniteQuery(
    trpc.batches.list.infiniteQueryOptions(page.input, {
      ...nextPage,
      // Progress moves every second while a batch shown here runs; polling stops once all are done.
      refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((b) => isBatchRunning(b.status))) ? 1000 : false),
    }),
  );
  return (
    <ListPage
      title="Batches"
      description={`Verify up to ${countText(BATCH_MAX_ITEMS)} PANs or EPFO members from one CSV file with your ${page.modeName} data. Results stay here to browse and download.`}
      page={page}
      filterForm={<KindFilter current={page.filters.kind} />}
      query={batches}
      loadingLabel="Loading batches…"
      empty={{
        filtered: `No ${page.filters.kind ?? ""} batches in ${page.modeName} mode`,
        clearLabel: "Show all batches",
        none: `No ${page.modeName} batches yet`,
        children: (
          <p>
            Upload a CSV above, or send one from your server with <code className="font-mono text-xs">POST /v1/identity/pan/batch</code> or{" "}
            <code className="font-mono text-xs">/v1/employment/epfo/batch</code>. See the <ApiDocsLink />.
          </p>
        ),
      }}
      rows={ROWS}
      noun={["batch", "batches"]}
    >
      <NewBatch />
      <h2 className="mb-3 mt-8 text-base font-semibold text-slate-900">Your batches</h2>
    </ListPage>
  );
});
