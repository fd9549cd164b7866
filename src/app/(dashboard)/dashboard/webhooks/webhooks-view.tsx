"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { Badge, Button, Card, EmptyState, ErrorState, LoadingState, PageHeader, cx, useToast } from "@/components/ui";
import { useMode } from "@/components/dashboard/mode";
import { PAGE_SIZE } from "@/lib/schemas/logs";
import { ALL_EVENTS, WEBHOOK_DELIVERY_STATUSES } from "@/lib/schemas/webhooks";
import { ConfirmDialog } from "@/components/dashboard/confirm-dialog";
import { errorInfo, useTRPC } from "@/components/trpc/client";
import { formatIst } from "../logs/parts";
import { SelectField } from "@/components/dashboard/filter-fields";
import { DeliveryItem, DeliveryStatusBadge } from "@/components/dashboard/delivery-item";
import { EndpointDialog, type Endpoint } from "./endpoint-dialog";
import { VerifyHelp } from "./verify-help";

function useRefreshWebhooks() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  return () => Promise.all([qc.invalidateQueries(trpc.webhooks.list.queryFilter()), qc.invalidateQueries(trpc.webhooks.deliveries.infiniteQueryFilter())]);
}

function EnabledSwitch({ endpoint }: { endpoint: Endpoint }) {
  const trpc = useTRPC();
  const toast = useToast();
  const { mode } = useMode();
  const refresh = useRefreshWebhooks();
  const update = useMutation(trpc.webhooks.update.mutationOptions());
  return (
    <div className="flex items-center gap-2">
      <span aria-hidden="true" className="text-xs text-slate-600">
        {endpoint.enabled ? "Enabled" : "Disabled"}
      </span>
      <button
        type="button"
        role="switch"
        aria-checked={endpoint.enabled}
        aria-label={`Send events to ${endpoint.url}`}
        disabled={update.isPending}
        onClick={async () => {
          const enabled = !endpoint.enabled;
          try {
            await update.mutateAsync({ mode, endpointId: endpoint.id, enabled });
            await refresh();
            toast("success", enabled ? `Events go to ${endpoint.url} again.` : `Paused: new events are not sent to ${endpoint.url}.`);
          } catch (err) {
            toast("error", errorInfo(err).message);
          }
        }}
        className={cx(
          "relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors disabled:opacity-60",
          endpoint.enabled ? "bg-brand-600" : "bg-slate-300",
        )}
      >
        <span
          className={cx("inline-block h-5 w-5 rounded-full bg-white shadow transition-transform", endpoint.enabled ? "translate-x-5" : "translate-x-0.5")}
        />
      </button>
    </div>
  );
}

