"use client";

import { Badge, cx } from "@/components/ui";
import { formatRupees } from "@/lib/money";
import { formatIst } from "../../logs/parts";
import { PaymentStatusBadge, instrumentLabel, methodLabel, reasonLabel } from "../parts";
import type { PaymentDetailData } from "./payment-detail-data";

type TimelineEvent = PaymentDetailData["timeline"][number];

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

/** Every status change of the payment and its refunds, oldest first. */
export function PaymentTimeline({ d }: { d: PaymentDetailData }) {
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
