"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Button, Card, EmptyState, ErrorState, LoadingState, Notice, PageHeader, cx } from "@/components/ui";
import { DataTable } from "@/components/dashboard/list-rows";
import { ADMIN_PAGE_SIZE, merchantFilterSchema, type MerchantFilter } from "@/lib/schemas/admin";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { GoLiveBadge, StatusBadge, formatCount, formatDate } from "./admin-ui";

const FILTER_LABELS: Record<MerchantFilter, string> = {
  all: "All",
  go_live_requested: "Go-live requested",
  live: "Live",
  suspended: "Suspended",
};

/** Waiting go-live requests stand out; an inset stripe keeps the text aligned with other rows. */
const PENDING_ROW = "bg-amber-50/70";
const PENDING_STRIPE = "shadow-[inset_4px_0_0_var(--color-amber-400)]";

type Usage = { last7Days: number; sandbox: number; live: number };

function UsageFigures({ usage }: { usage: Usage }) {
  return (
    <span className="text-slate-700">
      <span className="font-medium">{formatCount(usage.last7Days)}</span> <span className="text-slate-500">last 7 days</span>
      <span className="block text-xs text-slate-500">
        {formatCount(usage.sandbox)} sandbox · {formatCount(usage.live)} live
      </span>
    </span>
  );
}

/** Keeps search and filter in the address bar, so reload and back keep the operator's place. */
function useListState(initialQ: string, initialFilter: MerchantFilter) {
  const [q, setQ] = useState(initialQ);
  const [debouncedQ, setDebouncedQ] = useState(initialQ.trim());
  const [filter, setFilter] = useState<MerchantFilter>(initialFilter);
  const [offset, setOffset] = useState(0);
  useEffect(() => {
    const t = setTimeout(() => {
      setDebouncedQ(q.trim());
      setOffset(0);
    }, 250);
    return () => clearTimeout(t);
  }, [q]);
  useEffect(() => {
    const params = new URLSearchParams();
    if (debouncedQ) params.set("q", debouncedQ);
    if (filter !== "all") params.set("filter", filter);
    const query = params.toString();
    window.history.replaceState(null, "", query ? `?${query}` : window.location.pathname);
  }, [debouncedQ, filter]);
  return {
    q,
    setQ,
    debouncedQ,
    filter,
    setFilter: (f: MerchantFilter) => {
      setFilter(f);
      setOffset(0);
    },
    offset,
    setOffset,
  };
}

/** The search box and the All / Go-live requested / Live / Suspended filter. */
function SearchAndFilters({ state, pendingGoLive }: { state: ReturnType<typeof useListState>; pendingGoLive: number }) {
  return (
    <div className="flex flex-col gap-3 lg:flex-row lg:items-end lg:justify-between">
      <form role="search" className="w-full lg:max-w-sm" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="merchant-search" className="block text-sm font-medium text-slate-700">
          Search merchants
        </label>
        <input
          id="merchant-search"
          type="search"
          value={state.q}
          onChange={(e) => state.setQ(e.target.value)}
          placeholder="Name, email or mer_… id"
          maxLength={200}
          autoComplete="off"
          className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm outline-none focus:border-brand-500 focus:ring-2 focus:ring-brand-100"
        />
      </form>
      <div role="group" aria-label="Show" className="flex flex-wrap gap-1.5">
        {merchantFilterSchema.options.map((f) => (
          <button
            key={f}
            type="button"
            aria-pressed={state.filter === f}
            onClick={() => state.setFilter(f)}
            className={cx(
              "rounded-full border px-3 py-1.5 text-xs font-medium",
              state.filter === f ? "border-brand-600 bg-brand-600 text-white" : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50",
            )}
          >
            {FILTER_LABELS[f]}
            {f === "go_live_requested" && pendingGoLive > 0 && ` (${pendingGoLive})`}
          </button>
        ))}
      </div>
    </div>
  );
}

/** "1–25 of 80" and Previous / Next when there is more than one page. */
function MerchantPages({
  page,
  offset,
  onOffset,
  fetching,
}: {
  page: RouterOutputs["admin"]["merchants"];
  offset: number;
  onOffset: (offset: number) => void;
  fetching: boolean;
}) {
  return (
    <nav aria-label="Pages" className="mt-4 flex flex-wrap items-center justify-between gap-3 text-sm text-slate-600">
      <p aria-live="polite">
        {formatCount(page.offset + 1)}–{formatCount(page.offset + page.items.length)} of {formatCount(page.total)}
      </p>
      {page.total > ADMIN_PAGE_SIZE && (
        <div className="flex gap-2">
          <Button variant="secondary" size="sm" disabled={offset === 0 || fetching} onClick={() => onOffset(Math.max(0, offset - ADMIN_PAGE_SIZE))}>
            Previous
          </Button>
          <Button
            variant="secondary"
            size="sm"
            disabled={page.nextCursor === null || fetching}
            onClick={() => page.nextCursor !== null && onOffset(page.nextCursor)}
          >
            Next
          </Button>
        </div>
      )}
    </nav>
  );
}