function EndpointItem({ e, onEdit, onDelete, onShowDeliveries }: { e: Endpoint; onEdit: () => void; onDelete: () => void; onShowDeliveries: () => void }) {
  const trpc = useTRPC();
  const toast = useToast();
  const { mode } = useMode();
  const refresh = useRefreshWebhooks();
  const sendTest = useMutation(trpc.webhooks.sendTest.mutationOptions());
  const last = e.lastDelivery;
  return (
    <li className="px-4 py-4 sm:px-5">
      <div className="flex items-start justify-between gap-4">
        <div className="min-w-0 flex-1">
          <code className={cx("block break-all font-mono text-sm font-medium", e.enabled ? "text-slate-900" : "text-slate-500")}>{e.url}</code>
          {e.description && <p className="mt-0.5 text-sm text-slate-600">{e.description}</p>}
          <div className="mt-2 flex flex-wrap gap-1.5" aria-label="Subscribed events">
            {e.events.includes(ALL_EVENTS) ? (
              <Badge tone="blue">All events</Badge>
            ) : (
              e.events.map((t) => (
                <Badge key={t}>
                  <span className="font-mono">{t}</span>
                </Badge>
              ))
            )}
          </div>
          <p className="mt-2 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-500">
            {last ? (
              <>
                <span>Last delivery:</span>
                <DeliveryStatusBadge status={last.status} attemptCount={last.attemptCount} />
                <span className="font-mono">{last.eventType}</span>
                {last.lastStatusCode !== null && <span>HTTP {last.lastStatusCode}</span>}
                <span>{formatIst(last.createdAt, true)}</span>
              </>
            ) : (
              <span>No deliveries yet.</span>
            )}
            <span className="basis-full sm:basis-auto">
              Last 7 days: {e.stats.delivered} delivered, {e.stats.failed} failed{e.stats.pending ? `, ${e.stats.pending} pending` : ""}
            </span>
          </p>
        </div>
        <EnabledSwitch endpoint={e} />
      </div>
      <div className="mt-3 flex flex-wrap gap-2">
        <Button
          variant="secondary"
          size="sm"
          loading={sendTest.isPending}
          onClick={async () => {
            try {
              await sendTest.mutateAsync({ mode, endpointId: e.id });
              toast("success", `Test event sent to ${e.url}. Its result appears under Deliveries.`);
              await refresh();
            } catch (err) {
              toast("error", errorInfo(err).message);
            }
          }}
        >
          Send test event
        </Button>
        <Button variant="secondary" size="sm" onClick={onEdit} aria-label={`Edit ${e.url}`}>
          Edit
        </Button>
        <Button variant="ghost" size="sm" onClick={onShowDeliveries} aria-label={`Show deliveries to ${e.url}`}>
          Deliveries
        </Button>
        <Button variant="ghost" size="sm" className="text-red-700 hover:bg-red-50" onClick={onDelete} aria-label={`Delete ${e.url}`}>
          Delete
        </Button>
      </div>
    </li>
  );
}

function DeleteDialog({ target, onClose }: { target: Endpoint | null; onClose: () => void }) {
  const trpc = useTRPC();
  const toast = useToast();
  const { mode } = useMode();
  const refresh = useRefreshWebhooks();
  const remove = useMutation(trpc.webhooks.delete.mutationOptions());
  return (
    <ConfirmDialog
      target={target}
      title="Delete endpoint"
      confirmLabel="Delete endpoint"
      pending={remove.isPending}
      onClose={onClose}
      onFailed={() => void refresh()}
      onConfirm={async (t, close) => {
        const r = await remove.mutateAsync({ mode, endpointId: t.id });
        close();
        void refresh();
        toast(
          "success",
          `Endpoint deleted${r.stoppedDeliveries ? `; ${r.stoppedDeliveries} pending ${r.stoppedDeliveries === 1 ? "delivery" : "deliveries"} stopped` : ""}.`,
        );
      }}
    >
      {(t) => (
        <p className="text-sm text-slate-600">
          Delete <code className="break-all font-mono text-slate-900">{t.url}</code>? No more events are sent to it and its pending retries stop. Its delivery
          history stays listed. To pause it instead, switch it off.
        </p>
      )}
    </ConfirmDialog>
  );
}

const STATUS_OPTIONS = [
  { value: "", label: "Any status" },
  ...WEBHOOK_DELIVERY_STATUSES.map((s) => ({ value: s, label: s === "PENDING" ? "Pending (queued or retrying)" : s === "DELIVERED" ? "Delivered" : "Failed" })),
];

/** Deliveries to one endpoint or all, in one status or any, a page at a time; polled while one is queued. */
function useDeliveries(endpointFilter: string, status: string) {
  const trpc = useTRPC();
  const { mode } = useMode();
  const input = {
    mode,
    limit: PAGE_SIZE,
    ...(endpointFilter ? { endpointId: endpointFilter } : {}),
    ...(status ? { status: status as (typeof WEBHOOK_DELIVERY_STATUSES)[number] } : {}),
  };
  const deliveries = useInfiniteQuery(
    trpc.webhooks.deliveries.infiniteQueryOptions(input, {
      getNextPageParam: (last) => last.nextCursor ?? undefined,
      // A queued delivery is attempted within a second or so: show its result without a reload.
      refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((d) => d.status === "PENDING" && d.attemptCount === 0)) ? 1500 : false),
    }),
  );
  return deliveries;
}

