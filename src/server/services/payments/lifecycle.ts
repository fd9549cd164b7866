import type { Db, DbTx } from "@/server/db/client";
import { AppError, isAppError } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { attemptReconcileJob, attemptTimeoutJob, processorResultJob } from "@/server/jobs/registry";
import { cardNetwork, luhnValid, normaliseCardNumber } from "@/lib/cards";
import type { AttemptStart, PaymentMethodInput, PaymentProcessor } from "@/server/providers/payments/types";
import { currentSigningSecret } from "@/server/services/merchants/signing-secrets";
import { findMerchantPayment, statusView } from "@/server/services/payments/payments";
import { redirectSignature } from "@/server/services/payments/signature";
import { isFinal, transitionPayment, type PaymentStatus } from "@/server/services/payments/state-machine";
import { createAutoRefund } from "@/server/services/refunds/refunds";
import { emitWebhookEvent, type WebhookEventType } from "@/server/services/webhooks/events";

/** When, after a live attempt started, its processor is asked about it (reconcile.ts): a lost webhook never leaves it pending. */
export const RECONCILE_AFTER_MS = [2, 5, 10, 15].map((minutes) => minutes * 60_000);

/** No attempt stays PENDING longer than this: then it fails with ATTEMPT_TIMEOUT. */
export const ATTEMPT_TIMEOUT_MS = 15 * 60 * 1000;
export const MAX_ATTEMPTS_PER_PAYMENT = 25;

async function emitPaymentEvent(tx: DbTx, paymentId: string, type: WebhookEventType) {
  const p = await tx.payment.findUniqueOrThrow({ where: { id: paymentId }, include: { attempts: { orderBy: { createdAt: "asc" } } } });
  await emitWebhookEvent(tx, { merchantId: p.merchantId, mode: p.mode, type, subjectId: p.id, data: { payment: statusView(p) } });
}

/** What can be refused before an attempt exists: a card number that cannot be one. */
function checkMethodInput(input: PaymentMethodInput) {
  if (input.method === "CARD" && input.flow !== "hosted" && !luhnValid(normaliseCardNumber(input.number))) {
    throw new AppError("VALIDATION_ERROR", "The card number is not valid.", { field: "number" });
  }
}

/** What may be kept of the customer's choice before the processor answers: never the card number. */
function attemptDetails(input: PaymentMethodInput) {
  switch (input.method) {
    case "UPI":
      return { vpa: input.flow === "collect" ? input.vpa.trim().toLowerCase() : null };
    case "CARD": {
      if (input.flow === "hosted") return {};
      const digits = normaliseCardNumber(input.number);
      return { cardNetwork: cardNetwork(digits), cardLast4: digits.slice(-4) };
    }
    case "NETBANKING":
      return { bank: input.bank };
  }
}

/**
 * The customer starts paying. Only from CREATED or FAILED and before expiry. The attempt is claimed
 * first (a conditional status update, so two tabs or a double click start at most one), and only
 * the winner calls the processor: it never sees two concurrent starts for one payment.
 */