export function MerchantsList({ initialQ, initialFilter }: { initialQ: string; initialFilter: string }) {
  const trpc = useTRPC();
  const s = useListState(initialQ, merchantFilterSchema.catch("all").parse(initialFilter));
  const input = { q: s.debouncedQ || undefined, filter: s.filter, cursor: s.offset || undefined };
  const list = useQuery({ ...trpc.admin.merchants.queryOptions(input), placeholderData: keepPreviousData });
  const searching = Boolean(s.debouncedQ) || s.filter !== "all";

  return (
    <div>
      <PageHeader title="Merchants" description="Every business on Parakh: status, go-live and API usage." />

      {list.data && list.data.pendingGoLive > 0 && s.filter !== "go_live_requested" && (
        <div className="mb-4">
          <Notice tone="warning">
            <span className="font-medium">
              {list.data.pendingGoLive === 1 ? "1 go-live request is" : `${list.data.pendingGoLive} go-live requests are`} waiting for review.
            </span>{" "}
            <button type="button" className="underline underline-offset-2 hover:no-underline" onClick={() => s.setFilter("go_live_requested")}>
              Show only those
            </button>
          </Notice>
        </div>
      )}

      <Card>
        <SearchAndFilters state={s} pendingGoLive={list.data?.pendingGoLive ?? 0} />

        <div className="mt-4" aria-busy={list.isFetching || undefined}>
          {list.isPending ? (
            <LoadingState label="Loading merchants…" />
          ) : list.isError ? (
            <ErrorState message={errorInfo(list.error).message} onRetry={() => void list.refetch()} />
          ) : list.data.items.length === 0 ? (
            searching ? (
              <EmptyState title="No merchants match">
                <button
                  type="button"
                  className="text-brand-700 underline underline-offset-2"
                  onClick={() => {
                    s.setQ("");
                    s.setFilter("all");
                  }}
                >
                  Clear search and filter
                </button>
              </EmptyState>
            ) : (
              <EmptyState title="No merchants yet">
                Merchants appear here when they sign up, or create one with <code className="text-xs">npm run cli -- merchant create</code>.
              </EmptyState>
            )
          ) : (
            <MerchantRows items={list.data.items} />
          )}
        </div>

        {list.data && list.data.total > 0 && <MerchantPages page={list.data} offset={s.offset} onOffset={s.setOffset} fetching={list.isFetching} />}
      </Card>
    </div>
  );
}

type MerchantRow = RouterOutputs["admin"]["merchants"]["items"][number];

function MerchantRows({ items }: { items: MerchantRow[] }) {
  return (
    <>
      {/* Phone: one card per merchant. */}
      <ul className="-mx-4 divide-y divide-slate-100 border-y border-slate-100 md:hidden">
        {items.map((m) => (
          <li key={m.id} className={cx("px-4 py-3", m.goLive.state === "requested" && [PENDING_ROW, PENDING_STRIPE].join(" "))}>
            <Link href={`/admin/merchants/${m.id}`} className="font-medium text-brand-700 hover:underline">
              {m.name}
            </Link>
            <p className="truncate text-sm text-slate-600">{m.email}</p>
            <p className="truncate font-mono text-xs text-slate-500">{m.id}</p>
            <div className="mt-2 flex flex-wrap gap-1.5">
              <StatusBadge status={m.status} />
              <GoLiveBadge goLive={m.goLive} />
            </div>
            <div className="mt-2 flex items-end justify-between gap-3 text-sm">
              <UsageFigures usage={m.usage} />
              <span className="text-xs text-slate-500">Joined {formatDate(m.createdAt)}</span>
            </div>
          </li>
        ))}
      </ul>
      <div className="hidden md:block">
        <DataTable
          caption="Merchants"
          columns={[
            {
              head: "Merchant",
              className: "max-w-xs",
              cellClass: (m) => m.goLive.state === "requested" && PENDING_STRIPE,
              cell: (m) => (
                <>
                  <Link href={`/admin/merchants/${m.id}`} className="font-medium text-brand-700 hover:underline">
                    {m.name}
                  </Link>
                  <span className="block truncate text-slate-600">{m.email}</span>
                  <span className="block truncate font-mono text-xs text-slate-500">{m.id}</span>
                </>
              ),
            },
            { head: "Status", cell: (m) => <StatusBadge status={m.status} /> },
            { head: "Mode", cell: (m) => <GoLiveBadge goLive={m.goLive} /> },
            { head: "API calls", cell: (m) => <UsageFigures usage={m.usage} /> },
            { head: "Created", cell: (m) => formatDate(m.createdAt) },
          ]}
          rows={items}
          rowKey={(m) => m.id}
          rowClass={(m) => m.goLive.state === "requested" && PENDING_ROW}
        />
      </div>
    </>
  );
}
