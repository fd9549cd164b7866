"use client";

import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { CsvDownloadButton } from "@/components/dashboard/csv-download-button";
import { useMode } from "@/components/dashboard/mode";
import { Badge, Button, Card, CopyButton, EmptyState, ErrorState, LoadingState, PageHeader, Table, Td, Th, cx } from "@/components/ui";
import { BATCH_RESULTS_PAGE_SIZE, isBatchRunning } from "@/lib/schemas/batches";
import { errorInfo, useTRPC } from "@/lib/trpc/client";
import { formatIst } from "../../logs/parts";
import { DeliveryItem } from "../../webhooks/delivery-item";
import { BatchProgress, BatchStatusBadge, formatDuration, inputSummary } from "../parts";

function BackLink() {
  return (
    <Link href="/dashboard/batches" className="mb-3 inline-flex items-center gap-1 text-sm text-brand-600 hover:underline">
      <span aria-hidden="true">←</span> Batches
    </Link>
  );
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid gap-1 py-2.5 sm:grid-cols-[9rem_minmax(0,1fr)] sm:gap-4">
      <dt className="text-sm text-slate-500">{label}</dt>
      <dd className="min-w-0 break-words text-sm text-slate-900">{children}</dd>
    </div>
  );
}

const none = <span className="text-slate-400">—</span>;
const n = (v: number) => v.toLocaleString("en-IN");
const codeOf = (err: unknown) => (err as { data?: { code?: string } } | null)?.data?.code;

function useDetail(batchId: string) {
  const { mode } = useMode();
  const trpc = useTRPC();
  return useQuery(
    trpc.batches.detail.queryOptions(
      { mode, batchId },
      {
        retry: (count, err) => !["NOT_FOUND", "BAD_REQUEST"].includes(codeOf(err) ?? "") && count < 1,
        // Every second while it runs; then a little longer while its completion event is still on its way.
        refetchInterval: (q) => {
          const d = q.state.data;
          if (!d) return false;
          if (isBatchRunning(d.batch.status)) return 1000;
          return d.webhooks.some((w) => w.deliveries.some((x) => x.status === "PENDING" && x.attemptCount === 0)) ? 3000 : false;
        },
      },
    ),
  );
}

type Detail = NonNullable<ReturnType<typeof useDetail>["data"]>;
type Batch = Detail["batch"];