export async function startAttempt(db: Db, processor: PaymentProcessor, paymentId: string, input: PaymentMethodInput) {
  const payment = await db.payment.findUnique({ where: { id: paymentId } });
  if (!payment) throw new AppError("PAYMENT_NOT_FOUND");
  if (isFinal(payment.status)) throw new AppError("PAYMENT_NOT_PAYABLE", `This payment is already ${payment.status.toLowerCase()}.`);
  if (payment.status === "PENDING") throw new AppError("PAYMENT_NOT_PAYABLE", "A payment attempt is already in progress.");
  if (payment.expiresAt <= new Date()) throw new AppError("PAYMENT_NOT_PAYABLE", "This payment has expired.");
  if (!processor.configured) throw new AppError("SERVICE_UNAVAILABLE", "No payment processor is configured for live mode yet.");
  checkMethodInput(input);
  // Every attempt is kept and listed in the status object: bound what one payment can hold.
  if ((await db.paymentAttempt.count({ where: { paymentId } })) >= MAX_ATTEMPTS_PER_PAYMENT) {
    throw new AppError(
      "PAYMENT_NOT_PAYABLE",
      `This payment has had ${MAX_ATTEMPTS_PER_PAYMENT} attempts, the most one payment can have; create a new payment.`,
    );
  }

  // A live processor's order is made (or found) first: if the processor cannot be reached, nothing was claimed.
  const prepared = await processor.prepareAttempt?.(payment);
  const now = new Date();
  const attemptId = newId("att");
  await db.$transaction(async (tx) => {
    const moved = await transitionPayment(tx, payment, payment.status as PaymentStatus, "PENDING", {
      reason: "ATTEMPT_STARTED",
      attemptId,
      expiry: "before",
      now,
      data: { method: input.method },
    });
    if (!moved) throw new AppError("PAYMENT_NOT_PAYABLE", "This payment changed meanwhile; refresh the page.");
    await tx.paymentAttempt.create({
      data: {
        id: attemptId,
        paymentId,
        method: input.method,
        status: "PENDING",
        ...attemptDetails(input),
        createdAt: now,
        timeoutAt: new Date(now.getTime() + ATTEMPT_TIMEOUT_MS),
      },
    });
    await attemptTimeoutJob.enqueue(tx, { attemptId }, { runAt: new Date(now.getTime() + ATTEMPT_TIMEOUT_MS), uniqueKey: `timeout:${attemptId}` });
    // A processor that can be asked is asked, in case its webhook is lost.
    if (processor.checkAttempt) {
      await attemptReconcileJob.enqueue(tx, { attemptId }, { runAt: new Date(now.getTime() + RECONCILE_AFTER_MS[0]!), uniqueKey: `reconcile:${attemptId}` });
    }
  });

  let started: AttemptStart;
  try {
    started = await processor.startAttempt(payment, input, prepared);
  } catch (err) {
    // The processor refused or could not be reached: the claimed attempt fails now, so the customer can retry.
    const known = isAppError(err);
    await completeAttempt(db, attemptId, {
      outcome: "FAILED",
      errorCode: known && err.code !== "INTERNAL_ERROR" ? err.code : "PROCESSOR_ERROR",
      errorMessage: known ? err.message : "The payment could not be started.",
    });
    throw err;
  }
  await applyStart(db, processor, { id: attemptId, paymentId, method: input.method }, started, now);
  return started.next ? { attemptId, next: started.next } : { attemptId };
}

/** What the processor said about a started attempt: kept details, and its result now or later. */
async function applyStart(db: Db, processor: PaymentProcessor, attempt: { id: string; paymentId: string; method: string }, started: AttemptStart, now: Date) {
  const attemptId = attempt.id;
  // A late success of an earlier attempt may have paid the payment while the processor was starting
  // this one (and left it ABANDONED): withdraw it now that the processor knows it. Its result, if
  // any, is still applied below as a late result, so no money goes unaccounted.
  const still = await db.paymentAttempt.findUnique({ where: { id: attemptId }, select: { status: true } });
  if (still?.status === "ABANDONED") await cancelAtProcessor(processor, attempt);
  const details = {
    vpa: started.vpa,
    cardNetwork: started.cardNetwork,
    cardLast4: started.cardLast4,
    bank: started.bank,
    processorRef: started.processorRef,
  };
  if (Object.values(details).some((v) => v !== undefined)) {
    await db.paymentAttempt.updateMany({ where: { id: attemptId }, data: Object.fromEntries(Object.entries(details).filter(([, v]) => v !== undefined)) });
  }
  // The UPI link, QR or bank page the page shows again after a reload, kept only while the attempt is pending.
  if (started.next?.kind === "intent" || started.next?.kind === "qr" || started.next?.kind === "redirect") {
    await db.paymentAttempt.updateMany({ where: { id: attemptId, status: "PENDING" }, data: { customerAction: JSON.stringify(started.next) } });
  }
  const plan = started.plan;
  if ((plan.kind === "succeed" || plan.kind === "fail") && plan.afterMs > 0) {
    await processorResultJob.enqueue(
      db,
      plan.kind === "succeed"
        ? { attemptId, outcome: "SUCCESS" }
        : { attemptId, outcome: "FAILED", errorCode: plan.errorCode, errorMessage: plan.errorMessage },
      { runAt: new Date(now.getTime() + plan.afterMs), uniqueKey: `result:${attemptId}` },
    );
  }
  if (plan.kind === "succeed" && plan.afterMs === 0) await completeAttempt(db, attemptId, { outcome: "SUCCESS" });
  if (plan.kind === "fail" && plan.afterMs === 0)
    await completeAttempt(db, attemptId, { outcome: "FAILED", errorCode: plan.errorCode, errorMessage: plan.errorMessage });
}

