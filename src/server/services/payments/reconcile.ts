/**
 * Reconciliation: a live attempt still pending is asked about at the processor 2, 5, 10 and 15
 * minutes after it started, so a lost webhook never leaves a payment pending. Whatever the processor
 * says goes through the same state machine as a webhook; the attempt's 15-minute timeout still applies.
 */
import type { Db } from "@/server/db/client";
import { log } from "@/server/lib/logger";
import type { PaymentProcessor } from "@/server/providers/payments/types";
import type { Mode } from "@/lib/mode";
import { checkCardHandOff, isCardHandOff } from "@/server/services/payments/card-hand-off";
import { completeAttempt, RECONCILE_AFTER_MS } from "@/server/services/payments/lifecycle";

/** Asks the processor about a pending attempt; returns when to ask again, or null when done. */
export async function reconcileAttempt(db: Db, processors: Record<string, PaymentProcessor>, attemptId: string, now = new Date()): Promise<Date | null> {
  const attempt = await db.paymentAttempt.findUnique({
    where: { id: attemptId },
    select: { id: true, status: true, method: true, processorRef: true, createdAt: true, payment: { select: { id: true, mode: true, amountPaise: true } } },
  });
  if (!attempt || attempt.status !== "PENDING") return null;
  const processor = processors[attempt.payment.mode];
  if (!processor?.checkAttempt) return null;
  if (!attempt.processorRef && isCardHandOff(attempt.payment.mode, attempt)) {
    // Paid on the processor's own page: ask about the order. Nothing paid yet may mean the customer is still there.
    if (await checkCardHandOff(db, processors as Record<Mode, PaymentProcessor>, attempt.payment.id, { leaveUnpaid: false })) return null;
  } else if (attempt.processorRef) {
    const found = await processor.checkAttempt({ paymentId: attempt.payment.id, processorRef: attempt.processorRef, amountPaise: attempt.payment.amountPaise });
    if (found.result !== "PENDING") {
      if (found.result === "FAILED" && found.errorCode === "AMOUNT_MISMATCH") {
        log.error("payment processor reported another amount", { paymentId: attempt.payment.id, attemptId });
      }
      log.info("attempt settled by reconciliation", { paymentId: attempt.payment.id, attemptId, result: found.result });
      const result =
        found.result === "SUCCESS"
          ? { outcome: "SUCCESS" as const, ...(found.bankReference ? { bankReference: found.bankReference } : {}) }
          : { outcome: "FAILED" as const, errorCode: found.errorCode, errorMessage: found.errorMessage };
      await completeAttempt(db, attempt.id, result, processors);
      return null;
    }
  }
  const elapsed = now.getTime() - attempt.createdAt.getTime();
  const next = RECONCILE_AFTER_MS.find((ms) => ms > elapsed);
  return next === undefined ? null : new Date(attempt.createdAt.getTime() + next);
}
