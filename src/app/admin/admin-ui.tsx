"use client";

import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { Badge, Button, EmptyState, ErrorState, LoadingState, formatDateTime } from "@/components/ui";
import { DataTable, type Column } from "@/components/dashboard/list-rows";
import { formatIst } from "@/lib/ist";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";

// Pieces the operator pages share: status and go-live badges, usage figures and the activity feed.

/** Refetches every operator query: lists, a merchant's detail and the activity feed all change with any action. */
export function useRefreshAdmin() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: trpc.admin.pathKey() });
}

export type GoLive = { state: "sandbox" | "requested" | "live"; requestedAt: string | null; approvedAt: string | null };

export function formatDate(d: string | null | undefined): string {
  if (!d) return "—";
  return new Date(d).toLocaleDateString("en-IN", { dateStyle: "medium", timeZone: "Asia/Kolkata" });
}

/** Audit-style timestamps: to the second, since several actions often share a minute; IST like the dashboard. */
export function formatInstant(d: string | null | undefined): string {
  if (!d) return "—";
  return `${formatIst(d)} IST`;
}

const count = new Intl.NumberFormat("en-IN");
export const formatCount = (n: number) => count.format(n);

export function StatusBadge({ status }: { status: "ACTIVE" | "SUSPENDED" }) {
  return status === "SUSPENDED" ? <Badge tone="red">Suspended</Badge> : <Badge tone="green">Active</Badge>;
}

export function GoLiveBadge({ goLive }: { goLive: GoLive }) {
  if (goLive.state === "live") return <Badge tone="blue">Live since {formatDate(goLive.approvedAt)}</Badge>;
  if (goLive.state === "requested") return <Badge tone="amber">Go-live requested {formatDate(goLive.requestedAt)}</Badge>;
  return <Badge>Sandbox only</Badge>;
}

const ACTIONS: Record<string, { label: string; tone: "green" | "red" | "blue" | "slate" }> = {
  APPROVE_GO_LIVE: { label: "Approved go-live", tone: "green" },
  SUSPEND: { label: "Suspended", tone: "red" },
  REINSTATE: { label: "Reinstated", tone: "blue" },
  WALLET_CREDIT: { label: "Wallet credit", tone: "green" },
  WALLET_DEBIT: { label: "Wallet debit", tone: "red" },
  KYC_FEES: { label: "KYC fees", tone: "slate" },
};

function ActionBadge({ action }: { action: string }) {
  const a = ACTIONS[action] ?? { label: action, tone: "slate" as const };
  return <Badge tone={a.tone}>{a.label}</Badge>;
}

/** "Requested 2026-01-05T…" reads better with the date formatted. */
function readableDetails(details: string | null): string {
  if (!details) return "—";
  const requested = /^Requested (\d{4}-\d\d-\d\dT[\d:.]+Z)$/.exec(details);
  return requested ? `Requested ${formatDateTime(requested[1])}` : details;
}

type Activity = RouterOutputs["admin"]["actions"]["items"][number];

/** Wide screens: one row per action; the Merchant column only on the all-merchants feed. */
function ActivityTable({ items, merchantId }: { items: Activity[]; merchantId?: string }) {
  const merchantColumn: Column<Activity> = {
    head: "Merchant",
    cell: (a) =>
      a.merchantId ? (
        <Link href={`/admin/merchants/${a.merchantId}`} className="font-medium text-brand-700 hover:underline">
          {a.merchantName ?? a.merchantId}
        </Link>
      ) : (
        "—"
      ),
  };
  return (
    <div className="hidden md:block">
      <DataTable
        caption="Operator actions"
        rowKey={(a) => a.id}
        rows={items}
        columns={[
          { head: "When", cell: (a) => formatInstant(a.createdAt) },
          { head: "Action", cell: (a) => <ActionBadge action={a.action} /> },
          ...(merchantId ? [] : [merchantColumn]),
          { head: "Operator", cell: (a) => a.adminEmail },
          { head: "Details", className: "max-w-sm whitespace-normal break-words", cell: (a) => readableDetails(a.details) },
        ]}
      />
    </div>
  );
}

/** Every operator action, newest first; all merchants, or one when `merchantId` is given. */
export function ActivityFeed({ merchantId }: { merchantId?: string }) {
  const trpc = useTRPC();
  const q = useInfiniteQuery(trpc.admin.actions.infiniteQueryOptions(merchantId ? { merchantId } : {}, { getNextPageParam: (last) => last.nextCursor }));
  if (q.isPending) return <LoadingState label="Loading activity…" />;
  if (q.isError) return <ErrorState message={errorInfo(q.error).message} onRetry={() => void q.refetch()} />;
  const items = q.data.pages.flatMap((p) => p.items);
  if (items.length === 0) {
    return (
      <EmptyState title="No operator actions yet">
        {merchantId
          ? "Approvals, suspensions, reinstatements, wallet credits and debits and fee changes for this merchant appear here."
          : "Approvals, suspensions, reinstatements, wallet credits and debits and fee changes appear here."}
      </EmptyState>
    );
  }
  return (
    <div>
      {/* Phone: one block per action. */}
      <ul className="divide-y divide-slate-100 md:hidden">
        {items.map((a) => (
          <li key={a.id} className="py-3 text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <ActionBadge action={a.action} />
              {!merchantId && a.merchantId && (
                <Link href={`/admin/merchants/${a.merchantId}`} className="font-medium text-brand-700 hover:underline">
                  {a.merchantName ?? a.merchantId}
                </Link>
              )}
            </div>
            {a.details && <p className="mt-1 break-words text-slate-700">{readableDetails(a.details)}</p>}
            <p className="mt-1 text-xs text-slate-500">
              {a.adminEmail} · {formatInstant(a.createdAt)}
            </p>
          </li>
        ))}
      </ul>
      <ActivityTable items={items} merchantId={merchantId} />
      {q.hasNextPage && (
        <div className="mt-4 flex justify-center">
          <Button variant="secondary" loading={q.isFetchingNextPage} onClick={() => void q.fetchNextPage()}>
            Load more
          </Button>
        </div>
      )}
      {q.isFetchNextPageError && (
        <p role="alert" className="mt-2 text-center text-sm text-red-700">
          Could not load more. Try again.
        </p>
      )}
    </div>
  );
}
