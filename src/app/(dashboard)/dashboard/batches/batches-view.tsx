"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { InvalidFiltersNotice, ListBody, RefreshButton, useUrlFilters } from "@/components/dashboard/list-page";
import { useMode } from "@/components/dashboard/mode";
import { MiddleTruncate, PageHeader, Table, Td, Th, cx } from "@/components/ui";
import { IstStamp } from "@/components/dashboard/ist-stamp";
import { BATCH_MAX_ITEMS, countText } from "@/lib/limits";
import { PAGE_SIZE } from "@/lib/schemas/logs";
import { BATCH_KINDS, batchFiltersFromQuery, batchFiltersToQuery, isBatchRunning, type BatchFilters } from "@/lib/schemas/batches";
import { useTRPC, type RouterOutputs } from "@/lib/trpc/client";
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

function BatchesTable({ items }: { items: BatchItem[] }) {
  const router = useRouter();
  return (
    <Table
      caption="Batches, newest first"
      head={
        <tr>
          <Th>Created (IST)</Th>
          <Th>Batch</Th>
          <Th>Status</Th>
          <Th>Progress</Th>
          <Th className="text-right">Rows</Th>
          <Th>Time</Th>
        </tr>
      }
    >
      {items.map((b) => (
        <tr
          key={b.batch_id}
          className="cursor-pointer hover:bg-slate-50"
          onClick={(e) => {
            // The row is a mouse shortcut; the batch id link is the keyboard path to the same page.
            if ((e.target as HTMLElement).closest("a,button")) return;
            router.push(detailHref(b));
          }}
        >
          <Td>
            <IstStamp at={b.created_at} />
          </Td>
          <Td>
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
          </Td>
          <Td>
            <BatchStatusBadge status={b.status} />
          </Td>
          <Td>
            <div className="min-w-[12rem] whitespace-normal">
              <BatchProgress b={b} size="sm" />
            </div>
          </Td>
          <Td className="text-right tabular-nums">
            <div className="text-slate-900">{b.total.toLocaleString("en-IN")}</div>
            {b.rejected > 0 && <div className="text-xs text-amber-700">{b.rejected.toLocaleString("en-IN")} rejected</div>}
          </Td>
          <Td className="text-xs text-slate-500">
            {/* May wrap ("Waiting / to start") so the table fits at 1280 px. */}
            <div className="min-w-[4.5rem] whitespace-normal">{timing(b)}</div>
          </Td>
        </tr>
      ))}
    </Table>
  );
}

/** Phone layout: one tappable block per batch. */
function BatchesList({ items }: { items: BatchItem[] }) {
  return (
    <ul className="-mx-4 divide-y divide-slate-100 sm:mx-0" aria-label="Batches, newest first">
      {items.map((b) => (
        <li key={b.batch_id}>
          <Link href={detailHref(b)} className="block px-4 py-3 hover:bg-slate-50 sm:px-0">
            <div className="flex items-center justify-between gap-3">
              <span className="flex min-w-0 items-center gap-1.5">
                <span className="rounded bg-slate-100 px-1.5 py-0.5 text-[11px] font-semibold text-slate-600">{b.kind}</span>
                <span className="truncate text-sm font-medium text-slate-900">{b.client_batch_id ?? `${b.total.toLocaleString("en-IN")} rows`}</span>
              </span>
              <BatchStatusBadge status={b.status} />
            </div>
            <div className="mt-2">
              <BatchProgress b={b} size="sm" />
            </div>
            <div className="mt-1 flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-slate-500">
              <span>{formatIst(b.created_at, true)}</span>
              <span>{timing(b)}</span>
              {b.rejected > 0 && <span className="text-amber-700">{b.rejected.toLocaleString("en-IN")} rejected</span>}
            </div>
            <div className="mt-0.5 truncate font-mono text-[11px] text-slate-400">{b.batch_id}</div>
          </Link>
        </li>
      ))}
    </ul>
  );
}

export function BatchesView() {
  const { mode } = useMode();
  const trpc = useTRPC();
  const { filters, urlErrors, hasFilters, clear } = useUrlFilters(batchFiltersFromQuery, batchFiltersToQuery);
  const batches = useInfiniteQuery(
    trpc.batches.list.infiniteQueryOptions(
      { mode, ...filters, limit: PAGE_SIZE },
      {
        getNextPageParam: (last) => last.nextCursor ?? undefined,
        // Progress moves every second while a batch shown here runs; polling stops once all are done.
        refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((b) => isBatchRunning(b.status))) ? 1000 : false),
      },
    ),
  );
  const items = batches.data?.pages.flatMap((p) => p.items) ?? [];
  const modeName = mode === "live" ? "live" : "sandbox";

  return (
    <>
      <PageHeader
        title="Batches"
        description={`Verify up to ${countText(BATCH_MAX_ITEMS)} PANs or EPFO members from one CSV file with your ${modeName} data. Results stay here to browse and download.`}
        actions={<RefreshButton query={batches} />}
      />
      <NewBatch />
      <h2 className="mb-3 mt-8 text-base font-semibold text-slate-900">Your batches</h2>
      <KindFilter current={filters.kind} />
      <InvalidFiltersNotice errors={urlErrors} />
      <ListBody
        query={batches}
        items={items}
        loadingLabel="Loading batches…"
        filtered={hasFilters}
        emptyFiltered={{ title: `No ${filters.kind ?? ""} batches in ${modeName} mode`, clearLabel: "Show all batches", onClear: clear }}
        emptyNone={{
          title: `No ${modeName} batches yet`,
          children: (
            <p>
              Upload a CSV above, or send one from your server with <code className="font-mono text-xs">POST /v1/identity/pan/batch</code> or{" "}
              <code className="font-mono text-xs">/v1/employment/epfo/batch</code>. See the{" "}
              <Link href="/docs" className="text-brand-600 hover:underline">
                API docs
              </Link>
              .
            </p>
          ),
        }}
        table={(rows) => <BatchesTable items={rows} />}
        list={(rows) => <BatchesList items={rows} />}
        noun={["batch", "batches"]}
      />
    </>
  );
}
