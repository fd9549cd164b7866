"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { FilterPanel, InvalidFiltersNotice, ListBody, RefreshButton, useFilterDraft, useUrlFilters } from "@/components/dashboard/list-page";
import { Field, PageHeader, Table, Td, Th } from "@/components/ui";
import { useMode } from "@/components/dashboard/mode";
import { PAGE_SIZE, logFiltersFromQuery, logFiltersSchema, logFiltersToQuery, type LogFilters } from "@/lib/schemas/logs";
import { useTRPC, type RouterOutputs } from "@/lib/trpc/client";
import { CopyIconButton, formatIst } from "./parts";
import { HttpStatusBadge, formatLatency } from "@/components/dashboard/http-status";
import { DateRangeFields, SelectField } from "@/components/dashboard/filter-fields";

const STATUS_OPTIONS = [
  { value: "", label: "Any status" },
  { value: "2xx", label: "2xx success" },
  { value: "4xx", label: "4xx client error" },
  { value: "5xx", label: "5xx server error" },
];

type Draft = { path: string; statusClass: string; from: string; to: string; requestId: string };

function FilterForm({ initial, onApply, onClear }: { initial: LogFilters; onApply: (f: LogFilters) => void; onClear: () => void }) {
  const { draft, errors, set, setValue, submit } = useFilterDraft<Draft, LogFilters>(
    { path: initial.path ?? "", statusClass: initial.statusClass ?? "", from: initial.from ?? "", to: initial.to ?? "", requestId: initial.requestId ?? "" },
    logFiltersSchema,
    onApply,
  );

  return (
    <FilterPanel
      id="log-filters"
      label="Filter requests"
      activeCount={Object.values(initial).filter(Boolean).length}
      onSubmit={submit}
      onClear={onClear}
      hint="Path matches text anywhere in the path or query string, capitals or not. Dates are whole IST days."
    >
      <div className="grid grid-cols-2 gap-3 lg:grid-cols-[minmax(0,2fr)_minmax(0,1.3fr)_minmax(0,1.2fr)_minmax(0,1.2fr)_minmax(0,2fr)]">
        <Field
          className="col-span-2 lg:col-span-1"
          label="Path"
          name="path"
          placeholder="/v1/identity"
          value={draft.path}
          onChange={set("path")}
          error={errors.path}
          spellCheck={false}
        />
        <SelectField
          className="col-span-2 lg:col-span-1"
          label="Status"
          name="status"
          value={draft.statusClass}
          onChange={setValue("statusClass")}
          options={STATUS_OPTIONS}
          error={errors.statusClass}
        />
        <DateRangeFields from={draft.from} to={draft.to} errors={errors} set={set} />
        <Field
          className="col-span-2 lg:col-span-1"
          label="Request id"
          name="requestId"
          placeholder="req_…"
          value={draft.requestId}
          onChange={set("requestId")}
          error={errors.requestId}
          spellCheck={false}
          autoComplete="off"
        />
      </div>
    </FilterPanel>
  );
}

type LogItem = RouterOutputs["logs"]["list"]["items"][number];

const detailHref = (item: LogItem) => `/dashboard/logs/${encodeURIComponent(item.requestId)}?id=${encodeURIComponent(item.id)}`;

