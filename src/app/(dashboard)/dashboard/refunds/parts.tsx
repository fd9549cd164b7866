"use client";

import { Badge } from "@/components/ui";
import { REFUND_STATUS_LABELS, type RefundStatusValue } from "@/lib/schemas/refunds";

// Pieces shared by the Refunds list and the payment detail's Refunds section.

const STATUS_TONES: Record<RefundStatusValue, "blue" | "green" | "red"> = { PENDING: "blue", PROCESSED: "green", FAILED: "red" };

export function RefundStatusBadge({ status }: { status: string }) {
  const known = status in STATUS_TONES ? (status as RefundStatusValue) : null;
  return <Badge tone={known ? STATUS_TONES[known] : "slate"}>{known ? REFUND_STATUS_LABELS[known] : status}</Badge>;
}

/** The refund of a late attempt's money (B11): the merchant did not ask for it. */
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