export type AttemptResult = { outcome: "SUCCESS"; bankReference?: string } | { outcome: "FAILED"; errorCode: string; errorMessage: string };

export const ATTEMPT_ABANDONED = "ATTEMPT_ABANDONED";
export const ATTEMPT_TIMEOUT = "ATTEMPT_TIMEOUT";

/** A card attempt of a live payment: always made on the processor's page (live card numbers are refused). */
export function isCardHandOff(mode: string, attempt: { method: string }): boolean {
  return mode === "live" && attempt.method === "CARD";
}

/**
 * An attempt that may still report a late result: the customer left it, or it timed out. So may a
 * card hand-off that failed: the card was declined on the processor's own page, where the customer
 * may still pay with another one (a payment of another amount is not waited for).
 */
export function mayReportLate(a: { status: string; errorCode: string | null }, opts: { handOff?: boolean } = {}): boolean {
  if (a.status === "ABANDONED") return true;
  if (a.status !== "FAILED") return false;
  return a.errorCode === ATTEMPT_TIMEOUT || (opts.handOff === true && a.errorCode !== "AMOUNT_MISMATCH");
}

/**
 * Serialises every result, abandon and late result of one payment: the first write of the
 * transaction touches the payment row (a row lock on PostgreSQL; SQLite transactions already take
 * the write lock at BEGIN), so the decisions below read a payment no one else is moving.
 */
async function lockPayment(tx: DbTx, paymentId: string) {
  await tx.payment.updateMany({ where: { id: paymentId }, data: { updatedAt: new Date() } });
}

export type CompletionOutcome = "SUCCESS" | "FAILED" | "LATE_SUCCESS" | "AUTO_REFUNDED" | null;

/**
 * Applies a processor's (or simulator's, or timeout's) result once. A pending attempt's result moves
 * the payment; a late result of an abandoned or timed-out attempt follows its own rule: a failure changes
 * nothing, a success pays the payment if nothing else has and it is not final, otherwise its money
 * is refunded in full automatically. A payment is never paid twice and every rupee that came in is
 * the payment or a refund. Returns what happened (null: nothing, e.g. a duplicate result).
 */