function LogsTable({ items }: { items: LogItem[] }) {
  const router = useRouter();
  return (
    <Table
      caption="API requests, newest first"
      head={
        <tr>
          <Th>Time (IST)</Th>
          <Th>Request</Th>
          <Th>Status</Th>
          <Th className="text-right">Latency</Th>
          <Th>Request id</Th>
          <Th>Client IP</Th>
        </tr>
      }
    >
      {items.map((item) => (
        <tr
          key={item.id}
          className="cursor-pointer hover:bg-slate-50"
          onClick={(e) => {
            // The row is a mouse shortcut; the time link is the keyboard path to the same page.
            if ((e.target as HTMLElement).closest("a,button")) return;
            router.push(detailHref(item));
          }}
        >
          <Td>
            <Link href={detailHref(item)} className="text-slate-900 hover:text-brand-700 hover:underline">
              {formatIst(item.createdAt, true)}
            </Link>
          </Td>
          <Td>
            <div className="max-w-[17rem] truncate font-mono text-xs text-slate-800" title={`${item.method} ${item.path}`}>
              <span className="text-slate-500">{item.method}</span> {item.path}
            </div>
            {item.errorCode && <div className="mt-0.5 font-mono text-[11px] text-slate-500">{item.errorCode}</div>}
          </Td>
          <Td>
            <HttpStatusBadge status={item.status} />
          </Td>
          <Td className="text-right tabular-nums">{formatLatency(item.latencyMs)}</Td>
          <Td>
            <span className="inline-flex items-center gap-1">
              <code className="max-w-[10rem] truncate font-mono text-xs" title={item.requestId}>
                {item.requestId}
              </code>
              <CopyIconButton value={item.requestId} label={`Copy request id ${item.requestId}`} />
            </span>
          </Td>
          <Td>
            <div className="max-w-[9rem] truncate font-mono text-xs" title={item.clientIp}>
              {item.clientIp}
            </div>
          </Td>
        </tr>
      ))}
    </Table>
  );
}

/** Phone layout: one tappable block per request. */
function LogsList({ items }: { items: LogItem[] }) {
  return (
    <ul className="-mx-4 divide-y divide-slate-100 sm:mx-0" aria-label="API requests, newest first">
      {items.map((item) => (
        <li key={item.id}>
          <Link href={detailHref(item)} className="block px-4 py-3 hover:bg-slate-50 sm:px-0">
            <div className="flex items-center gap-2">
              <HttpStatusBadge status={item.status} />
              <span className="font-mono text-xs font-medium text-slate-700">{item.method}</span>
              <span className="min-w-0 truncate font-mono text-xs text-slate-900">{item.path}</span>
            </div>
            <div className="mt-1 flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-slate-500">
              <span>{formatIst(item.createdAt, true)}</span>
              <span className="tabular-nums">{formatLatency(item.latencyMs)}</span>
              {item.errorCode && <span>{item.errorCode}</span>}
            </div>
            <div className="mt-0.5 truncate font-mono text-[11px] text-slate-400">{item.requestId}</div>
          </Link>
        </li>
      ))}
    </ul>
  );
}

export function LogsView() {
  const { mode } = useMode();
  const trpc = useTRPC();
  const { filters, urlErrors, queryKey, hasFilters, apply, clear } = useUrlFilters(logFiltersFromQuery, logFiltersToQuery);
  const logs = useInfiniteQuery(
    trpc.logs.list.infiniteQueryOptions({ mode, ...filters, limit: PAGE_SIZE }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
  );
  const items = logs.data?.pages.flatMap((p) => p.items) ?? [];
  const modeName = mode === "live" ? "live" : "sandbox";

  return (
    <>
      <PageHeader
        title="Request logs"
        description={`Every REST call made with your ${modeName} keys, newest first. Bodies are stored redacted.`}
        actions={<RefreshButton query={logs} />}
      />
      {/* Re-mounted when the URL changes so the form always shows the filters in effect. */}
      <FilterForm key={queryKey} initial={filters} onApply={apply} onClear={clear} />
      <InvalidFiltersNotice errors={urlErrors} />
      <ListBody
        query={logs}
        items={items}
        loadingLabel="Loading requests…"
        filtered={hasFilters}
        emptyFiltered={{ title: "No requests match these filters", onClear: clear }}
        emptyNone={{
          title: `No API calls in ${modeName} mode yet`,
          children: (
            <p>
              Calls with your {modeName} keys appear here as they happen. Get a key on the{" "}
              <Link href="/dashboard/keys" className="text-brand-600 hover:underline">
                API keys
              </Link>{" "}
              page and see the{" "}
              <Link href="/docs" className="text-brand-600 hover:underline">
                API docs
              </Link>
              .
            </p>
          ),
        }}
        table={(rows) => <LogsTable items={rows} />}
        list={(rows) => <LogsList items={rows} />}
        noun={["request", "requests"]}
      />
    </>
  );
}
