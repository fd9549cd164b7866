"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { CsvDownloadButton } from "@/components/dashboard/csv-download-button";
import {
  BackLink,
  HeaderFacts,
  DetailList,
  DetailPending,
  DetailRow,
  IdRow,
  NotFoundHint,
  noValue,
  retryUnlessMissing,
} from "@/components/dashboard/detail-page";
import { useMode } from "@/components/dashboard/mode";
import { WebhookEvents } from "@/components/dashboard/webhook-events";
import { Card, Notice, PageHeader, cx } from "@/components/ui";
import { waitingForSourceText } from "@/lib/batch-waiting";
import { consentLabel } from "@/lib/consent";
import { isBatchRunning } from "@/lib/schemas/batches";
import { useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { formatIst } from "../../logs/parts";
import { BatchProgress, BatchStatusBadge, formatDuration } from "../parts";
import { BatchResults } from "./batch-results";

const back = <BackLink href="/dashboard/batches">Batches</BackLink>;

const n = (v: number) => v.toLocaleString("en-IN");

function useBatchDetail(batchId: string) {
  const { mode } = useMode();
  const trpc = useTRPC();
  return useQuery(
    trpc.batches.detail.queryOptions(
      { mode, batchId },
      {
        retry: retryUnlessMissing,
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

type BatchDetailData = RouterOutputs["batches"]["detail"];
type Batch = BatchDetailData["batch"];

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

/** Why a running batch's progress stands still: items waiting for the source after a temporary error, and until when. */
function WaitingForSource({ waiting }: { waiting: BatchDetailData["waitingForSource"] }) {
  if (!waiting) return null;
  const text = waitingForSourceText(waiting);
  return (
    <div className="mt-4" data-testid="waiting-for-source">
      <Notice tone="warning">
        <p className="font-medium">{text.title}</p>
        <p className="mt-0.5 text-xs">{text.detail}</p>
      </Notice>
    </div>
  );
}

function duration(b: Batch): React.ReactNode {
  if (!b.started_at) return noValue;
  const end = b.completed_at ? Date.parse(b.completed_at) : Date.now();
  const took = formatDuration(end - Date.parse(b.started_at));
  return b.completed_at ? took : `${took} so far`;
}

function BatchWebhooks({ d, onChanged }: { d: BatchDetailData; onChanged: () => unknown }) {
  const event = d.batch.kind === "PAN" ? "pan.batch.completed" : "epfo.batch.completed";
  return (
    <WebhookEvents
      events={d.webhooks}
      onChanged={onChanged}
      breakEventIds
      notSent="Not sent: the batch had no webhook URL and no enabled endpoint was subscribed to this event."
      empty={{
        title: isBatchRunning(d.batch.status) ? "Sent when the batch completes" : "No completion event for this batch",
        children: (
          <>
            <code className="font-mono text-xs">{event}</code> goes to {d.batch.webhook_url ? "this batch's webhook URL and " : ""}the endpoints subscribed to
            it on the{" "}
            <Link href="/dashboard/webhooks" className="text-brand-600 hover:underline">
              Webhooks
            </Link>{" "}
            page.
          </>
        ),
      }}
    />
  );
}

/** The dashboard, or the API with the key and the request that submitted the batch. */
function SubmittedFrom({ source }: { source: BatchDetailData["source"] }) {
  return source.via === "DASHBOARD" ? (
    "The dashboard"
  ) : (
    <span className="inline-flex flex-wrap items-center gap-x-2">
      <span>
        The API
        {source.apiKey && (
          <>
            , key {source.apiKey.label} (<code className="font-mono text-[13px]">{source.apiKey.secretHint}…</code>)
          </>
        )}
      </span>
      {source.requestId && (
        <Link href={`/dashboard/logs/${encodeURIComponent(source.requestId)}`} className="font-mono text-xs text-brand-600 hover:underline">
          {source.requestId}
        </Link>
      )}
    </span>
  );
}

/** The batch's Details card. */
function BatchFacts({ d }: { d: BatchDetailData }) {
  const b = d.batch;
  const { mode } = useMode();
  const running = isBatchRunning(b.status);
  return (
    <Card title="Details">
      <DetailList labelWidth="9rem">
        <IdRow label="Batch id" id={b.batch_id} />
        <DetailRow label="Your reference">{b.client_batch_id ?? noValue}</DetailRow>
        <DetailRow label="Kind">{b.kind === "PAN" ? "PAN verification" : "EPFO verification"}</DetailRow>
        <DetailRow label="Submitted from">
          <SubmittedFrom source={d.source} />
        </DetailRow>
        <DetailRow label="Consent">
          {mode === "sandbox" && d.consent.consent === null ? "Not needed in sandbox" : consentLabel(d.consent.consent, d.consent.source)}
        </DetailRow>
        <DetailRow label="Purpose">{d.consent.purpose ? <span className="[overflow-wrap:anywhere]">{d.consent.purpose}</span> : noValue}</DetailRow>
        <DetailRow label="Webhook URL">{b.webhook_url ? <code className="break-all font-mono text-[13px]">{b.webhook_url}</code> : noValue}</DetailRow>
        <DetailRow label="Created">{formatIst(b.created_at)} IST</DetailRow>
        <DetailRow label="Started">{b.started_at ? `${formatIst(b.started_at)} IST` : running ? "Waiting for a worker" : noValue}</DetailRow>
        <DetailRow label="Completed">{b.completed_at ? `${formatIst(b.completed_at)} IST` : noValue}</DetailRow>
        <DetailRow label="Duration">{duration(b)}</DetailRow>
        <DetailRow label="Mode">
          <span className="capitalize">{mode}</span>
        </DetailRow>
      </DetailList>
    </Card>
  );
}

export function BatchDetail({ batchId }: { batchId: string }) {
  const { mode } = useMode();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const detail = useBatchDetail(batchId);
  const refresh = () => qc.invalidateQueries(trpc.batches.detail.queryFilter({ mode, batchId }));

  if (detail.isLoading || detail.isError || !detail.data) {
    return (
      <DetailPending
        query={detail}
        back={back}
        label="Loading batch…"
        title="Batch"
        notFound={{ title: `No batch ${batchId} in ${mode} mode`, children: <NotFoundHint noun="batch" listHref="/dashboard/batches" /> }}
      />
    );
  }
  const d = detail.data;
  const b = d.batch;
  const running = isBatchRunning(b.status);
  return (
    <>
      {back}
      <PageHeader
        title={`${b.kind} batch`}
        description={
          <HeaderFacts>
            <BatchStatusBadge status={b.status} />
            <span className="break-all font-mono text-xs text-slate-700">{b.batch_id}</span>
            <span>Created {formatIst(b.created_at)} IST</span>
          </HeaderFacts>
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
          <WaitingForSource waiting={d.waitingForSource} />
          <Counts b={b} />
        </Card>
        <BatchFacts d={d} />
        <Card title="Results" description="Every row in the order submitted, rejected rows included. The CSV download has them all with the key result fields.">
          <BatchResults batchId={b.batch_id} running={running} total={b.total} processed={b.processed} succeeded={b.succeeded} failed={b.failed} />
        </Card>
        <Card title="Webhooks" description="The completion event and every delivery attempt.">
          <BatchWebhooks d={d} onChanged={refresh} />
        </Card>
      </div>
    </>
  );
}