function NoDeliveries({ filtered, hasEndpoints, onClear }: { filtered: boolean; hasEndpoints: boolean; onClear: () => void }) {
  return filtered ? (
    <EmptyState title="No deliveries match these filters">
      <Button variant="secondary" className="mt-3" onClick={onClear}>
        Clear filters
      </Button>
    </EmptyState>
  ) : (
    <EmptyState title="No deliveries yet">
      {hasEndpoints ? "Send a test event to an endpoint, or make a payment: each event sent shows up here." : "Add an endpoint, then send it a test event."}
    </EmptyState>
  );
}

/** How many are shown, and Load more while there are more. */
function DeliveriesFooter({ count, query }: { count: number; query: ReturnType<typeof useDeliveries> }) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3 border-t border-slate-100 px-4 py-3 sm:px-5">
      <p className="text-xs text-slate-500" aria-live="polite">
        {count} {count === 1 ? "delivery" : "deliveries"} shown{query.hasNextPage ? "" : " · end of results"}
      </p>
      {query.isFetchNextPageError ? (
        <ErrorState message={errorInfo(query.error).message} onRetry={() => void query.fetchNextPage()} />
      ) : (
        query.hasNextPage && (
          <Button variant="secondary" loading={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
            Load more
          </Button>
        )
      )}
    </div>
  );
}

function Deliveries({
  endpoints,
  endpointFilter,
  setEndpointFilter,
  headingRef,
}: {
  endpoints: Endpoint[];
  endpointFilter: string;
  setEndpointFilter: (v: string) => void;
  headingRef: React.RefObject<HTMLHeadingElement | null>;
}) {
  const refresh = useRefreshWebhooks();
  const [status, setStatus] = useState("");
  const deliveries = useDeliveries(endpointFilter, status);
  const items = deliveries.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = Boolean(endpointFilter || status);
  const endpointOptions = [
    { value: "", label: "All endpoints" },
    ...endpoints.map((e) => ({ value: e.id, label: e.description ? `${e.description} (${e.url})` : e.url })),
  ];

  return (
    <section className="rounded-lg border border-slate-200 bg-white" aria-labelledby="deliveries-heading">
      <header className="flex flex-wrap items-end justify-between gap-3 border-b border-slate-100 px-4 py-3 sm:px-5">
        <div>
          <h2 id="deliveries-heading" ref={headingRef} tabIndex={-1} className="text-sm font-semibold text-slate-900 outline-none">
            Deliveries
          </h2>
          <p className="mt-0.5 text-sm text-slate-500">Every event sent to your endpoints, newest first, with each attempt.</p>
        </div>
        <Button
          variant="secondary"
          size="sm"
          onClick={() => void deliveries.refetch()}
          loading={deliveries.isRefetching && !deliveries.isFetchingNextPage}
          disabled={deliveries.isLoading}
        >
          Refresh
        </Button>
      </header>
      {/* Nothing to filter before the first endpoint exists. */}
      {(endpoints.length > 0 || items.length > 0 || filtered) && (
        <div className="grid gap-3 border-b border-slate-100 px-4 py-3 sm:grid-cols-2 sm:px-5">
          <SelectField label="Endpoint" name="endpoint" value={endpointFilter} onChange={setEndpointFilter} options={endpointOptions} />
          <SelectField label="Status" name="status" value={status} onChange={setStatus} options={STATUS_OPTIONS} />
        </div>
      )}
      {deliveries.isLoading ? (
        <div className="px-4 sm:px-5">
          <LoadingState label="Loading deliveries…" />
        </div>
      ) : deliveries.isError && !deliveries.data ? (
        <div className="p-4 sm:px-5">
          <ErrorState message={errorInfo(deliveries.error).message} onRetry={() => void deliveries.refetch()} />
        </div>
      ) : items.length === 0 ? (
        <div className="p-4 sm:px-5">
          <NoDeliveries
            filtered={filtered}
            hasEndpoints={endpoints.length > 0}
            onClear={() => {
              setStatus("");
              setEndpointFilter("");
            }}
          />
        </div>
      ) : (
        <>
          <ul className="divide-y divide-slate-100">
            {items.map((d) => (
              <DeliveryItem key={d.id} d={d} onChanged={refresh} />
            ))}
          </ul>
          <DeliveriesFooter count={items.length} query={deliveries} />
        </>
      )}
    </section>
  );
}