function Counts({ b }: { b: Batch }) {
  const cells: { label: string; value: number; tone?: string; hint: string }[] = [
    { label: "Total", value: b.total, hint: "Every row submitted" },
    { label: "Accepted", value: b.accepted, hint: "Passed validation" },
    { label: "Rejected", value: b.rejected, tone: b.rejected ? "text-amber-700" : undefined, hint: "Failed validation; counted as failed" },
    { label: "Processed", value: b.processed, hint: "Finished, either way" },
    { label: "Succeeded", value: b.succeeded, tone: "text-green-700", hint: "The source answered (any outcome)" },
    { label: "Failed", value: b.failed, tone: b.failed ? "text-red-700" : undefined, hint: "Rejected, or ended in an error" },
  ];
  return (
    <dl className="mt-4 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
      {cells.map((c) => (
        <div key={c.label} className="rounded-md bg-slate-50 px-3 py-2" title={c.hint}>
          <dt className="text-xs text-slate-500">{c.label}</dt>
          <dd className={cx("text-lg font-semibold tabular-nums text-slate-900", c.tone)} data-testid={`count-${c.label.toLowerCase()}`}>
            {n(c.value)}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function duration(b: Batch): React.ReactNode {
  if (!b.started_at) return none;
  const end = b.completed_at ? Date.parse(b.completed_at) : Date.now();
  const took = formatDuration(end - Date.parse(b.started_at));
  return b.completed_at ? took : `${took} so far`;
}

// ---------------------------------------------------------------------------------------------
// Results

type ResultItem = {
  index: number;
  reference_id: string | null;
  input: unknown;
  result: unknown;
  error: { code: string; message: string } | null;
  status: "PENDING" | "SUCCEEDED" | "FAILED";
};

const OUTCOME_TONES: Record<string, "green" | "amber" | "red" | "slate"> = {
  VALID: "green",
  ACTIVE: "green",
  INVALID: "amber",
  DEACTIVATED: "red",
  DELETED: "red",
  EXITED: "slate",
  INACTIVE: "slate",
};

const str = (o: unknown, k: string): string | null => {
  const v = o && typeof o === "object" ? (o as Record<string, unknown>)[k] : null;
  return typeof v === "string" ? v : null;
};
const num = (o: unknown, k: string): number | null => {
  const v = o && typeof o === "object" ? (o as Record<string, unknown>)[k] : null;
  return typeof v === "number" ? v : null;
};

/** The outcome: the item's status, then for an answer the few fields that matter per kind. */
function Outcome({ item, kind }: { item: ResultItem; kind: "PAN" | "EPFO" }) {
  if (item.status === "PENDING") return <Badge tone="blue">Pending</Badge>;
  if (item.status === "FAILED" || !item.result) return <Badge tone="red">Failed</Badge>;
  const r = item.result;
  const outcome = kind === "PAN" ? str(r, "status") : str(r, "member_status");
  const name = kind === "PAN" ? str(r, "name") : str(r, "member_name");
  const score = kind === "PAN" ? num(r, "name_match") : null;
  const detail = kind === "PAN" ? str(r, "category") : str(r, "employer");
  return (
    <span className="inline-flex max-w-[18rem] flex-col items-start gap-0.5">
      <span className="inline-flex flex-wrap items-center gap-1.5">
        <Badge tone={OUTCOME_TONES[outcome ?? ""] ?? "slate"}>{outcome ?? "Answered"}</Badge>
        {score !== null && <span className="text-xs tabular-nums text-slate-600">name match {score.toFixed(2)}</span>}
      </span>
      {name && <span className="truncate text-xs text-slate-700">{name}</span>}
      {detail && <span className="truncate text-[11px] text-slate-500">{detail}</span>}
    </span>
  );
}

function ErrorCell({ error }: { error: ResultItem["error"] }) {
  if (!error) return none;
  return (
    <div className="min-w-[14rem] max-w-[22rem] whitespace-normal">
      <code className="font-mono text-xs text-slate-800">{error.code}</code>
      <p className="text-xs text-slate-500">{error.message}</p>
    </div>
  );
}

function InputCell({ input }: { input: unknown }) {
  const s = inputSummary(input);
  return (
    <div className="max-w-[16rem]">
      <div className="truncate font-mono text-xs text-slate-900" title={s.primary}>
        {s.primary}
      </div>
      {s.secondary && (
        <div className="truncate text-xs text-slate-500" title={s.secondary}>
          {s.secondary}
        </div>
      )}
    </div>
  );
}

function Results({ batchId, running }: { batchId: string; running: boolean }) {
  const { mode } = useMode();
  const trpc = useTRPC();
  const [page, setPage] = useState(0);
  const size = BATCH_RESULTS_PAGE_SIZE;
  const results = useQuery({
    ...trpc.batches.results.queryOptions(
      { mode, batchId, from: page * size, limit: size },
      {
        // Items on this page still running fill in as their chunk finishes.
        refetchInterval: (q) => (running || q.state.data?.items.some((i) => i.status === "PENDING") ? 1500 : false),
      },
    ),
    placeholderData: keepPreviousData,
  });

  if (results.isLoading) return <LoadingState label="Loading results…" />;
  if (results.isError && !results.data) return <ErrorState message={errorInfo(results.error).message} onRetry={() => void results.refetch()} />;
  const data = results.data!;
  const items = data.items as ResultItem[];
  const first = page * size;
  const pages = Math.max(1, Math.ceil(data.total / size));
  const kind = data.kind;

  return (
    <>
      <div className="hidden lg:block">
        <Table
          caption="Batch results, in submitted order"
          head={
            <tr>
              <Th className="text-right">Index</Th>
              <Th>Reference</Th>
              <Th>Input</Th>
              <Th>Outcome</Th>
              <Th>Error</Th>
            </tr>
          }
        >
          {items.map((i) => (
            <tr key={i.index}>
              <Td className="text-right tabular-nums text-slate-500">{i.index}</Td>
              <Td>
                {i.reference_id ? (
                  <span className="block max-w-[12rem] truncate" title={i.reference_id}>
                    {i.reference_id}
                  </span>
                ) : (
                  none
                )}
              </Td>
              <Td>
                <InputCell input={i.input} />
              </Td>
              <Td>
                <Outcome item={i} kind={kind} />
              </Td>
              <Td>
                <ErrorCell error={i.error} />
              </Td>
            </tr>
          ))}
        </Table>
      </div>
      <ol className="-mx-4 divide-y divide-slate-100 lg:hidden" aria-label="Batch results, in submitted order">
        {items.map((i) => {
          const s = inputSummary(i.input);
          return (
            <li key={i.index} className="px-4 py-3">
              <div className="flex items-start justify-between gap-3">
                <div className="min-w-0">
                  <p className="text-xs text-slate-500">
                    #{i.index}
                    {i.reference_id && <span className="break-all"> · {i.reference_id}</span>}
                  </p>
                  <p className="break-all font-mono text-xs text-slate-900">{s.primary}</p>
                  {s.secondary && <p className="break-words text-xs text-slate-500">{s.secondary}</p>}
                </div>
                <Outcome item={i} kind={kind} />
              </div>
              {i.error && (
                <p className="mt-1 text-xs text-slate-600">
                  <code className="font-mono">{i.error.code}</code> · {i.error.message}
                </p>
              )}
            </li>
          );
        })}
      </ol>
      <nav aria-label="Results pages" className="mt-4 flex flex-wrap items-center justify-between gap-3 border-t border-slate-100 pt-4">
        <p className="text-xs text-slate-500" aria-live="polite">
          Items {n(items.length ? first + 1 : 0)}–{n(first + items.length)} of {n(data.total)} · page {n(page + 1)} of {n(pages)}
        </p>
        <div className="flex gap-2">
          <Button variant="secondary" size="sm" disabled={page === 0} onClick={() => setPage((p) => Math.max(0, p - 1))}>
            Previous
          </Button>
          <Button
            variant="secondary"
            size="sm"
            disabled={data.next === null}
            loading={results.isFetching && results.isPlaceholderData}
            onClick={() => setPage((p) => p + 1)}
          >
            Next
          </Button>
        </div>
      </nav>
    </>
  );
}

// ---------------------------------------------------------------------------------------------

function Webhooks({ d, refresh }: { d: Detail; refresh: () => unknown }) {
  const event = d.batch.kind === "PAN" ? "pan.batch.completed" : "epfo.batch.completed";
  if (d.webhooks.length === 0) {
    return (
      <EmptyState title={isBatchRunning(d.batch.status) ? "Sent when the batch completes" : "No completion event for this batch"}>
        <code className="font-mono text-xs">{event}</code> goes to {d.batch.webhook_url ? "this batch's webhook URL and " : ""}the endpoints subscribed to it on
        the{" "}
        <Link href="/dashboard/webhooks" className="text-brand-600 hover:underline">
          Webhooks
        </Link>{" "}
        page.
      </EmptyState>
    );
  }
  return (
    <div className="space-y-4">
      {d.webhooks.map((w) => (
        <section key={w.eventId} aria-label={`${w.type} event`}>
          <h3 className="flex flex-wrap items-baseline gap-x-2 text-sm">
            <code className="font-mono font-medium text-slate-900">{w.type}</code>
            <span className="break-all font-mono text-xs text-slate-500">{w.eventId}</span>
            <span className="text-xs text-slate-500">{formatIst(w.createdAt, true)}</span>
          </h3>
          {w.deliveries.length === 0 ? (
            <p className="mt-1 text-sm text-slate-500">Not sent: the batch had no webhook URL and no enabled endpoint was subscribed to this event.</p>
          ) : (
            <ul className="-mx-4 mt-2 divide-y divide-slate-100 border-y border-slate-100 sm:mx-0 sm:rounded-md sm:border">
              {w.deliveries.map((x) => (
                <DeliveryItem key={x.id} d={x} onChanged={refresh} grouped />
              ))}
            </ul>
          )}
        </section>
      ))}
      {d.webhooks.some((w) => w.deliveries.length > 0) && (
        <p className="text-xs text-slate-500">
          Resend sends the same event (same id and body) again; your endpoint should ignore event ids it has already handled.
        </p>
      )}
    </div>
  );
}

export function BatchDetail({ batchId }: { batchId: string }) {
  const { mode, liveEnabled } = useMode();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const detail = useDetail(batchId);
  const refresh = () => qc.invalidateQueries(trpc.batches.detail.queryFilter({ mode, batchId }));

  if (detail.isLoading) {
    return (
      <>
        <BackLink />
        <LoadingState label="Loading batch…" />
      </>
    );
  }
  if (detail.isError || !detail.data) {
    const code = codeOf(detail.error);
    return (
      <>
        <BackLink />
        <PageHeader title="Batch" />
        {code === "NOT_FOUND" || code === "BAD_REQUEST" ? (
          <EmptyState title={`No batch ${batchId} in ${mode} mode`}>
            <p>
              {liveEnabled ? `It may be a ${mode === "live" ? "sandbox" : "live"} batch: switch mode at the top of the page, or ` : "Check the id, or "}
              <Link href="/dashboard/batches" className="text-brand-600 hover:underline">
                go back to the list
              </Link>
              .
            </p>
          </EmptyState>
        ) : (
          <ErrorState message={errorInfo(detail.error).message} onRetry={() => void detail.refetch()} />
        )}
      </>
    );
  }
  const d = detail.data;
  const b = d.batch;
  const running = isBatchRunning(b.status);
  return (
    <>
      <BackLink />
      <PageHeader
        title={`${b.kind} batch`}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <BatchStatusBadge status={b.status} />
            <span className="break-all font-mono text-xs text-slate-700">{b.batch_id}</span>
            <span>Created {formatIst(b.created_at)} IST</span>
          </span>
        }
        actions={
          <CsvDownloadButton
            url={`/api/dashboard/batches/${encodeURIComponent(b.batch_id)}/export?mode=${mode}`}
            fallbackName={`${b.batch_id}-results.csv`}
            label="Download results (CSV)"
          />
        }
      />
      <div className="space-y-6">
        <Card title="Progress" description={running ? "Updates every second while the batch runs." : undefined}>
          <BatchProgress b={b} />
          <Counts b={b} />
        </Card>
        <Card title="Details">
          <dl className="-my-2.5 divide-y divide-slate-100">
            <Row label="Batch id">
              <span className="inline-flex flex-wrap items-center gap-2">
                <code className="break-all font-mono text-[13px]">{b.batch_id}</code>
                <CopyButton value={b.batch_id} label="Copy" />
              </span>
            </Row>
            <Row label="Your reference">{b.client_batch_id ?? none}</Row>
            <Row label="Kind">{b.kind === "PAN" ? "PAN verification" : "EPFO verification"}</Row>
            <Row label="Submitted from">
              {d.source.via === "DASHBOARD" ? (
                "The dashboard"
              ) : (
                <span className="inline-flex flex-wrap items-center gap-x-2">
                  <span>
                    The API
                    {d.source.apiKey && (
                      <>
                        , key {d.source.apiKey.label} (<code className="font-mono text-[13px]">{d.source.apiKey.secretHint}…</code>)
                      </>
                    )}
                  </span>
                  {d.source.requestId && (
                    <Link href={`/dashboard/logs/${encodeURIComponent(d.source.requestId)}`} className="font-mono text-xs text-brand-600 hover:underline">
                      {d.source.requestId}
                    </Link>
                  )}
                </span>
              )}
            </Row>
            <Row label="Webhook URL">{b.webhook_url ? <code className="break-all font-mono text-[13px]">{b.webhook_url}</code> : none}</Row>
            <Row label="Created">{formatIst(b.created_at)} IST</Row>
            <Row label="Started">{b.started_at ? `${formatIst(b.started_at)} IST` : running ? "Waiting for a worker" : none}</Row>
            <Row label="Completed">{b.completed_at ? `${formatIst(b.completed_at)} IST` : none}</Row>
            <Row label="Duration">{duration(b)}</Row>
            <Row label="Mode">
              <span className="capitalize">{mode}</span>
            </Row>
          </dl>
        </Card>
        <Card title="Results" description="Every row in the order submitted, rejected rows included. The CSV download has them all with the key result fields.">
          <Results batchId={b.batch_id} running={running} />
        </Card>
        <Card title="Webhooks" description="The completion event and every delivery attempt.">
          <Webhooks d={d} refresh={refresh} />
        </Card>
      </div>
    </>
  );
}
