"use client";

import { Badge, EmptyState, Table, Td, Th } from "@/components/ui";
import { noValue } from "@/components/dashboard/detail-page";
import { formatIst } from "../../logs/parts";
import { instrumentLabel, methodLabel } from "../parts";
import type { PaymentDetailData } from "./payment-detail-data";

const ATTEMPT_STATUSES: Record<string, ["green" | "red" | "blue" | "amber", string]> = {
  SUCCESS: ["green", "Succeeded"],
  FAILED: ["red", "Failed"],
  PENDING: ["blue", "Pending"],
  ABANDONED: ["amber", "Abandoned"],
};

/** Each time the customer tried to pay, oldest first, with what went wrong. */
export function AttemptsSection({ d }: { d: PaymentDetailData }) {
  if (d.attempts.length === 0) {
    return <EmptyState title="No attempts yet">The customer has not started paying on the checkout page.</EmptyState>;
  }
  const status = (s: string) => {
    const [tone, label] = ATTEMPT_STATUSES[s] ?? ["slate", s];
    return <Badge tone={tone}>{label}</Badge>;
  };
  // A late success that could not be the payment: its money went back in an automatic refund.
  const refundOf = new Map(d.refunds.filter((r) => r.attemptId).map((r) => [r.attemptId, r]));
  const returned = (id: string) => {
    const r = refundOf.get(id);
    return r ? (
      <span className="block max-w-[22rem] whitespace-normal text-xs text-slate-600">
        Succeeded late; refunded automatically (<code className="break-all font-mono">{r.refundId}</code>)
      </span>
    ) : null;
  };
  return (
    <>
      <div className="hidden md:block">
        <Table
          caption="Payment attempts, oldest first"
          head={
            <tr>
              <Th>#</Th>
              <Th>Started (IST)</Th>
              <Th>Method</Th>
              <Th>Paid with</Th>
              <Th>Status</Th>
              <Th>Error</Th>
            </tr>
          }
        >
          {d.attempts.map((a, i) => (
            <tr key={a.id}>
              <Td className="tabular-nums text-slate-500">{i + 1}</Td>
              <Td>{formatIst(a.createdAt, true)}</Td>
              <Td>{methodLabel(a.method)}</Td>
              <Td>
                <span className="font-mono text-xs">{instrumentLabel(a)}</span>
              </Td>
              <Td>{status(a.status)}</Td>
              <Td className="whitespace-normal">
                {a.errorCode ? (
                  <div className="max-w-[22rem]">
                    <code className="font-mono text-xs text-slate-800">{a.errorCode}</code>
                    {a.errorMessage && <p className="text-xs text-slate-500">{a.errorMessage}</p>}
                  </div>
                ) : (
                  (returned(a.id) ?? noValue)
                )}
              </Td>
            </tr>
          ))}
        </Table>
      </div>
      <ol className="-mx-4 divide-y divide-slate-100 md:hidden" aria-label="Payment attempts, oldest first">
        {d.attempts.map((a, i) => (
          <li key={a.id} className="px-4 py-3">
            <div className="flex items-center justify-between gap-3">
              <span className="text-sm font-medium text-slate-900">
                {i + 1}. {methodLabel(a.method)}
              </span>
              {status(a.status)}
            </div>
            <p className="mt-0.5 font-mono text-xs text-slate-700">{instrumentLabel(a)}</p>
            <p className="mt-0.5 text-xs text-slate-500">{formatIst(a.createdAt, true)}</p>
            {a.errorCode && (
              <p className="mt-1 text-xs text-slate-600">
                <code className="font-mono">{a.errorCode}</code>
                {a.errorMessage && ` · ${a.errorMessage}`}
              </p>
            )}
            {!a.errorCode && refundOf.has(a.id) && <p className="mt-1">{returned(a.id)}</p>}
          </li>
        ))}
      </ol>
    </>
  );
}
