"use client";

import { ToneBadge, type Tone } from "@/components/ui";
import { PAYMENT_STATUS_LABELS, type PaymentStatusValue } from "@/lib/schemas/payments";

// Pieces shared by the payments list and the payment detail.

const STATUS_TONES: Record<PaymentStatusValue, Tone> = {
  CREATED: "slate",
  PENDING: "blue",
  SUCCESS: "green",
  FAILED: "red",
  EXPIRED: "amber",
  CANCELLED: "slate",
};

export function PaymentStatusBadge({ status }: { status: string }) {
  return <ToneBadge status={status} tones={STATUS_TONES} labels={PAYMENT_STATUS_LABELS} />;
}

const METHOD_LABELS: Record<string, string> = { UPI: "UPI", CARD: "Card", NETBANKING: "Netbanking" };

export function methodLabel(method: string | null | undefined): string {
  if (!method) return "—";
  return METHOD_LABELS[method] ?? method;
}

/** What the customer paid with, as far as it is kept: card network and last four, VPA or bank. */
export function instrumentLabel(a: { method: string; vpa: string | null; cardNetwork: string | null; cardLast4: string | null; bank: string | null }): string {
  if (a.method === "CARD") return [a.cardNetwork, a.cardLast4 ? `•••• ${a.cardLast4}` : null].filter(Boolean).join(" ") || "Card";
  if (a.method === "UPI") return a.vpa ?? "QR code or UPI app";
  if (a.method === "NETBANKING") return a.bank ?? "Netbanking";
  return "—";
}

const REASON_LABELS: Record<string, string> = {
  CREATED: "Payment created",
  ATTEMPT_STARTED: "Customer started a payment attempt",
  ATTEMPT_SUCCEEDED: "Payment succeeded",
  EXPIRED: "Expired before it was paid",
  CANCELLED_BY_CUSTOMER: "Cancelled by the customer",
  ATTEMPT_TIMEOUT: "No result from the payment network within 15 minutes",
  ATTEMPT_ABANDONED: "Customer left the pending attempt (chose another method or cancelled)",
  LATE_ATTEMPT_SUCCEEDED: "Payment succeeded: an earlier attempt reported success late",
  REFUND_CREATED: "Refund created",
  REFUND_PROCESSED: "Refund processed",
  REFUND_FAILED: "Refund failed",
  AUTO_REFUND_LATE_ATTEMPT: "Automatic refund of a late attempt",
};

/** Timeline reasons are our codes, or an attempt's error code when it failed. */
export function reasonLabel(reason: string | null): string | null {
  if (!reason) return null;
  return REASON_LABELS[reason] ?? null;
}
