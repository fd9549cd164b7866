"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge, Card, EmptyState, ErrorState, LoadingState, Table, Td, Th, formatDateTime } from "@/components/ui";
import { errorInfo, useTRPC, type RouterOutputs } from "@/lib/trpc/client";

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
          <Table
            caption="Automatic refunds that failed or wait on the processor"
            head={
              <tr>
                <Th>Refund</Th>
                <Th>Merchant</Th>
                <Th>Amount</Th>
                <Th>Status</Th>
                <Th>Reason</Th>
              </tr>
            }
          >
            {q.data.map((r) => (
              <tr key={r.refundId}>
                <Td>
                  <span className="block font-mono text-xs">{r.refundId}</span>
                  <span className="block font-mono text-xs text-slate-500">{r.paymentId}</span>
                </Td>
                <Td>
                  {r.merchantName} <span className="text-xs text-slate-500">({r.mode})</span>
                </Td>
                <Td>₹{r.amount}</Td>
                <Td>
                  <RefundStatus row={r} />
                </Td>
                <Td>
                  <Reason row={r} />
                </Td>
              </tr>
            ))}
          </Table>
        )}
      </div>
    </Card>
  );
}
