"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { BarChart, LineChart } from "@/components/dashboard/charts";
import { useMode, type Mode } from "@/components/dashboard/mode";
import { Card, CopyButton, ErrorState, LoadingState, PageHeader, cx } from "@/components/ui";
import { formatRupees } from "@/lib/money";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { formatLatency } from "@/components/dashboard/http-status";
import { OnboardingChecklist } from "./onboarding-checklist";

function formatRate(r: number | null): string {
  if (r === null) return "—";
  if (r === 0) return "0%";
  if (r < 0.001) return "<0.1%";
  return `${(r * 100).toFixed(1)}%`;
}

/** "2025-03-12" → "12 Mar", or "12" when short (the date is already an IST day). */
function dayLabel(date: string, isToday: boolean, short = false): string {
  if (isToday) return "Today";
  return new Date(`${date}T00:00:00Z`).toLocaleDateString("en-IN", { day: "numeric", ...(short ? {} : { month: "short" }), timeZone: "UTC" });
}

function Stat({ label, value, sub, className }: { label: string; value: React.ReactNode; sub?: React.ReactNode; className?: string }) {
  return (
    <div className={cx("rounded-lg border border-slate-200 bg-white px-4 py-3", className)}>
      <p className="text-xs font-medium text-slate-500">{label}</p>
      <p className="mt-1 text-2xl font-semibold tabular-nums tracking-tight text-slate-900">{value}</p>
      {sub && <p className="mt-0.5 text-xs text-slate-500">{sub}</p>}
    </div>
  );
}

function GoLiveCard() {
  const trpc = useTRPC();
  const me = useQuery(trpc.account.me.queryOptions());
  if (!me.data || me.data.liveEnabled) return null;
  const requested = me.data.goLiveRequestedAt;
  return (
    <div className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-slate-200 bg-white px-4 py-3">
      <div className="text-sm">
        {requested ? (
          <>
            <p className="font-medium text-slate-900">Go-live requested</p>
            <p className="text-slate-500">
              Requested on {new Date(requested).toLocaleDateString("en-IN", { dateStyle: "medium", timeZone: "Asia/Kolkata" })}; waiting for an operator&apos;s
              approval. Live keys unlock when it is approved.
            </p>
          </>
        ) : (
          <>
            <p className="font-medium text-slate-900">Live mode is locked</p>
            <p className="text-slate-500">Request go-live in Settings when your integration works in sandbox.</p>
          </>
        )}
      </div>
      {!requested && (
        <Link
          href="/dashboard/settings"
          className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-50"
        >
          Go to Settings
        </Link>
      )}
    </div>
  );
}

function GetStarted({ mode }: { mode: Mode }) {
  // The origin is only known in the browser; render a stable placeholder on the server pass.
  const [origin, setOrigin] = useState("https://your-parakh-host");
  useEffect(() => setOrigin(window.location.origin), []);
  const prefix = mode === "live" ? "sk_live_" : "sk_test_";
  const snippet = [
    `curl ${origin}/v1/identity/pan/verify \\`,
    `  -H "Authorization: Bearer ${prefix}…" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"pan":"ABCPK1234F","name":"Arjun Kapoor"}'`,
  ].join("\n");
  return (
    <Card title="Get started" description={`No API calls in ${mode} mode yet. Three steps to your first one:`}>
      <ol className="space-y-4 text-sm text-slate-700">
        <li>
          <span className="font-medium text-slate-900">1. Get a secret key.</span> Secrets are shown once, when a key is created; create one on the{" "}
          <Link href="/dashboard/keys" className="text-brand-600 hover:underline">
            API keys
          </Link>{" "}
          page if you did not keep yours.
        </li>
        <li>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <span>
              <span className="font-medium text-slate-900">2. Make a call</span> from your server, with the secret key in place of{" "}
              <code className="font-mono text-xs">{prefix}…</code>:
            </span>
            <CopyButton value={snippet} label="Copy snippet" />
          </div>
          <pre className="mt-2 overflow-x-auto rounded-md bg-slate-900 px-4 py-3 font-mono text-xs leading-relaxed text-slate-100">
            <code>{snippet}</code>
          </pre>
        </li>
        <li>
          <span className="font-medium text-slate-900">3. Explore.</span> The{" "}
          <Link href="/docs" className="text-brand-600 hover:underline">
            API docs
          </Link>{" "}
          list every endpoint{mode === "sandbox" ? " and the sandbox test values for each outcome" : ""}. Calls show up here and in{" "}
          <Link href="/dashboard/logs" className="text-brand-600 hover:underline">
            Request logs
          </Link>{" "}
          within a second.
        </li>
      </ol>
    </Card>
  );
}

type Stats = RouterOutputs["overview"]["stats"];

