"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { BackLink, HeaderFacts, DetailList, DetailPending, DetailRow, IdRow, retryUnlessMissing } from "@/components/dashboard/detail-page";
import { Badge, Card, CopyButton, PageHeader } from "@/components/ui";
import { useMode } from "@/components/dashboard/mode";
import { useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { formatIst } from "../parts";
import { HttpStatusBadge, formatLatency } from "@/components/dashboard/http-status";

const back = <BackLink href="/dashboard/logs">Request logs</BackLink>;

function Body({ title, body }: { title: string; body: string | null }) {
  return (
    <Card title={title} actions={body ? <CopyButton value={body} label="Copy" /> : undefined}>
      {body === null ? (
        <p className="text-sm text-slate-500">No body.</p>
      ) : (
        <pre className="max-h-[32rem] overflow-auto whitespace-pre-wrap rounded-md bg-slate-900 px-4 py-3 font-mono text-xs leading-relaxed text-slate-100 [overflow-wrap:anywhere]">
          <code>{body}</code>
        </pre>
      )}
    </Card>
  );
}

type LogEntry = RouterOutputs["logs"]["get"];

/** The Request card: id, time, method and path, status, latency, caller and key. */
function RequestFacts({ r }: { r: LogEntry }) {
  return (
    <Card title="Request">
      <DetailList labelWidth="10rem">
        <IdRow label="Request id" id={r.requestId} />
        <DetailRow label="Time">{formatIst(r.createdAt)} IST</DetailRow>
        <DetailRow label="Method">
          <span className="font-mono text-[13px]">{r.method}</span>
        </DetailRow>
        <DetailRow label="Path">
          <code className="break-all font-mono text-[13px]">{r.path}</code>
        </DetailRow>
        <DetailRow label="Status">
          <span className="inline-flex items-center gap-2">
            <HttpStatusBadge status={r.status} />
            {r.errorCode ? <code className="font-mono text-[13px]">{r.errorCode}</code> : null}
          </span>
        </DetailRow>
        <DetailRow label="Latency">{formatLatency(r.latencyMs)}</DetailRow>
        <DetailRow label="Client IP">
          <span className="font-mono text-[13px]">{r.clientIp}</span>
        </DetailRow>
        <DetailRow label="User agent">
          {r.userAgent ? <span className="break-all font-mono text-[13px]">{r.userAgent}</span> : <span className="text-slate-500">Not sent</span>}
        </DetailRow>
        <DetailRow label="API key">
          {r.apiKey ? (
            <span className="inline-flex flex-wrap items-center gap-2">
              <span>{r.apiKey.label}</span>
              <code className="font-mono text-[13px] text-slate-600">{r.apiKey.publicKeyPrefix}</code>
              {r.apiKey.revoked && <Badge tone="red">Revoked</Badge>}
            </span>
          ) : (
            <span className="text-slate-500">None (the credentials were missing or not valid)</span>
          )}
        </DetailRow>
      </DetailList>
    </Card>
  );
}

/** Other calls your client sent with the same X-Request-Id, each a link to its own page. */
function SameRequestIdCard({ r }: { r: LogEntry }) {
  if (r.sameRequestId.length === 0) return null;
  return (
    <Card title="Other requests with this id" description="Your client sent the same X-Request-Id more than once.">
      <ul className="space-y-1 text-sm">
        {r.sameRequestId.map((o) => (
          <li key={o.id}>
            <Link
              href={`/dashboard/logs/${encodeURIComponent(r.requestId)}?id=${encodeURIComponent(o.id)}`}
              className="inline-flex flex-wrap items-center gap-2 text-brand-600 hover:underline"
            >
              <span>{formatIst(o.createdAt)}</span>
              <span className="font-mono text-xs">
                {o.method} {o.path}
              </span>
              <HttpStatusBadge status={o.status} />
            </Link>
          </li>
        ))}
      </ul>
    </Card>
  );
}

export function LogDetail({ requestId, id }: { requestId: string; id?: string }) {
  const { mode, liveEnabled } = useMode();
  const trpc = useTRPC();
  const log = useQuery(trpc.logs.get.queryOptions({ mode, requestId, id }, { retry: retryUnlessMissing }));
  const modeName = mode === "live" ? "live" : "sandbox";

  if (log.isLoading || log.isError) {
    return (
      <DetailPending
        query={log}
        back={back}
        label="Loading request…"
        title="Request"
        notFound={{
          title: `No request ${requestId} in ${modeName} mode`,
          children: (
            <p>
              {liveEnabled
                ? `It may have been made with your ${mode === "live" ? "sandbox" : "live"} keys: switch mode at the top of the page, or `
                : "Check the id, or "}
              <Link href={`/dashboard/logs?requestId=${encodeURIComponent(requestId)}`} className="text-brand-600 hover:underline">
                search the request logs
              </Link>
              .
            </p>
          ),
        }}
      />
    );
  }
  const r = log.data!;
  return (
    <>
      {back}
      <PageHeader
        title={`${r.method} ${r.path.split("?")[0]}`}
        description={
          <HeaderFacts>
            <HttpStatusBadge status={r.status} />
            {r.errorCode && <Badge tone={r.status >= 500 ? "red" : "amber"}>{r.errorCode}</Badge>}
            <span>{formatIst(r.createdAt)} IST</span>
          </HeaderFacts>
        }
      />
      <div className="space-y-6">
        <RequestFacts r={r} />
        <SameRequestIdCard r={r} />
        <p className="text-xs text-slate-500">
          Bodies are shown as stored: secrets, OTPs, Aadhaar numbers, photos, addresses and card details are redacted before anything is written. Request
          headers are not stored.
        </p>
        <div className="grid items-start gap-6 xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
          <Body title="Request body" body={r.requestBody} />
          <Body title="Response body" body={r.responseBody} />
        </div>
      </div>
    </>
  );
}
