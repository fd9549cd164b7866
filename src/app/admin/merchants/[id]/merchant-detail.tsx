"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Badge, Card, CopyButton, EmptyState, ErrorState, LoadingState, Notice, formatDateTime } from "@/components/ui";
import { DataTable } from "@/components/dashboard/list-rows";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { ActivityFeed, GoLiveBadge, StatusBadge, formatCount, formatDate, formatInstant } from "../../admin-ui";
import { MerchantActions } from "./merchant-actions";
import { KycFeesForm, WalletAdjustForm } from "./wallet-actions";

const rupees = new Intl.NumberFormat("en-IN", { style: "currency", currency: "INR" });

function Facts({ rows }: { rows: [string, React.ReactNode][] }) {
  return (
    <dl className="divide-y divide-slate-100 text-sm">
      {rows.map(([label, value]) => (
        <div key={label} className="flex flex-wrap justify-between gap-x-4 gap-y-0.5 py-2 first:pt-0 last:pb-0">
          <dt className="text-slate-500">{label}</dt>
          <dd className="min-w-0 break-words text-right text-slate-900">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function HttpStatus({ status }: { status: number }) {
  return <Badge tone={status >= 500 ? "red" : status >= 400 ? "amber" : "green"}>{status}</Badge>;
}

function ModeBadge({ mode }: { mode: string | null }) {
  return mode === "live" ? <Badge tone="green">live</Badge> : <Badge tone="amber">{mode ?? "—"}</Badge>;
}

function BackLink() {
  return (
    <Link href="/admin" className="mb-4 inline-block text-sm text-brand-700 hover:underline">
      ← All merchants
    </Link>
  );
}

type Merchant = RouterOutputs["admin"]["merchant"];

/** Name, email and id, with the account's status and go-live badges. */
function MerchantHeading({ m }: { m: Merchant }) {
  return (
    <div className="mb-6 flex flex-wrap items-start justify-between gap-3">
      <div className="min-w-0">
        <h1 className="break-words text-xl font-semibold tracking-tight text-slate-900">{m.name}</h1>
        <p className="mt-1 break-all text-sm text-slate-600">{m.email}</p>
        <div className="mt-1 flex flex-wrap items-center gap-2">
          <code className="break-all text-xs text-slate-500">{m.id}</code>
          <CopyButton value={m.id} label="Copy id" />
        </div>
      </div>
      <div className="flex flex-wrap gap-1.5">
        <StatusBadge status={m.status} />
        <GoLiveBadge goLive={m.goLive} />
      </div>
    </div>
  );
}

/** What an operator should see first: a suspension, or a go-live request waiting for review. */
function MerchantNotices({ m }: { m: Merchant }) {
  return (
    <div className="mb-6 space-y-3">
      {m.status === "SUSPENDED" && (
        <Notice tone="error">
          <span className="font-medium">Suspended</span>
          {m.suspension ? ` on ${formatDateTime(m.suspension.at)} by ${m.suspension.by}: ${m.suspension.reason ?? "no reason given"}.` : "."} Every API call is
          refused with <code className="text-xs">MERCHANT_SUSPENDED</code>.
        </Notice>
      )}
      {m.goLive.state === "requested" && (
        <Notice tone="warning">
          <span className="font-medium">Go-live requested on {formatDateTime(m.goLive.requestedAt)}.</span> Check the details here, then approve under Operator
          actions.
        </Notice>
      )}
    </div>
  );
}

/** Profile, go-live, API access, wallets and usage. */
function MerchantFacts({ m }: { m: Merchant }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:col-span-2">
      <Card title="Profile">
        <Facts
          rows={[
            ["Business name", m.name],
            ["Display name", m.displayName ?? "—"],
            ["Support email", m.supportEmail ?? "—"],
            ["Joined", formatDate(m.createdAt)],
            ["Two-factor sign-in", m.totpEnabled ? "On" : "Off"],
            ...(m.lockedUntil
              ? ([
                  [
                    m.lockedClients === 1 ? "Sign-in locked for one address until" : `Sign-in locked for ${m.lockedClients} addresses until`,
                    formatDateTime(m.lockedUntil),
                  ],
                ] as [string, React.ReactNode][])
              : []),
          ]}
        />
      </Card>
      <Card title="Go-live">
        <Facts
          rows={[
            ["State", <GoLiveBadge key="s" goLive={m.goLive} />],
            ["Requested", formatDateTime(m.goLive.requestedAt)],
            ["Approved", formatDateTime(m.goLive.approvedAt)],
          ]}
        />
      </Card>
      <Card title="API access">
        <Facts
          rows={[
            ["Sandbox keys", `${m.keys.sandbox.active} active of ${m.keys.sandbox.total}`],
            ["Live keys", m.goLive.state === "live" ? `${m.keys.live.active} active of ${m.keys.live.total}` : "Not live"],
            ["IP whitelist", `${m.whitelist.entries} ${m.whitelist.entries === 1 ? "entry" : "entries"}`],
            ["Whitelist enforced on", m.whitelist.enforceAll ? "All APIs" : "Payments only"],
          ]}
        />
      </Card>
      <Card title="Wallets and usage">
        <Facts
          rows={[
            ...m.wallets.map((w): [string, React.ReactNode] => [
              `${w.mode === "live" ? "Live" : "Sandbox"} wallet`,
              w.exists ? rupees.format(w.balancePaise / 100) : "Opens at go-live",
            ]),
            ["API calls, last 7 days", formatCount(m.usage.last7Days)],
            ["Sandbox calls, all time", formatCount(m.usage.sandbox)],
            ["Live calls, all time", formatCount(m.usage.live)],
          ]}
        />
      </Card>
    </div>
  );
}

/** The merchant's last API calls, both modes: a list on phones, a table on wide screens. */
function RecentCalls({ calls }: { calls: Merchant["recentCalls"] }) {
  return calls.length === 0 ? (
    <EmptyState title="No API calls yet">Calls appear here once the merchant uses its keys.</EmptyState>
  ) : (
    <>
      <ul className="-mx-4 divide-y divide-slate-100 md:hidden">
        {calls.map((c) => (
          <li key={c.id} className="px-4 py-2.5 text-sm">
            <div className="flex items-center justify-between gap-2">
              <span className="min-w-0 truncate font-mono text-xs text-slate-800" title={c.path}>
                {c.method} {c.path}
              </span>
              <HttpStatus status={c.status} />
            </div>
            <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-500">
              <ModeBadge mode={c.mode} /> {formatInstant(c.createdAt)}
              {c.errorCode && <span className="font-mono">{c.errorCode}</span>}
              {c.vendor && <span>answered by {c.vendor}</span>}
            </p>
          </li>
        ))}
      </ul>
      <div className="hidden md:block">
        <DataTable
          caption="Last 20 API calls"
          rowKey={(c) => c.id}
          rows={calls}
          columns={[
            { head: "Time", cell: (c) => formatInstant(c.createdAt) },
            { head: "Mode", cell: (c) => <ModeBadge mode={c.mode} /> },
            { head: "Method", className: "font-mono text-xs", cell: (c) => c.method },
            { head: "Path", className: "max-w-md truncate font-mono text-xs", cell: (c) => <span title={c.path}>{c.path}</span> },
            {
              head: "Status",
              cell: (c) => (
                <>
                  <HttpStatus status={c.status} />
                  {c.errorCode && <span className="ml-2 font-mono text-xs text-slate-500">{c.errorCode}</span>}
                </>
              ),
            },
            // The live vendor that answered a verification or KYC call (C6); never shown to the merchant.
            { head: "Vendor", className: "text-xs", cell: (c) => c.vendor ?? "—" },
          ]}
        />
      </div>
    </>
  );
}

export function MerchantDetail({ merchantId }: { merchantId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.admin.merchant.queryOptions({ merchantId }, { retry: (n, err) => errorInfo(err).appCode !== "NOT_FOUND" && n < 1 }));

  if (q.isPending) {
    return (
      <div>
        <BackLink />
        <LoadingState label="Loading merchant…" />
      </div>
    );
  }
  if (q.isError) {
    const info = errorInfo(q.error);
    return (
      <div>
        <BackLink />
        {info.appCode === "NOT_FOUND" ? (
          <EmptyState title="No such merchant">There is no merchant with the id {merchantId}.</EmptyState>
        ) : (
          <ErrorState message={info.message} onRetry={() => void q.refetch()} />
        )}
      </div>
    );
  }

  const m = q.data;
  return (
    <div>
      <BackLink />
      <MerchantHeading m={m} />

      <MerchantNotices m={m} />

      <div className="grid gap-4 lg:grid-cols-3">
        <Card title="Operator actions" className="self-start lg:order-last">
          <MerchantActions merchant={m} />
        </Card>

        <MerchantFacts m={m} />
      </div>

      <div className="mt-4 grid items-start gap-4 lg:grid-cols-2">
        <Card title="KYC fees" description="What each charged KYC call costs this merchant.">
          {/* Re-mounted when the saved fees change, so the fields show what is in effect. */}
          <KycFeesForm key={`${m.kycFees.AADHAAR_OTP}:${m.kycFees.PAN}:${m.kycFees.BANK}`} merchant={m} />
        </Card>
        <Card title="Credit / debit wallet" description="A correction or a manual top-up, recorded on the ledger and in the activity log.">
          <WalletAdjustForm merchant={m} />
        </Card>
      </div>

      <Card title="Last 20 API calls" description="Newest first, both modes; a live check names the vendor that answered it." className="mt-4">
        <RecentCalls calls={m.recentCalls} />
      </Card>

      <Card title="Operator history" description="Actions taken on this merchant." className="mt-4">
        <ActivityFeed merchantId={m.id} />
      </Card>
    </div>
  );
}