/** Today's and the week's calls, errors, latency, KYC calls and the wallet balance. */
function KeyNumbers({ s, modeName }: { s: Stats; modeName: string }) {
  return (
    <section aria-label="Key numbers" className="grid grid-cols-2 gap-3 lg:grid-cols-3">
      <Stat label="Calls today" value={s.today.toLocaleString("en-IN")} sub="since 00:00 IST" />
      <Stat label="Calls, 7 days" value={s.calls.toLocaleString("en-IN")} sub={`${s.errors.toLocaleString("en-IN")} with errors`} />
      <Stat
        label="Error rate, 7 days"
        value={formatRate(s.errorRate)}
        sub={<span className={cx(s.serverErrorRate ? "text-red-700" : undefined)}>5xx: {formatRate(s.serverErrorRate)}</span>}
      />
      <Stat label="Latency p50, 7 days" value={s.exactLatency ? formatLatency(s.p50) : `≈ ${formatLatency(s.p50)}`} sub={`p95: ${formatLatency(s.p95)}`} />
      <Stat
        label="KYC calls today"
        value={s.kyc.today.toLocaleString("en-IN")}
        sub={
          <Link href="/dashboard/kyc" className="hover:text-brand-700 hover:underline">
            {s.kyc.calls.toLocaleString("en-IN")} in 7 days · {formatRupees(s.kyc.feesPaise)} in fees
          </Link>
        }
      />
      <Stat
        label={`${modeName} wallet`}
        value={s.wallet ? formatRupees(s.wallet.balancePaise) : "—"}
        sub={
          s.wallet ? (
            <Link href="/dashboard/wallet" className="hover:text-brand-700 hover:underline">
              balance now
            </Link>
          ) : (
            "no wallet yet"
          )
        }
      />
    </section>
  );
}

/** Calls and latency per IST day, last 7 days. */
function DailyCharts({ s }: { s: Stats }) {
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      <Card title="Calls per day" description="All REST calls; the red part returned 4xx or 5xx.">
        <BarChart
          data={s.days.map((d, i) => ({
            label: dayLabel(d.date, i === s.days.length - 1),
            shortLabel: dayLabel(d.date, i === s.days.length - 1, true),
            value: d.calls,
            part: d.errors,
            title: `${d.date}: ${d.calls} calls, ${d.errors} errors`,
          }))}
          valueLabel="Calls"
          emptyText="No calls in the last 7 days"
          partLabel="Errors (4xx/5xx)"
          summary={`Calls per IST day, last 7 days: ${s.days.map((d) => `${d.date} ${d.calls} calls, ${d.errors} errors`).join("; ")}.`}
        />
      </Card>
      <Card
        title="Latency per day"
        description={s.exactLatency ? "Server time per call." : "Server time per call; busy days are estimated from their latest 10,000 calls."}
      >
        <LineChart
          labels={s.days.map((d, i) => dayLabel(d.date, i === s.days.length - 1))}
          shortLabels={s.days.map((d, i) => dayLabel(d.date, i === s.days.length - 1, true))}
          unit="ms"
          emptyText="No calls in the last 7 days"
          series={[
            { name: "p50", className: "stroke-brand-600 fill-brand-600", swatch: "bg-brand-600", values: s.days.map((d) => d.p50) },
            { name: "p95", className: "stroke-amber-500 fill-amber-500", swatch: "bg-amber-500", values: s.days.map((d) => d.p95) },
          ]}
          summary={`Latency per IST day, last 7 days: ${s.days
            .map((d) => (d.calls ? `${d.date} p50 ${formatLatency(d.p50)}, p95 ${formatLatency(d.p95)}` : `${d.date} no calls`))
            .join("; ")}.`}
        />
      </Card>
    </div>
  );
}

export function OverviewView() {
  const { mode } = useMode();
  const trpc = useTRPC();
  const stats = useQuery(trpc.overview.stats.queryOptions({ mode }, { refetchInterval: 30_000 }));
  const modeName = mode === "live" ? "Live" : "Sandbox";
  const s = stats.data;

  return (
    <>
      <PageHeader title="Overview" description={`${modeName} mode · last 7 days · days are IST (Asia/Kolkata)`} />
      <div className="space-y-6">
        <OnboardingChecklist />
        {mode === "sandbox" && <GoLiveCard />}
        {stats.isLoading ? (
          <LoadingState label="Loading overview…" />
        ) : stats.isError ? (
          <ErrorState message={errorInfo(stats.error).message} onRetry={() => void stats.refetch()} />
        ) : s ? (
          <>
            {!s.hasCalls && <GetStarted mode={mode} />}
            <KeyNumbers s={s} modeName={modeName} />
            <DailyCharts s={s} />
          </>
        ) : null}
      </div>
    </>
  );
}