export async function completeAttempt(
  db: Db,
  attemptId: string,
  result: AttemptResult,
  processors?: Record<string, PaymentProcessor>,
): Promise<CompletionOutcome> {
  const first = await db.paymentAttempt.findUnique({ where: { id: attemptId }, select: { paymentId: true } });
  if (!first) return null;
  const now = new Date();
  const superseded: { id: string; paymentId: string; method: string; mode: string }[] = [];
  const outcome = await db.$transaction(async (tx): Promise<CompletionOutcome> => {
    await lockPayment(tx, first.paymentId);
    const attempt = await tx.paymentAttempt.findUnique({ where: { id: attemptId }, include: { payment: true } });
    if (!attempt) return null;
    const p = attempt.payment;
    const late = mayReportLate(attempt, { handOff: isCardHandOff(p.mode, attempt) });
    if (attempt.status !== "PENDING" && !late) return null;
    if (late && result.outcome === "FAILED") return null;
    const bankReference =
      result.outcome === "SUCCESS" ? (result.bankReference ?? `PRK${now.getTime().toString().slice(-9)}${attemptId.slice(-4).toUpperCase()}`) : null;
    const claimed = await tx.paymentAttempt.updateMany({
      where: { id: attemptId, status: attempt.status, errorCode: attempt.errorCode },
      data:
        result.outcome === "SUCCESS"
          ? { status: "SUCCESS", completedAt: now, bankReference, errorCode: null, errorMessage: null, customerAction: null }
          : { status: "FAILED", completedAt: now, errorCode: result.errorCode, errorMessage: result.errorMessage, customerAction: null },
    });
    if (claimed.count !== 1) return null;

    const status = p.status as PaymentStatus;
    if (result.outcome === "SUCCESS" && (status === "SUCCESS" || status === "EXPIRED" || status === "CANCELLED")) {
      // The payment cannot take this money: it goes back in full.
      await createAutoRefund(tx, p, attemptId, now);
      return "AUTO_REFUNDED";
    }
    if (result.outcome === "SUCCESS") {
      if (status === "PENDING" && late) {
        // Another attempt is in flight: the late success pays, the other is left (and refunded if it succeeds too).
        const current = await tx.paymentAttempt.findMany({ where: { paymentId: p.id, status: "PENDING" }, select: { id: true, method: true } });
        for (const c of current) {
          const left = await tx.paymentAttempt.updateMany({
            where: { id: c.id, status: "PENDING" },
            data: {
              status: "ABANDONED",
              completedAt: now,
              errorCode: ATTEMPT_ABANDONED,
              errorMessage: "Another attempt of this payment succeeded first.",
              customerAction: null,
            },
          });
          if (left.count === 1) superseded.push({ id: c.id, paymentId: p.id, method: c.method, mode: p.mode });
        }
      }
      const moved = await transitionPayment(tx, p, status, "SUCCESS", {
        reason: late ? "LATE_ATTEMPT_SUCCEEDED" : "ATTEMPT_SUCCEEDED",
        attemptId,
        now,
        data: { paidAt: now, bankReference, method: attempt.method },
      });
      if (!moved) throw new AppError("CONFLICT", "The payment changed while the result was applied.");
      await emitPaymentEvent(tx, p.id, "payment.success");
      return late ? "LATE_SUCCESS" : "SUCCESS";
    }
    // A pending attempt failed.
    if (status !== "PENDING") return "FAILED";
    const moved = await transitionPayment(tx, p, "PENDING", "FAILED", { reason: result.errorCode, attemptId, now, data: { method: attempt.method } });
    if (!moved) throw new AppError("CONFLICT", "The payment was not waiting for this attempt.");
    await emitPaymentEvent(tx, p.id, "payment.failed");
    await expireIfPastDue(tx, p, now);
    return "FAILED";
  });
  for (const s of superseded) await cancelAtProcessor(processors?.[s.mode], s);
  return outcome;
}

/** A failure after expiry leaves nothing to retry: expire now rather than wait for the sweeper. */
async function expireIfPastDue(tx: DbTx, p: { id: string; merchantId: string; mode: string; orderId: string; expiresAt: Date }, now: Date) {
  if (p.expiresAt > now) return;
  if (await transitionPayment(tx, p, "FAILED", "EXPIRED", { reason: "EXPIRED", expiry: "after", now: nextStep(now) }))
    await emitPaymentEvent(tx, p.id, "payment.expired");
}

/** The second move of one transaction is stamped a millisecond later, so the timeline (ordered by time) keeps their order. */
const nextStep = (now: Date) => new Date(now.getTime() + 1);

async function cancelAtProcessor(processor: PaymentProcessor | undefined, attempt: { id: string; paymentId: string; method: string }) {
  // Best effort: the attempt is already ABANDONED here, and a late result is handled either way.
  await processor?.cancelAttempt(attempt).catch(() => undefined);
}

/**
 * The customer leaves a pending attempt ("Use another method" or "Cancel payment"): the attempt
 * becomes ABANDONED and the payment FAILED (ATTEMPT_ABANDONED), from where they may retry at once;
 * with `thenCancel` the payment is cancelled in the same step. Its late result is still accepted.
 */
