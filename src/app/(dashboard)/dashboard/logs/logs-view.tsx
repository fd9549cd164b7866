"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ApiDocsLink, ListPage, nextPage, useUrlFilters, withUrlFilters, type FilterSpec, type RowsSpec } from "@/components/dashboard/list-page";
import { PhoneCard, type Column } from "@/components/dashboard/list-rows";
import { logFiltersFromQuery, logFiltersSchema, logFiltersToQuery, type LogFilters } from "@/lib/schemas/logs";
import { useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { CopyIconButton, formatIst } from "./parts";
import { HttpStatusBadge, formatLatency } from "@/components/dashboard/http-status";

const FILTERS: FilterSpec<LogFilters> = {
  id: "log-filters",
  label: "Filter requests",
  hint: "Path matches text anywhere in the path or query string, capitals or not. Dates are whole IST days.",
  columns: "lg:grid-cols-[minmax(0,2fr)_minmax(0,1.3fr)_minmax(0,1.2fr)_minmax(0,1.2fr)_minmax(0,2fr)]",
  fields: [
    { text: "path", label: "Path", placeholder: "/v1/identity" },
    {
      select: "statusClass",
      name: "status",
      label: "Status",
      options: [
        { value: "", label: "Any status" },
        { value: "2xx", label: "2xx success" },
        { value: "4xx", label: "4xx client error" },
        { value: "5xx", label: "5xx server error" },
      ],
    },
    "dates",
    { text: "requestId", label: "Request id", placeholder: "req_…", autoComplete: "off" },
  ],
  schema: logFiltersSchema,
};

type LogItem = RouterOutputs["logs"]["list"]["items"][number];

const detailHref = (item: LogItem) => `/dashboard/logs/${encodeURIComponent(item.requestId)}?id=${encodeURIComponent(item.id)}`;
const logKey = (item: LogItem) => item.id;

const COLUMNS: Column<LogItem>[] = [
  {
    head: "Time (IST)",
    cell: (item) => (
      <Link href={detailHref(item)} className="text-slate-900 hover:text-brand-700 hover:underline">
        {formatIst(item.createdAt, true)}
      </Link>
    ),
  },
  {
    head: "Request",
    cell: (item) => (
      <>
        <div className="max-w-[17rem] truncate font-mono text-xs text-slate-800" title={`${item.method} ${item.path}`}>
          <span className="text-slate-500">{item.method}</span> {item.path}
        </div>
        {item.errorCode && <div className="mt-0.5 font-mono text-[11px] text-slate-500">{item.errorCode}</div>}
      </>
    ),
  },
  { head: "Status", cell: (item) => <HttpStatusBadge status={item.status} /> },
  { head: "Latency", className: "text-right tabular-nums", cell: (item) => formatLatency(item.latencyMs) },
  {
    head: "Request id",
    cell: (item) => (
      <span className="inline-flex items-center gap-1">
        <code className="max-w-[10rem] truncate font-mono text-xs" title={item.requestId}>
          {item.requestId}
        </code>
        <CopyIconButton value={item.requestId} label={`Copy request id ${item.requestId}`} />
      </span>
    ),
  },
  {
    head: "Client IP",
    cell: (item) => (
      <div className="max-w-[9rem] truncate font-mono text-xs" title={item.clientIp}>
        {item.clientIp}
      </div>
    ),
  },
];

/** Phone layout: one tappable block per request. */
function LogCard({ item }: { item: LogItem }) {
  return (
    <PhoneCard
      head={
        <>
          <HttpStatusBadge status={item.status} />
          <span className="font-mono text-xs font-medium text-slate-700">{item.method}</span>
          <span className="min-w-0 truncate font-mono text-xs text-slate-900">{item.path}</span>
        </>
      }
      meta={
        <>
          <span>{formatIst(item.createdAt, true)}</span>
          <span className="tabular-nums">{formatLatency(item.latencyMs)}</span>
          {item.errorCode && <span>{item.errorCode}</span>}
        </>
      }
      foot={item.requestId}
    />
  );
}

const ROWS: RowsSpec<LogItem> = {
  caption: "API requests, newest first",
  columns: COLUMNS,
  rowKey: logKey,
  href: detailHref,
  card: (item) => <LogCard item={item} />,
};

export const LogsView = withUrlFilters("Loading request logs…", function Logs() {
  const trpc = useTRPC();
  const page = useUrlFilters(logFiltersFromQuery, logFiltersToQuery);
  const logs = useInfiniteQuery(trpc.logs.list.infiniteQueryOptions(page.input, nextPage));
  return (
    <ListPage
      title="Request logs"
      description={`Every REST call made with your ${page.modeName} keys, newest first. Bodies are stored redacted.`}
      page={page}
      filters={FILTERS}
      query={logs}
      loadingLabel="Loading requests…"
      empty={{
        filtered: "No requests match these filters",
        none: `No API calls in ${page.modeName} mode yet`,
        children: (
          <p>
            Calls with your {page.modeName} keys appear here as they happen. Get a key on the{" "}
            <Link href="/dashboard/keys" className="text-brand-600 hover:underline">
              API keys
            </Link>{" "}
            page and see the <ApiDocsLink />.
          </p>
        ),
      }}
      rows={ROWS}
      noun={["request", "requests"]}
    />
  );
});
