"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Badge, Card, CopyButton, EmptyState, ErrorState, LoadingState, PageHeader } from "@/components/ui";
import { useMode } from "@/components/dashboard/mode";
import { errorInfo, useTRPC } from "@/lib/trpc/client";
import { HttpStatusBadge, formatIst, formatLatency } from "../parts";

function BackLink() {
  return (
    <Link href="/dashboard/logs" className="mb-3 inline-flex items-center gap-1 text-sm text-brand-600 hover:underline">
      <span aria-hidden="true">←</span> Request logs
    </Link>
  );
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid gap-1 py-2.5 sm:grid-cols-[10rem_minmax(0,1fr)] sm:gap-4">
      <dt className="text-sm text-slate-500">{label}</dt>
      <dd className="min-w-0 break-words text-sm text-slate-900">{children}</dd>
    </div>
  );
}

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

export function LogDetail({ requestId, id }: { requestId: string; id?: string }) {
  const { mode, liveEnabled } = useMode();
  const trpc = useTRPC();
  const log = useQuery(
    trpc.logs.get.queryOptions(
      { mode, requestId, id },
      { retry: (count, err) => !["NOT_FOUND", "BAD_REQUEST"].includes((err as { data?: { code?: string } }).data?.code ?? "") && count < 1 },
    ),
  );
  const modeName = mode === "live" ? "live" : "sandbox";

  if (log.isLoading) {
    return (
      <>
        <BackLink />
        <LoadingState label="Loading request…" />
      </>
    );
  }
  if (log.isError) {
    const code = (log.error as { data?: { code?: string } }).data?.code;
    return (
      <>
        <BackLink />
        <PageHeader title="Request" />
        {code === "NOT_FOUND" || code === "BAD_REQUEST" ? (
          <EmptyState title={`No request ${requestId} in ${modeName} mode`}>
            <p>
              {liveEnabled
                ? `It may have been made with your ${mode === "live" ? "sandbox" : "live"} keys: switch mode at the top of the page, or `
                : "Check the id, or "}
              <Link href={`/dashboard/logs?requestId=${encodeURIComponent(requestId)}`} className="text-brand-600 hover:underline">
                search the request logs
              </Link>
              .
            </p>
          </EmptyState>
        ) : (
          <ErrorState message={errorInfo(log.error).message} onRetry={() => void log.refetch()} />
        )}
      </>
    );
  }
  const r = log.data!;
  return (
    <>
      <BackLink />
      <PageHeader
        title={`${r.method} ${r.path.split("?")[0]}`}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <HttpStatusBadge status={r.status} />
            {r.errorCode && <Badge tone={r.status >= 500 ? "red" : "amber"}>{r.errorCode}</Badge>}
            <span>{formatIst(r.createdAt)} IST</span>
          </span>
        }
      />
      <div className="space-y-6">
        <Card title="Request">
          <dl className="-my-2.5 divide-y divide-slate-100">
            <Row label="Request id">
              <span className="inline-flex flex-wrap items-center gap-2">
                <code className="break-all font-mono text-[13px]">{r.requestId}</code>
                <CopyButton value={r.requestId} label="Copy" />
              </span>
            </Row>
            <Row label="Time">{formatIst(r.createdAt)} IST</Row>
            <Row label="Method">
              <span className="font-mono text-[13px]">{r.method}</span>
            </Row>
            <Row label="Path">
              <code className="break-all font-mono text-[13px]">{r.path}</code>
            </Row>
            <Row label="Status">
              <span className="inline-flex items-center gap-2">
                <HttpStatusBadge status={r.status} />
                {r.errorCode ? <code className="font-mono text-[13px]">{r.errorCode}</code> : null}
              </span>
            </Row>
            <Row label="Latency">{formatLatency(r.latencyMs)}</Row>
            <Row label="Client IP">
              <span className="font-mono text-[13px]">{r.clientIp}</span>
            </Row>
            <Row label="User agent">
              {r.userAgent ? <span className="break-all font-mono text-[13px]">{r.userAgent}</span> : <span className="text-slate-500">Not sent</span>}
            </Row>
            <Row label="API key">
              {r.apiKey ? (
                <span className="inline-flex flex-wrap items-center gap-2">
                  <span>{r.apiKey.label}</span>
                  <code className="font-mono text-[13px] text-slate-600">{r.apiKey.publicKeyPrefix}</code>
                  {r.apiKey.revoked && <Badge tone="red">Revoked</Badge>}
                </span>
              ) : (
                <span className="text-slate-500">None (the credentials were missing or not valid)</span>
              )}
            </Row>
          </dl>
        </Card>
        {r.sameRequestId.length > 0 && (
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
        )}
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