export async function abandonAttempt(db: Db, processor: PaymentProcessor, paymentId: string, opts: { attemptId?: string; thenCancel?: boolean } = {}) {
  const now = new Date();
  const left = await db.$transaction(async (tx) => {
    await lockPayment(tx, paymentId);
    const p = await tx.payment.findUnique({ where: { id: paymentId }, include: { attempts: { where: { status: "PENDING" } } } });
    if (!p) throw new AppError("PAYMENT_NOT_FOUND");
    const attempt = opts.attemptId ? p.attempts.find((a) => a.id === opts.attemptId) : p.attempts[0];
    if (!attempt || p.status !== "PENDING") throw new AppError("CONFLICT", "There is no pending attempt to leave.");
    await tx.paymentAttempt.updateMany({
      where: { id: attempt.id, status: "PENDING" },
      data: { status: "ABANDONED", completedAt: now, errorCode: ATTEMPT_ABANDONED, errorMessage: "The customer left this attempt.", customerAction: null },
    });
    const moved = await transitionPayment(tx, p, "PENDING", "FAILED", {
      reason: ATTEMPT_ABANDONED,
      attemptId: attempt.id,
      now,
      data: { method: attempt.method },
    });
    if (!moved) throw new AppError("CONFLICT", "This payment changed meanwhile; refresh the page.");
    await emitPaymentEvent(tx, p.id, "payment.failed");
    let cancelled = false;
    if (p.expiresAt <= now) await expireIfPastDue(tx, p, now);
    else if (opts.thenCancel) {
      cancelled = await transitionPayment(tx, p, "FAILED", "CANCELLED", { reason: "CANCELLED_BY_CUSTOMER", expiry: "before", now: nextStep(now) });
      if (cancelled) await emitPaymentEvent(tx, p.id, "payment.cancelled");
    }
    return { ...attempt, cancelled };
  });
  await cancelAtProcessor(processor, left);
  if (left.cancelled) await closeAtProcessor(processor, paymentId);
  return { attemptId: left.id };
}

/** Best effort, after the cancel committed: a late success is refunded automatically either way. */
async function closeAtProcessor(processor: PaymentProcessor | undefined, paymentId: string) {
  await processor?.closePayment?.(paymentId).catch(() => undefined);
}

export async function cancelPayment(db: Db, paymentId: string, processor?: PaymentProcessor) {
  await db.$transaction(async (tx) => {
    const p = await tx.payment.findUnique({ where: { id: paymentId } });
    if (!p) throw new AppError("PAYMENT_NOT_FOUND");
    if (p.status !== "CREATED" && p.status !== "FAILED") {
      throw new AppError(
        "CONFLICT",
        p.status === "PENDING" ? "A payment attempt is in progress; it can't be cancelled now." : `This payment is already ${p.status.toLowerCase()}.`,
      );
    }
    if (p.expiresAt <= new Date()) throw new AppError("CONFLICT", "This payment has expired.");
    const moved = await transitionPayment(tx, p, p.status as PaymentStatus, "CANCELLED", { reason: "CANCELLED_BY_CUSTOMER", expiry: "before" });
    if (!moved) throw new AppError("CONFLICT", "This payment changed meanwhile; refresh the page.");
    await emitPaymentEvent(tx, p.id, "payment.cancelled");
  });
  await closeAtProcessor(processor, paymentId);
}

/** The sweeper's work for one payment: CREATED or FAILED past expiresAt → EXPIRED. A PENDING attempt may still finish. */
export async function expirePayment(db: Db, paymentId: string): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const p = await tx.payment.findUnique({ where: { id: paymentId } });
    if (!p || (p.status !== "CREATED" && p.status !== "FAILED")) return false;
    const moved = await transitionPayment(tx, p, p.status as PaymentStatus, "EXPIRED", { reason: "EXPIRED", expiry: "after" });
    if (moved) await emitPaymentEvent(tx, p.id, "payment.expired");
    return moved;
  });
}

export async function timeoutAttempt(db: Db, attemptId: string): Promise<boolean> {
  const a = await db.paymentAttempt.findUnique({ where: { id: attemptId } });
  if (!a || a.status !== "PENDING" || a.timeoutAt > new Date()) return false;
  const done = await completeAttempt(db, attemptId, {
    outcome: "FAILED",
    errorCode: ATTEMPT_TIMEOUT,
    errorMessage: "No result from the payment network within 15 minutes.",
  });
  return done !== null;
}

/** Where the customer goes on a final state: redirectUrl plus paymentId, orderId, status and signature. */
export async function redirectTarget(db: Db, paymentId: string): Promise<string | null> {
  const p = await db.payment.findUnique({ where: { id: paymentId } });
  if (!p?.redirectUrl || !isFinal(p.status)) return null;
  const secret = await currentSigningSecret(db, p.merchantId, p.mode as "sandbox" | "live");
  if (!secret) return null;
  const url = new URL(p.redirectUrl);
  url.searchParams.set("paymentId", p.id);
  url.searchParams.set("orderId", p.orderId);
  url.searchParams.set("status", p.status);
  url.searchParams.set("signature", redirectSignature(secret, p.orderId, p.id, p.status));
  return url.toString();
}

export { findMerchantPayment };
