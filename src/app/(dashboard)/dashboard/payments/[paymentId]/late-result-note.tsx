"use client";

import Link from "next/link";
import { Notice } from "@/components/ui";
import type { PaymentDetailData } from "./payment-detail-data";

/**
 * Whether this order may get payment.success after payment.failed: an attempt the customer left, or
 * that ran out of time, can still be approved in their UPI app ("succeeded-late" once it was).
 */
export function lateResultCase(d: PaymentDetailData): "succeeded-late" | "may-succeed" | null {
  if (d.timeline.some((e) => e.reason === "LATE_ATTEMPT_SUCCEEDED")) return "succeeded-late";
  // Paid through another attempt, expired or cancelled: a late approval now is refunded automatically.
  if (d.payment.status === "SUCCESS" || d.payment.status === "EXPIRED" || d.payment.status === "CANCELLED") return null;
  return d.attempts.some((a) => a.status === "ABANDONED" || (a.status === "FAILED" && a.errorCode === "ATTEMPT_TIMEOUT")) ? "may-succeed" : null;
}

const code = (text: string) => <code className="font-mono text-xs">{text}</code>;

/**
 * Why this order may get payment.failed and then payment.success, and what to trust: the status
 * API's answer (SUCCESS is final), not the order the webhooks arrive in.
 */
export function LateResultNote({ d }: { d: PaymentDetailData }) {
  const late = lateResultCase(d);
  if (!late) return null;
  const succeeded = late === "succeeded-late";
  return (
    <div className="mb-4" data-testid="late-result-note">
      <Notice>
        <p>
          {succeeded ? (
            <>
              An attempt here was left pending or timed out and was approved later, so this order may have been sent {code("payment.failed")} before{" "}
              {code("payment.success")}.
            </>
          ) : (
            <>
              An attempt here was left pending or timed out. The customer can still approve it in their UPI app, so this order may get {code("payment.success")}{" "}
              after {code("payment.failed")}.
            </>
          )}{" "}
          Webhooks can arrive in any order: act on the status from {code("GET /api/payments/{paymentId}/status")}. {code("SUCCESS")} is final and wins over an
          earlier {code("payment.failed")}; if the payment has expired or been cancelled first, the late money is refunded automatically.{" "}
          <Link href="/docs" className="font-medium underline">
            API reference
          </Link>
        </p>
      </Notice>
    </div>
  );
}
