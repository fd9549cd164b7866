/**
 * What the vendor's payment and refund statuses mean for Parakh, whether they arrive by webhook or
 * by a poll (both read into `PgPayment` / `PgRefund`). The two tables below are the whole mapping;
 * the tables of docs/going-live.md are checked against them by a test.
 *
 * A SUCCESS of another amount than the payment's, or in another currency than INR (every Parakh
 * payment's), is never a success (AMOUNT_MISMATCH); a status the tables do not name leaves the attempt
 * or the refund pending (a later webhook or poll decides).
 */
import type { PgPayment, PgRefund } from "@/server/providers/payments/cashfree-pg";
import type { RefundOutcome } from "@/server/providers/payments/types";

export type PgAttemptOutcome =
  | { result: "SUCCESS"; bankReference: string | null }
  | { result: "FAILED"; errorCode: "AMOUNT_MISMATCH" | "PAYMENT_DECLINED" | "PAYMENT_NOT_COMPLETED"; errorMessage: string }
  | { result: "PENDING" };

type AttemptReading =
  { result: "SUCCESS" } | { result: "FAILED"; errorCode: "PAYMENT_DECLINED" | "PAYMENT_NOT_COMPLETED"; errorMessage: string } | { result: "PENDING" };

const DECLINED: AttemptReading = { result: "FAILED", errorCode: "PAYMENT_DECLINED", errorMessage: "The payment was declined by the bank or the UPI app." };

/** The vendor's `payment_status` → the attempt's result. */
export const PAYMENT_STATUS_OUTCOMES: Readonly<Record<string, AttemptReading>> = {
  SUCCESS: { result: "SUCCESS" },
  FAILED: DECLINED,
  VOID: DECLINED,
  CANCELLED: DECLINED,
  USER_DROPPED: { result: "FAILED", errorCode: "PAYMENT_NOT_COMPLETED", errorMessage: "The customer left the payment before completing it." },
  PENDING: { result: "PENDING" },
  NOT_ATTEMPTED: { result: "PENDING" },
};

/** The vendor's `refund_status` → the refund's end; null: still on its way. */
export const REFUND_STATUS_OUTCOMES: Readonly<Record<string, "PROCESSED" | "FAILED" | null>> = {
  SUCCESS: "PROCESSED",
  CANCELLED: "FAILED",
  FAILED: "FAILED",
  PENDING: null,
  ONHOLD: null,
};

export function attemptOutcome(payment: PgPayment, amountPaise: number): PgAttemptOutcome {
  const reading = Object.hasOwn(PAYMENT_STATUS_OUTCOMES, payment.status) ? PAYMENT_STATUS_OUTCOMES[payment.status]! : { result: "PENDING" as const };
  if (reading.result !== "SUCCESS") return reading;
  if (payment.amountPaise !== amountPaise) {
    return { result: "FAILED", errorCode: "AMOUNT_MISMATCH", errorMessage: "The processor reported a payment of another amount than this payment's." };
  }
  // The order was made in INR; a payment the vendor names in no currency is the order's.
  if (payment.currency !== null && payment.currency !== "INR") {
    return { result: "FAILED", errorCode: "AMOUNT_MISMATCH", errorMessage: "The processor reported a payment in another currency than this payment's (INR)." };
  }
  return { result: "SUCCESS", bankReference: payment.bankReference };
}

/** A refund's end as the vendor reports it; null while the vendor is still working on it. */
export function refundOutcome(refund: PgRefund): RefundOutcome | null {
  const end = Object.hasOwn(REFUND_STATUS_OUTCOMES, refund.status) ? REFUND_STATUS_OUTCOMES[refund.status] : null;
  if (end === "PROCESSED") return { outcome: "PROCESSED" };
  if (end === "FAILED") {
    return { outcome: "FAILED", failureReason: `The payment processor reported the refund ${refund.status}: the money did not go back to the customer.` };
  }
  return null;
}
