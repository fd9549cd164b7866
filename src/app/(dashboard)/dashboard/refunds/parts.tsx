"use client";

import { Badge, ToneBadge, type Tone } from "@/components/ui";
import { REFUND_STATUS_LABELS, type RefundStatusValue } from "@/lib/schemas/refunds";

// Pieces shared by the Refunds list and the payment detail's Refunds section.

const STATUS_TONES: Record<RefundStatusValue, Tone> = { PENDING: "blue", PROCESSED: "green", FAILED: "red" };

export function RefundStatusBadge({ status }: { status: string }) {
  return <ToneBadge status={status} tones={STATUS_TONES} labels={REFUND_STATUS_LABELS} />;
}

/** The refund of a late attempt's money: the merchant did not ask for it. */
export function AutomaticBadge() {
  return (
    <span title="A late attempt succeeded after the payment was already paid, expired or cancelled: its money goes back to the customer automatically.">
      <Badge tone="amber">Automatic</Badge>
    </span>
  );
}

/** "Partially refunded" / "Refunded" beside a payment's status; nothing before any refund. */
export function RefundSummaryBadge({ refundStatus }: { refundStatus: string }) {
  if (refundStatus === "PARTIAL") return <Badge tone="slate">Partially refunded</Badge>;
  if (refundStatus === "FULL") return <Badge tone="slate">Refunded</Badge>;
  return null;
}

/** A refund's own reason; the automatic one's code in words. */
export function refundReasonText(r: { reason: string | null; automatic: boolean }): string | null {
  if (r.automatic) return "Late attempt's money returned";
  return r.reason;
}

/** The merchant's reason, or for an automatic refund its badge and what it is (with the attempt's number when known); a failure's cause below. */
export function RefundReason({ r, attemptNo }: { r: { reason: string | null; automatic: boolean; failureReason: string | null }; attemptNo?: number }) {
  const text = refundReasonText(r);
  return (
    <>
      {r.automatic && (
        <span className="mr-1.5">
          <AutomaticBadge />
        </span>
      )}
      {text ? <span className={r.automatic ? "text-xs text-slate-500" : "text-slate-800"}>{text}</span> : <span className="text-slate-400">—</span>}
      {r.automatic && attemptNo && <span className="text-xs text-slate-500"> (attempt {attemptNo})</span>}
      {r.failureReason && <span className="block text-xs text-red-700">{r.failureReason}</span>}
    </>
  );
}