export function WebhooksView() {
  const trpc = useTRPC();
  const { mode } = useMode();
  const refresh = useRefreshWebhooks();
  const list = useQuery(
    trpc.webhooks.list.queryOptions(
      { mode },
      // A test event is attempted within a second or so: show its result on the endpoint without a reload.
      {
        refetchInterval: (q) => (q.state.data?.endpoints.some((e) => e.lastDelivery?.status === "PENDING" && e.lastDelivery.attemptCount === 0) ? 1500 : false),
      },
    ),
  );
  const [editing, setEditing] = useState<Endpoint | null>(null);
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Endpoint | null>(null);
  const deliveriesHeading = useRef<HTMLHeadingElement>(null);
  const endpoints = list.data?.endpoints ?? [];
  // The endpoint filter applies only while that endpoint is listed (same mode, not deleted).
  const [filter, setEndpointFilter] = useState("");
  const endpointFilter = endpoints.some((e) => e.id === filter) ? filter : "";
  const full = list.data ? endpoints.length >= list.data.maxEndpoints : false;
  const closeForm = () => {
    setAdding(false);
    setEditing(null);
    void refresh();
  };

  return (
    <>
      <PageHeader
        title="Webhooks"
        description={`Endpoints that receive ${mode} events, signed with your ${mode} signing secret.`}
        actions={
          <Button
            onClick={() => setAdding(true)}
            disabled={!list.data || full}
            title={full ? `At most ${list.data?.maxEndpoints} endpoints per mode` : undefined}
          >
            Add endpoint
          </Button>
        }
      />
      <div className="space-y-6">
        <Card title="Endpoints" description={list.data ? `${endpoints.length} of ${list.data.maxEndpoints} in ${mode} mode.` : undefined}>
          {list.isLoading ? (
            <LoadingState label="Loading endpoints…" />
          ) : list.isError ? (
            <ErrorState message={errorInfo(list.error).message} onRetry={() => void list.refetch()} />
          ) : endpoints.length === 0 ? (
            <EmptyState title={`No ${mode} endpoints yet`}>
              <p>Add a URL on your server to be told when payments succeed, fail, expire or are cancelled, and when batches finish.</p>
              <Button className="mt-3" onClick={() => setAdding(true)}>
                Add endpoint
              </Button>
            </EmptyState>
          ) : (
            <ul className="-mx-4 -my-4 divide-y divide-slate-100 sm:-mx-5">
              {endpoints.map((e) => (
                <EndpointItem
                  key={e.id}
                  e={e}
                  onEdit={() => setEditing(e)}
                  onDelete={() => setDeleting(e)}
                  onShowDeliveries={() => {
                    setEndpointFilter(e.id);
                    deliveriesHeading.current?.scrollIntoView({ behavior: "smooth", block: "start" });
                    deliveriesHeading.current?.focus({ preventScroll: true });
                  }}
                />
              ))}
            </ul>
          )}
        </Card>
        <Deliveries endpoints={endpoints} endpointFilter={endpointFilter} setEndpointFilter={setEndpointFilter} headingRef={deliveriesHeading} />
        <VerifyHelp />
      </div>
      <EndpointDialog open={adding || editing !== null} endpoint={editing} onClose={closeForm} />
      <DeleteDialog target={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
