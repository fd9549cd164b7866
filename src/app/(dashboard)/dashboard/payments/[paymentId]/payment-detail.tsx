"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Badge, Button, Card, CopyButton, EmptyState, ErrorState, LoadingState, PageHeader, Table, Td, Th, cx } from "@/components/ui";
import { useMode } from "@/components/dashboard/mode";
import { formatRupees } from "@/lib/money";
import { errorInfo, useTRPC } from "@/lib/trpc/client";
import { CopyIconButton, formatIst } from "../../logs/parts";
import { DeliveryItem } from "../../webhooks/delivery-item";
import { RefundReason, RefundStatusBadge, RefundSummaryBadge } from "../../refunds/parts";
import { PaymentStatusBadge, instrumentLabel, methodLabel, reasonLabel } from "../parts";
import { RefundDialog } from "./refund-dialog";

function BackLink() {
  return (
    <Link href="/dashboard/payments" className="mb-3 inline-flex items-center gap-1 text-sm text-brand-600 hover:underline">
      <span aria-hidden="true">←</span> Payments
    </Link>
  );
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid gap-1 py-2.5 sm:grid-cols-[9rem_minmax(0,1fr)] sm:gap-4">
      <dt className="text-sm text-slate-500">{label}</dt>
      <dd className="min-w-0 break-words text-sm text-slate-900">{children}</dd>
    </div>
  );
}

const none = <span className="text-slate-400">—</span>;

type Detail = NonNullable<ReturnType<typeof useDetail>["data"]>;

function useDetail(paymentId: string) {
  const { mode } = useMode();
  const trpc = useTRPC();
  return useQuery(
    trpc.payments.get.queryOptions(
      { mode, paymentId },
      {
        retry: (count, err) => !["NOT_FOUND", "BAD_REQUEST"].includes((err as { data?: { code?: string } }).data?.code ?? "") && count < 1,
        // While the customer may still pay, a refund awaits the bank, or a webhook is on its way, keep the page current.
        refetchInterval: (q) => {
          const d = q.state.data;
          if (!d) return false;
          const busy =
            !d.payment.isFinal ||
            d.refunds.some((r) => r.status === "PENDING") ||
            d.webhooks.some((w) => w.deliveries.some((x) => x.status === "PENDING" && x.attemptCount === 0));
          return busy ? 4000 : false;
        },
      },
    ),
  );
}

type TimelineEvent = Detail["timeline"][number];

const REFUND_EVENT_BADGES: Record<string, { tone: "blue" | "green" | "red" | "amber"; label: string }> = {
  REFUND_CREATED: { tone: "blue", label: "Refund created" },
  REFUND_PROCESSED: { tone: "green", label: "Refund processed" },
  REFUND_FAILED: { tone: "red", label: "Refund failed" },
  AUTO_REFUND_LATE_ATTEMPT: { tone: "amber", label: "Automatic refund" },
};

/** A refund row of the timeline in words: what happened to which amount. */
function refundEventText(e: TimelineEvent, failureReason: string | null | undefined, attemptNo: number | undefined): string {
  const amount = e.refund ? formatRupees(e.refund.amountPaise) : "the refund";
  const auto = e.refund?.automatic;
  switch (e.reason) {
    case "AUTO_REFUND_LATE_ATTEMPT":
      return `${attemptNo ? `Attempt ${attemptNo}` : "An earlier attempt"} succeeded late, after this payment was already ${
        e.toStatus === "SUCCESS" ? "paid" : e.toStatus.toLowerCase()
      }: its ${amount} goes back to the customer in an automatic refund`;
    case "REFUND_CREATED":
      return `Refund of ${amount} created`;
    case "REFUND_PROCESSED":
      return `${amount} refunded to the customer${auto ? " (automatic refund)" : ""}`;
    case "REFUND_FAILED":
      return `Refund of ${amount} failed${failureReason ? `: ${failureReason}` : ""}`;
    default:
      return reasonLabel(e.reason) ?? e.reason ?? "Refund updated";
  }
}

