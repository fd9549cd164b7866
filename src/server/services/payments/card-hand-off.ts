/**
 * Live card payments happen on the processor's own checkout page: the hosted page hands the customer
 * over with the order's payment session, and Parakh keeps an attempt with no card data at all. On
 * that page the customer may try several cards, each a payment of the processor's own, so the
 * attempt has no processor id until the processor reports one. Its result comes from the order as a
 * whole (the payments made on that page since the attempt began): a payment webhook, reconciliation,
 * or the customer coming back to the hosted page. A declined card fails the attempt as a declined
 * sandbox card does, and another card paid there afterwards is still a late success of it; coming
 * back with nothing paid, nothing declined and nothing under way leaves the attempt, so a late
 * success is still honoured or refunded like any other left attempt.
 */
import type { Mode } from "@/lib/mode";
import type { Db } from "@/server/db/client";
import { log } from "@/server/lib/logger";
import type { PaymentProcessor, ProcessorOrderResult } from "@/server/providers/payments/types";
import { abandonAttempt, completeAttempt, isCardHandOff, mayReportLate } from "@/server/services/payments/lifecycle";

export { isCardHandOff };

/**
 * The payment's latest card hand-off if it may still take a result: pending (and not yet tied to a
 * processor payment), or ended in a way that a late success may still follow.
 */
async function openHandOff(db: Db, paymentId: string) {
  const latest = await db.paymentAttempt.findFirst({
    where: { paymentId, method: "CARD", payment: { mode: "live" } },
    orderBy: { createdAt: "desc" },
    select: { id: true, status: true, errorCode: true, processorRef: true, createdAt: true },
  });
  if (!latest) return null;
  return (latest.status === "PENDING" && latest.processorRef === null) || mayReportLate(latest, { handOff: true }) ? latest : null;
}

/**
 * Applies the processor's word on the whole order to the payment's open hand-off attempt. A payment
 * (or one of another amount) ties the attempt to that processor payment and completes it, as does a
 * declined one while the attempt is pending; with `leaveUnpaid`, nothing paid and nothing under way
 * leaves a pending attempt. Returns whether the attempt moved.
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
  // A later decline changes nothing for an attempt that already ended (a late failure).
  if (found.result === "FAILED" && found.errorCode !== "AMOUNT_MISMATCH" && attempt.status !== "PENDING") return false;
  // Tied to the processor payment that decides it, once: a second report of it finds the attempt by that id.
  await db.paymentAttempt.updateMany({
    where: { id: attempt.id, status: attempt.status, processorRef: attempt.processorRef },
    data: { processorRef: found.processorRef },
  });
  if (found.result === "FAILED" && found.errorCode === "AMOUNT_MISMATCH") {
    log.error("payment processor reported another amount", { paymentId, attemptId: attempt.id, cfPaymentId: found.processorRef });
  }
  const result =
    found.result === "SUCCESS"
      ? { outcome: "SUCCESS" as const, ...(found.bankReference ? { bankReference: found.bankReference } : {}) }
      : { outcome: "FAILED" as const, errorCode: found.errorCode, errorMessage: found.errorMessage };
  return (await completeAttempt(db, attempt.id, result, processors)) !== null;
}

/**
 * Asks the processor about the payment's pending hand-off, if it has one, and applies its answer.
 * Throws what the processor call throws.
 */
export async function askAboutCardHandOff(db: Db, processors: Record<Mode, PaymentProcessor>, paymentId: string, opts: { leaveUnpaid: boolean }) {
  const payment = await db.payment.findUnique({ where: { id: paymentId }, select: { mode: true, amountPaise: true } });
  const processor = payment?.mode === "live" ? processors.live : undefined;
  if (!payment || !processor?.checkOrder) return false;
  const open = await openHandOff(db, paymentId);
  // Only a pending hand-off is asked about; an ended one hears of a late success from the processor's webhook.
  if (open?.status !== "PENDING") return false;
  const others = await db.paymentAttempt.findMany({ where: { paymentId, processorRef: { not: null } }, select: { processorRef: true } });
  const found = await processor.checkOrder({
    paymentId,
    amountPaise: payment.amountPaise,
    startedAt: open.createdAt,
    known: others.map((a) => a.processorRef!),
  });
  return settleCardHandOff(db, processors, paymentId, found, opts);
}

/**
 * The same, leaving processor failures for the next look. The hosted page does this when it is shown
 * (the customer coming back from the processor's page), so the outcome shows at once; reconciliation
 * does it on its schedule.
 */
export async function checkCardHandOff(db: Db, processors: Record<Mode, PaymentProcessor>, paymentId: string, opts: { leaveUnpaid: boolean }) {
  try {
    return await askAboutCardHandOff(db, processors, paymentId, opts);
  } catch (err) {
    log.warn("card hand-off not checked", { paymentId, err: err instanceof Error ? err.message : String(err) });
    return false;
  }
}
