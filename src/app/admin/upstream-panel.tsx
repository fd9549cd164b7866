"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge, Card, EmptyState, ErrorState, LoadingState, Notice, formatDateTime } from "@/components/ui";
import { DataTable } from "@/components/dashboard/list-rows";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { formatCount } from "./admin-ui";

type Health = RouterOutputs["admin"]["upstream"];
type FamilyRow = Health["families"][number];

const PROVIDERS: Record<Health["provider"], string> = { none: "none", cashfree: "Cashfree Secure ID" };
const PAYMENT_PROVIDERS: Record<Health["paymentsProvider"], string> = { none: "none", cashfree: "Cashfree Payment Gateway" };

/** 14:05:09 IST: the breaker's pause is seconds long, so the date would only be noise. */
function clock(d: string): string {
  const time = new Date(d).toLocaleTimeString("en-IN", { timeZone: "Asia/Kolkata", hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
  return `${time} IST`;
}

function FamilyStatus({ row, at }: { row: FamilyRow; at: string }) {
  switch (row.status) {
    case "misconfigured":
      return (
        <span>
          <Badge tone="red">Misconfigured</Badge>
          <span className="mt-1 block max-w-xs whitespace-normal text-xs text-red-700">Check the credentials and IP whitelist at the vendor.</span>
        </span>
      );
    case "breaker-open":
      // Past its pause the breaker stays open until a call arrives; that call is the trial.
      return row.retryAt && row.retryAt > at ? (
        <Badge tone="red">Breaker open until {clock(row.retryAt)}</Badge>
      ) : (
        <Badge tone="amber">Breaker open: the next call is a trial</Badge>
      );
    case "breaker-trial":
      return <Badge tone="amber">Breaker half-open: trial call</Badge>;
    case "ok":
      return <Badge tone="green">OK</Badge>;
    case "not-configured":
      return (
        <span>
          <Badge tone="slate">Not configured</Badge>
          <span className="mt-1 block max-w-xs whitespace-normal text-xs text-slate-600">
            LIVE_PAYMENT_PROVIDER is none: live checkout and refunds answer 503 SERVICE_UNAVAILABLE.
          </span>
        </span>
      );
  }
}

const plural = (n: number, noun: string) => `${formatCount(n)} ${noun}${n === 1 ? "" : "s"}`;

const latency = (ms: number | null) => (ms === null ? "—" : `${formatCount(ms)} ms`);

function LastError({ row }: { row: FamilyRow }) {
  if (!row.lastError) return <span className="text-slate-500">—</span>;
  return (
    <span>
      <span className="block break-words">{row.lastError.message}</span>
      <span className="block text-xs text-slate-500">{formatDateTime(row.lastError.at)}</span>
    </span>
  );
}

function FamilyRows({ health }: { health: Health }) {
  return (
    <>
      {/* Phone: one block per family. */}
      <ul className="-mx-4 divide-y divide-slate-100 border-y border-slate-100 md:hidden">
        {health.families.map((f) => (
          <li key={`${f.family}:${f.vendor}`} className="px-4 py-3 text-sm">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <span className="font-medium text-slate-900">
                {f.label} <span className="font-normal text-slate-500">· {f.vendorLabel}</span>
              </span>
              <FamilyStatus row={f} at={health.at} />
            </div>
            <p className="mt-1 text-slate-700">
              {plural(f.callsLast5Min, "call")} · {formatCount(f.failuresLast5Min)} failed · p95 {latency(f.p95LatencyMs)}
            </p>
            {f.lastError && (
              <div className="mt-1 text-slate-700">
                <LastError row={f} />
              </div>
            )}
          </li>
        ))}
      </ul>
      <div className="hidden md:block">
        <DataTable
          caption="Upstream vendors on this server instance"
          rowKey={(f) => `${f.family}:${f.vendor}`}
          rows={health.families}
          columns={[
            { head: "Family", className: "font-medium text-slate-900", cell: (f) => f.label },
            { head: "Vendor", cell: (f) => f.vendorLabel },
            { head: "Status", cell: (f) => <FamilyStatus row={f} at={health.at} /> },
            { head: "Calls (5 min)", cell: (f) => formatCount(f.callsLast5Min) },
            { head: "Failures (5 min)", cell: (f) => formatCount(f.failuresLast5Min) },
            { head: "p95", cell: (f) => latency(f.p95LatencyMs) },
            {
              head: "Last error",
              // The cell's own width and wrapping lose to the table's; its content's hold.
              cell: (f) => (
                <div className="max-w-xs whitespace-normal">
                  <LastError row={f} />
                </div>
              ),
            },
          ]}
        />
      </div>
    </>
  );
}

function UpstreamBody({ health }: { health: Health }) {
  return (
    <div className="space-y-4">
      {!health.liveVerificationConfigured && (
        <Notice tone="warning">
          <span className="font-medium">Live verification is not configured</span> (LIVE_VERIFICATION_PROVIDER is none): live PAN, EPFO and KYC calls answer 503
          SOURCE_UNAVAILABLE. docs/going-live.md says how to connect the vendor.
        </Notice>
      )}
      {health.families.length > 0 ? (
        <FamilyRows health={health} />
      ) : (
        health.liveVerificationConfigured && <EmptyState title="No upstream clients on this server instance yet" />
      )}
    </div>
  );
}

/** The upstream vendors as this server instance sees them, refreshed every 10 seconds. */
export function UpstreamPanel() {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.admin.upstream.queryOptions(), refetchInterval: 10_000 });
  const provider = q.data ? `${PROVIDERS[q.data.provider]}; payments: ${PAYMENT_PROVIDERS[q.data.paymentsProvider]}` : null;
  return (
    <Card
      title="Upstream vendors"
      description={
        <>{provider && <>Provider: {provider}. </>}This server instance only (each instance keeps its own figures), last 5 minutes; refreshes every 10 s.</>
      }
    >
      <div aria-busy={q.isFetching || undefined}>
        {q.isPending ? (
          <LoadingState label="Loading upstream status…" />
        ) : q.isError ? (
          <ErrorState message={errorInfo(q.error).message} onRetry={() => void q.refetch()} />
        ) : (
          <UpstreamBody health={q.data} />
        )}
      </div>
    </Card>
  );
}
