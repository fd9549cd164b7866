/**
 * Live card payments happen on the processor's own checkout page: the hosted page hands the customer
 * over with the order's payment session, and Parakh keeps an attempt with no card data at all. On
 * that page the customer may try several cards, each a payment of the processor's own, so the
 * attempt has no processor id until the processor reports the one that paid. Its result comes from
 * the order as a whole: a payment webhook reporting success, reconciliation, or the customer coming
 * back to the hosted page. A failed card alone ends nothing (the customer may try another there);
 * coming back with nothing paid and nothing under way leaves the attempt, so a late success is still
 * honoured or refunded like any other left attempt.
 */
import type { Mode } from "@/lib/mode";
import type { Db } from "@/server/db/client";
import { log } from "@/server/lib/logger";
import type { PaymentProcessor, ProcessorOrderResult } from "@/server/providers/payments/types";
import { abandonAttempt, completeAttempt, mayReportLate } from "@/server/services/payments/lifecycle";

/** A card attempt of a live payment: always made on the processor's page (live card numbers are refused). */
export function isCardHandOff(mode: string, attempt: { method: string }): boolean {
  return mode === "live" && attempt.method === "CARD";
}

/** The payment's latest card hand-off that may still take a result, not yet tied to a processor payment. */
async function openHandOff(db: Db, paymentId: string) {
  const latest = await db.paymentAttempt.findFirst({
    where: { paymentId, method: "CARD", processorRef: null, payment: { mode: "live" } },
    orderBy: { createdAt: "desc" },
    select: { id: true, status: true, errorCode: true },
  });
  return latest && (latest.status === "PENDING" || mayReportLate(latest)) ? latest : null;
}

/**
 * Applies the processor's word on the whole order to the payment's open hand-off attempt. A payment
 * (or one of another amount) ties the attempt to that processor payment and completes it; with
 * `leaveUnpaid`, nothing paid and nothing under way leaves a pending attempt. Returns whether the
 * attempt moved.
 */
export async function settleCardHandOff(
  db: Db,
  processors: Record<Mode, PaymentProcessor>,
  paymentId: string,
  found: ProcessorOrderResult,
  opts: { leaveUnpaid: boolean },
): Promise<boolean> {
  const attempt = await openHandOff(db, paymentId);
  if (!attempt) return false;
  if (found.result === "UNPAID" && opts.leaveUnpaid && attempt.status === "PENDING") {
    await abandonAttempt(db, processors.live, paymentId, { attemptId: attempt.id }).catch(() => undefined);
    return true;
  }
  if (found.result !== "SUCCESS" && found.result !== "FAILED") return false;
  // Claimed once: a second report of the same processor payment finds it already tied.
  await db.paymentAttempt.updateMany({ where: { id: attempt.id, processorRef: null }, data: { processorRef: found.processorRef } });
  if (found.result === "FAILED") {
    log.error("payment processor reported another amount", { paymentId, attemptId: attempt.id, cfPaymentId: found.processorRef });
  }
  const result =
    found.result === "SUCCESS"
      ? { outcome: "SUCCESS" as const, ...(found.bankReference ? { bankReference: found.bankReference } : {}) }
      : { outcome: "FAILED" as const, errorCode: found.errorCode, errorMessage: found.errorMessage };
  return (await completeAttempt(db, attempt.id, result, processors)) !== null;
}

/**
 * Asks the processor about the payment's open hand-off, if it has one. The hosted page does this
 * when it is shown (the customer coming back from the processor's page), so the outcome shows at
 * once; reconciliation does it on its schedule. Processor failures are left for the next look.
 */
export async function checkCardHandOff(db: Db, processors: Record<Mode, PaymentProcessor>, paymentId: string, opts: { leaveUnpaid: boolean }) {
  const payment = await db.payment.findUnique({ where: { id: paymentId }, select: { mode: true, amountPaise: true } });
  const processor = payment?.mode === "live" ? processors.live : undefined;
  const open = payment && processor?.checkOrder ? await openHandOff(db, paymentId) : null;
  // The page asks about a pending hand-off only; a left one is settled by the processor's webhook.
  if (!payment || !processor?.checkOrder || !open || (opts.leaveUnpaid && open.status !== "PENDING")) return false;
  try {
    const found = await processor.checkOrder({ paymentId, amountPaise: payment.amountPaise });
    return await settleCardHandOff(db, processors, paymentId, found, opts);
  } catch (err) {
    log.warn("card hand-off not checked", { paymentId, err: err instanceof Error ? err.message : String(err) });
    return false;
  }
}
