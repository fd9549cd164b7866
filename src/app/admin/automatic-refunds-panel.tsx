"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge, Card, EmptyState, ErrorState, LoadingState, formatDateTime } from "@/components/ui";
import { DataTable } from "@/components/dashboard/list-rows";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";

type Row = RouterOutputs["admin"]["automaticRefunds"][number];

function RefundStatus({ row }: { row: Row }) {
  return row.status === "FAILED" ? <Badge tone="red">Failed</Badge> : <Badge tone="amber">Waiting for the processor</Badge>;
}

function Reason({ row }: { row: Row }) {
  return (
    <span className="block max-w-sm whitespace-normal break-words">
      {row.reason ?? "—"}
      <span className="block text-xs text-slate-500">
        {row.failedAt ? `Failed ${formatDateTime(row.failedAt)}` : `Created ${formatDateTime(row.createdAt)}`}
      </span>
    </span>
  );
}

/** Automatic refunds of late attempts that failed or wait on the processor: money a customer is still owed. */
export function AutomaticRefundsPanel() {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.admin.automaticRefunds.queryOptions(), refetchInterval: 30_000 });
  return (
    <Card
      title="Automatic refunds needing attention"
      description="A late payment Parakh could not keep is refunded automatically. These failed, or the processor has not answered for an hour: check the refund id in the processor's dashboard before returning the money another way."
    >
      <div aria-busy={q.isFetching || undefined}>
        {q.isPending ? (
          <LoadingState label="Loading automatic refunds…" />
        ) : q.isError ? (
          <ErrorState message={errorInfo(q.error).message} onRetry={() => void q.refetch()} />
        ) : q.data.length === 0 ? (
          <EmptyState title="No automatic refund needs attention" />
        ) : (
          <DataTable
            caption="Automatic refunds that failed or wait on the processor"
            rowKey={(r) => r.refundId}
            rows={q.data}
            columns={[
              {
                head: "Refund",
                cell: (r) => (
                  <>
                    <span className="block font-mono text-xs">{r.refundId}</span>
                    <span className="block font-mono text-xs text-slate-500">{r.paymentId}</span>
                  </>
                ),
              },
              {
                head: "Merchant",
                cell: (r) => (
                  <>
                    {r.merchantName} <span className="text-xs text-slate-500">({r.mode})</span>
                  </>
                ),
              },
              { head: "Amount", cell: (r) => `₹${r.amount}` },
              { head: "Status", cell: (r) => <RefundStatus row={r} /> },
              { head: "Reason", cell: (r) => <Reason row={r} /> },
            ]}
          />
        )}
      </div>
    </Card>
  );
}