function Timeline({ d }: { d: Detail }) {
  const attemptNo = new Map(d.attempts.map((a, i) => [a.id, i + 1]));
  const attemptById = new Map(d.attempts.map((a) => [a.id, a]));
  const refundById = new Map(d.refunds.map((r) => [r.refundId, r]));
  return (
    <ol className="relative space-y-5 border-l-2 border-slate-100 pl-5" aria-label="Status changes, oldest first">
      {d.timeline.map((e) => {
        const attempt = e.attemptId ? attemptById.get(e.attemptId) : undefined;
        const attemptText = attempt && (
          <>
            Attempt {attemptNo.get(attempt.id)} ({methodLabel(attempt.method)}, {instrumentLabel(attempt)})
          </>
        );
        if (e.refundId) {
          const badge = REFUND_EVENT_BADGES[e.reason ?? ""] ?? { tone: "blue" as const, label: "Refund" };
          return (
            <li key={e.id} className="relative" data-testid="timeline-refund">
              <span
                aria-hidden="true"
                className={cx(
                  "absolute -left-[27px] top-1 h-3 w-3 rounded-full border-2 border-white ring-2",
                  e.reason === "REFUND_FAILED"
                    ? "bg-red-500 ring-red-100"
                    : e.reason === "REFUND_PROCESSED"
                      ? "bg-green-500 ring-green-100"
                      : "bg-amber-400 ring-amber-100",
                )}
              />
              <div className="flex flex-wrap items-center gap-2">
                <Badge tone={badge.tone}>{badge.label}</Badge>
                <time dateTime={e.createdAt} className="text-xs text-slate-500">
                  {formatIst(e.createdAt)}
                </time>
              </div>
              <p className="mt-1 text-sm text-slate-700">
                {refundEventText(e, refundById.get(e.refundId)?.failureReason, attempt && attemptNo.get(attempt.id))}
              </p>
              <p className="mt-0.5 text-xs text-slate-500">
                <code className="font-mono">{e.refundId}</code>
                {attemptText && " · "}
                {attemptText}
              </p>
            </li>
          );
        }
        const label = reasonLabel(e.reason);
        return (
          <li key={e.id} className="relative">
            <span
              aria-hidden="true"
              className={cx(
                "absolute -left-[27px] top-1 h-3 w-3 rounded-full border-2 border-white ring-2",
                e.toStatus === "SUCCESS" ? "bg-green-500 ring-green-100" : e.toStatus === "FAILED" ? "bg-red-500 ring-red-100" : "bg-slate-400 ring-slate-100",
              )}
            />
            <div className="flex flex-wrap items-center gap-2">
              <PaymentStatusBadge status={e.toStatus} />
              <time dateTime={e.createdAt} className="text-xs text-slate-500">
                {formatIst(e.createdAt)}
              </time>
            </div>
            <p className="mt-1 text-sm text-slate-700">
              {label ?? (e.toStatus === "FAILED" && attempt?.errorMessage ? attempt.errorMessage : (e.reason ?? "Status changed"))}
              {e.fromStatus && <span className="text-slate-400"> · from {e.fromStatus.toLowerCase()}</span>}
            </p>
            {(e.reason && !label) || attempt ? (
              <p className="mt-0.5 text-xs text-slate-500">
                {e.reason && !label && <code className="font-mono">{e.reason}</code>}
                {e.reason && !label && attempt && " · "}
                {attemptText}
              </p>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}

/** The payment's refunds, newest first, with what is refunded and what is left. */
function Refunds({ d }: { d: Detail }) {
  const attemptNo = new Map(d.attempts.map((a, i) => [a.id, i + 1]));
  if (d.refunds.length === 0) {
    return (
      <EmptyState title="No refunds">
        {d.payment.refundablePaise > 0
          ? "Use Refund at the top of the page to return all or part of this payment to the customer."
          : d.payment.status === "SUCCESS"
            ? "This payment can no longer be refunded."
            : "Only a successful payment can be refunded."}
      </EmptyState>
    );
  }
  const reason = (r: Detail["refunds"][number]) => <RefundReason r={r} attemptNo={r.attemptId ? attemptNo.get(r.attemptId) : undefined} />;
  const status = (r: Detail["refunds"][number]) => <RefundStatusBadge status={r.status} />;
  return (
    <>
      <div className="hidden md:block">
        <Table
          caption="Refunds, newest first"
          head={
            <tr>
              <Th>Refund id</Th>
              <Th className="text-right">Amount</Th>
              <Th>Status</Th>
              <Th>Reason</Th>
              <Th>Created (IST)</Th>
            </tr>
          }
        >
          {d.refunds.map((r) => (
            <tr key={r.refundId} data-testid="refund-row">
              <Td>
                <span className="inline-flex items-center gap-1">
                  <code className="font-mono text-xs">{r.refundId}</code>
                  <CopyIconButton value={r.refundId} label={`Copy refund id ${r.refundId}`} />
                </span>
                {r.merchantRefundId && <span className="block font-mono text-[11px] text-slate-500">{r.merchantRefundId}</span>}
              </Td>
              <Td className="text-right font-medium tabular-nums text-slate-900">{formatRupees(r.amountPaise)}</Td>
              <Td>{status(r)}</Td>
              <Td className="whitespace-normal">
                <div className="min-w-[10rem] max-w-[15rem] whitespace-normal break-words text-sm">{reason(r)}</div>
              </Td>
              <Td>
                {formatIst(r.createdAt, true)}
                {r.processedAt && <span className="block text-xs text-slate-500">processed {formatIst(r.processedAt, true)}</span>}
              </Td>
            </tr>
          ))}
        </Table>
      </div>
      <ul className="-mx-4 divide-y divide-slate-100 md:hidden" aria-label="Refunds, newest first">
        {d.refunds.map((r) => (
          <li key={r.refundId} className="px-4 py-3" data-testid="refund-row">
            <div className="flex items-center justify-between gap-3">
              <span className="font-medium tabular-nums text-slate-900">{formatRupees(r.amountPaise)}</span>
              {status(r)}
            </div>
            <div className="mt-1 text-sm">{reason(r)}</div>
            <p className="mt-0.5 text-xs text-slate-500">
              {formatIst(r.createdAt, true)}
              {r.processedAt && ` · processed ${formatIst(r.processedAt, true)}`}
            </p>
            <p className="mt-0.5 break-all font-mono text-[11px] text-slate-400">{r.refundId}</p>
          </li>
        ))}
      </ul>
    </>
  );
}

const ATTEMPT_STATUSES: Record<string, ["green" | "red" | "blue" | "amber", string]> = {
  SUCCESS: ["green", "Succeeded"],
  FAILED: ["red", "Failed"],
  PENDING: ["blue", "Pending"],
  ABANDONED: ["amber", "Abandoned"],
};

function Attempts({ d }: { d: Detail }) {
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
                  (returned(a.id) ?? none)
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

function Webhooks({ d, refresh }: { d: Detail; refresh: () => unknown }) {
  const deliveries = d.webhooks.flatMap((w) => w.deliveries);
  if (d.webhooks.length === 0) {
    return (
      <EmptyState title="No webhook events for this payment yet">
        Events are sent when a payment succeeds, fails, expires or is cancelled, and when a refund is processed or fails, to the endpoints on the{" "}
        <Link href="/dashboard/webhooks" className="text-brand-600 hover:underline">
          Webhooks
        </Link>{" "}
        page.
      </EmptyState>
    );
  }
  return (
    <div className="space-y-4">
      {d.webhooks.map((w) => (
        <section key={w.eventId} aria-label={`${w.type} event`}>
          <h3 className="flex flex-wrap items-baseline gap-x-2 text-sm">
            <code className="font-mono font-medium text-slate-900">{w.type}</code>
            <span className="font-mono text-xs text-slate-500">{w.eventId}</span>
            <span className="text-xs text-slate-500">{formatIst(w.createdAt, true)}</span>
          </h3>
          {w.deliveries.length === 0 ? (
            <p className="mt-1 text-sm text-slate-500">Not sent: no enabled endpoint was subscribed to this event when it happened.</p>
          ) : (
            <ul className="-mx-4 mt-2 divide-y divide-slate-100 border-y border-slate-100 sm:mx-0 sm:rounded-md sm:border">
              {w.deliveries.map((x) => (
                <DeliveryItem key={x.id} d={x} onChanged={refresh} grouped />
              ))}
            </ul>
          )}
        </section>
      ))}
      {deliveries.length > 0 && (
        <p className="text-xs text-slate-500">
          Resend sends the same event (same id and body) again; your endpoint should ignore event ids it has already handled.
        </p>
      )}
    </div>
  );
}

export function PaymentDetail({ paymentId }: { paymentId: string }) {
  const { mode, liveEnabled } = useMode();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const detail = useDetail(paymentId);
  const [refunding, setRefunding] = useState(false);
  const refresh = () => qc.invalidateQueries(trpc.payments.get.queryFilter({ mode, paymentId }));
  const refundsChanged = () => Promise.all([refresh(), qc.invalidateQueries(trpc.refunds.pathFilter())]);

  if (detail.isLoading) {
    return (
      <>
        <BackLink />
        <LoadingState label="Loading payment…" />
      </>
    );
  }
  if (detail.isError || !detail.data) {
    const code = (detail.error as { data?: { code?: string } } | null)?.data?.code;
    return (
      <>
        <BackLink />
        <PageHeader title="Payment" />
        {code === "NOT_FOUND" || code === "BAD_REQUEST" ? (
          <EmptyState title={`No payment ${paymentId} in ${mode} mode`}>
            <p>
              {liveEnabled ? `It may be a ${mode === "live" ? "sandbox" : "live"} payment: switch mode at the top of the page, or ` : "Check the id, or "}
              <Link href="/dashboard/payments" className="text-brand-600 hover:underline">
                go back to the list
              </Link>
              .
            </p>
          </EmptyState>
        ) : (
          <ErrorState message={errorInfo(detail.error).message} onRetry={() => void detail.refetch()} />
        )}
      </>
    );
  }
  const d = detail.data;
  const p = d.payment;
  const customer = [p.customer.name, p.customer.email, p.customer.phone].filter(Boolean);
  return (
    <>
      <BackLink />
      <PageHeader
        title={formatRupees(p.amountPaise)}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <PaymentStatusBadge status={p.status} />
            <RefundSummaryBadge refundStatus={p.refundStatus} />
            <span className="font-mono text-xs text-slate-700">{p.orderId}</span>
            <span>Created {formatIst(p.createdAt)} IST</span>
          </span>
        }
        actions={
          p.checkoutUrl ? (
            <a href={p.checkoutUrl} target="_blank" rel="noreferrer" className="text-sm font-medium text-brand-600 hover:underline">
              Open checkout page <span aria-hidden="true">↗</span>
            </a>
          ) : p.refundablePaise > 0 ? (
            <Button onClick={() => setRefunding(true)}>Refund</Button>
          ) : undefined
        }
      />
      {p.refundablePaise > 0 && (
        <RefundDialog
          open={refunding}
          payment={{ id: p.id, orderId: p.orderId, amountPaise: p.amountPaise, refundablePaise: p.refundablePaise }}
          onClose={() => setRefunding(false)}
          onChanged={refundsChanged}
        />
      )}
      <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="min-w-0 space-y-6">
          <Card title="Details">
            <dl className="-my-2.5 divide-y divide-slate-100">
              <Row label="Payment id">
                <span className="inline-flex flex-wrap items-center gap-2">
                  <code className="break-all font-mono text-[13px]">{p.id}</code>
                  <CopyButton value={p.id} label="Copy" />
                </span>
              </Row>
              <Row label="Order id">
                <code className="break-all font-mono text-[13px]">{p.orderId}</code>
              </Row>
              <Row label="Amount">
                <span className="tabular-nums">{formatRupees(p.amountPaise)}</span> <span className="text-slate-500">{p.currency}</span>
              </Row>
              <Row label="Status">
                <PaymentStatusBadge status={p.status} />
              </Row>
              <Row label="Method">{p.method ? methodLabel(p.method) : none}</Row>
              <Row label="Bank reference">{p.bankReference ? <code className="font-mono text-[13px]">{p.bankReference}</code> : none}</Row>
              <Row label="Description">{p.description ?? none}</Row>
              <Row label="Customer">
                {customer.length ? (
                  <span className="flex flex-col">
                    {customer.map((c) => (
                      <span key={c}>{c}</span>
                    ))}
                  </span>
                ) : (
                  none
                )}
              </Row>
              <Row label="Redirect URL">{p.redirectUrl ? <code className="break-all font-mono text-[13px]">{p.redirectUrl}</code> : none}</Row>
              <Row label="Created">{formatIst(p.createdAt)} IST</Row>
              <Row label={p.status === "EXPIRED" ? "Expired" : "Expires"}>{formatIst(p.expiresAt)} IST</Row>
              <Row label="Paid">{p.paidAt ? `${formatIst(p.paidAt)} IST` : none}</Row>
              {p.status === "SUCCESS" && (
                <>
                  <Row label="Refunded">
                    <span className="inline-flex flex-wrap items-center gap-2">
                      <span className="tabular-nums">{formatRupees(p.refundedPaise)}</span>
                      <RefundSummaryBadge refundStatus={p.refundStatus} />
                    </span>
                  </Row>
                  <Row label="Refundable">
                    {p.refundablePaise > 0 ? (
                      <>
                        <span className="tabular-nums">{formatRupees(p.refundablePaise)}</span>
                        {p.refundableUntil && <span className="text-slate-500"> until {formatIst(p.refundableUntil)} IST</span>}
                      </>
                    ) : (
                      <span className="text-slate-500">
                        {p.refundedPaise >= p.amountPaise ? "Nothing: refunded in full" : "Nothing: the 180-day refund window has closed"}
                      </span>
                    )}
                  </Row>
                </>
              )}
              <Row label="Mode">
                <span className="capitalize">{p.mode}</span>
              </Row>
            </dl>
          </Card>
        </div>
        <div className="min-w-0 space-y-6">
          <Card title="Timeline">
            <Timeline d={d} />
          </Card>
        </div>
      </div>
      <div className="mt-6 space-y-6">
        <Card
          title="Refunds"
          description={[
            p.status === "SUCCESS" &&
              `${formatRupees(p.refundedPaise)} of ${formatRupees(p.amountPaise)} refunded · ${formatRupees(p.refundablePaise)} refundable.`,
            d.refunds.some((r) => r.automatic) && "Automatic refunds return a late attempt's money, beyond the payment: they are not counted.",
          ]
            .filter(Boolean)
            .join(" ")}
        >
          <Refunds d={d} />
        </Card>
        <Card title="Attempts" description="Card numbers are never stored: only the network and last four digits.">
          <Attempts d={d} />
        </Card>
        <Card title="Webhooks" description="Events about this payment and every delivery attempt.">
          <Webhooks d={d} refresh={refresh} />
        </Card>
      </div>
    </>
  );
}
