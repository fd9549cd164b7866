/**
 * What the vendor's payment and refund statuses mean for Parakh, whether they arrive by webhook or
 * by a poll (both read into `PgPayment` / `PgRefund`).
 *
 *   Vendor payment_status         Parakh attempt
 *   SUCCESS, the payment's amount SUCCESS, with the vendor's bank reference
 *   SUCCESS, any other amount     FAILED  AMOUNT_MISMATCH (never a success on another amount)
 *   FAILED, VOID, CANCELLED       FAILED  PAYMENT_DECLINED
 *   USER_DROPPED                  FAILED  PAYMENT_NOT_COMPLETED
 *   PENDING, NOT_ATTEMPTED, other still pending (a later webhook or poll decides)
 *
 *   Vendor refund_status          Parakh refund
 *   SUCCESS                       PROCESSED
 *   CANCELLED, FAILED             FAILED
 *   PENDING, ONHOLD, other        still pending
 */
import type { PgPayment, PgRefund } from "@/server/providers/payments/cashfree-pg";
import type { RefundOutcome } from "@/server/providers/payments/types";

export type PgAttemptOutcome =
  | { result: "SUCCESS"; bankReference: string | null }
  | { result: "FAILED"; errorCode: "AMOUNT_MISMATCH" | "PAYMENT_DECLINED" | "PAYMENT_NOT_COMPLETED"; errorMessage: string }
  | { result: "PENDING" };

export function attemptOutcome(payment: PgPayment, amountPaise: number): PgAttemptOutcome {
  switch (payment.status) {
    case "SUCCESS":
      if (payment.amountPaise !== amountPaise) {
        return { result: "FAILED", errorCode: "AMOUNT_MISMATCH", errorMessage: "The processor reported a payment of another amount than this payment's." };
      }
      return { result: "SUCCESS", bankReference: payment.bankReference };
    case "FAILED":
    case "VOID":
    case "CANCELLED":
      return { result: "FAILED", errorCode: "PAYMENT_DECLINED", errorMessage: "The payment was declined by the bank or the UPI app." };
    case "USER_DROPPED":
      return { result: "FAILED", errorCode: "PAYMENT_NOT_COMPLETED", errorMessage: "The customer left the payment before completing it." };
    default:
      return { result: "PENDING" };
  }
}

/** A refund's end as the vendor reports it; null while the vendor is still working on it. */
export function refundOutcome(refund: PgRefund): RefundOutcome | null {
  switch (refund.status) {
    case "SUCCESS":
      return { outcome: "PROCESSED" };
    case "CANCELLED":
    case "FAILED":
      return { outcome: "FAILED", failureReason: "The processor could not send the money back to the customer." };
    default:
      return null;
  }
}
