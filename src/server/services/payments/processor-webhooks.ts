/**
 * The payment processor's webhooks after their signature was checked: each distinct delivery is
 * recorded (only the fields its work reads: no customer details, no payment instrument) with its
 * job in one transaction, and the job moves the attempt or the refund through the same state
 * machines as every other result, so duplicates, replays and reordering change nothing twice.
 */
import crypto from "node:crypto";
import type { Mode } from "@/lib/mode";
import type { AtomicWriter } from "@/server/db/atomic-write";
import type { Db } from "@/server/db/client";
import { isUniqueViolation } from "@/server/db/errors";
import { processorWebhookJob } from "@/server/jobs/registry";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { attemptOutcome, refundOutcome } from "@/server/providers/payments/cashfree-outcomes";
import { paiseFrom } from "@/server/providers/payments/cashfree-pg";
import { askAboutCardHandOff, isCardHandOff, settleCardHandOff } from "@/server/services/payments/card-hand-off";
import { completeAttempt } from "@/server/services/payments/lifecycle";
import { applyRefundOutcome } from "@/server/services/refunds/refunds";
import type { PaymentProcessor, ProcessorAttemptResult } from "@/server/providers/payments/types";

/** What a recorded webhook keeps: enough to apply it, nothing personal. */
export interface ProcessorWebhookSummary {
  kind: "payment" | "refund" | "other";
  orderId: string | null;
  cfPaymentId: string | null;
  paymentStatus: string | null;
  amountPaise: number | null;
  /** A payment's `payment_currency`; absent from webhooks recorded before it was kept (read as none given). */
  currency?: string | null;
  bankReference: string | null;
  refundId: string | null;
  refundStatus: string | null;
}

type Json = Record<string, unknown>;

const objectAt = (value: unknown): Json => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {});

function textAt(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, 200) : null;
}

/** The vendor's event type and the fields Parakh reads out of a webhook body. */
export function summariseCashfreeWebhook(body: unknown): { eventType: string; summary: ProcessorWebhookSummary } {
  const root = objectAt(body);
  const data = objectAt(root.data);
  const eventType = textAt(root.type) ?? "UNKNOWN";
  const summary: ProcessorWebhookSummary = {
    kind: "other",
    orderId: null,
    cfPaymentId: null,
    paymentStatus: null,
    amountPaise: null,
    currency: null,
    bankReference: null,
    refundId: null,
    refundStatus: null,
  };
  if (eventType.startsWith("PAYMENT_") && data.payment !== undefined) {
    const payment = objectAt(data.payment);
    Object.assign(summary, {
      kind: "payment",
      orderId: textAt(objectAt(data.order).order_id),
      cfPaymentId: textAt(payment.cf_payment_id),
      paymentStatus: textAt(payment.payment_status),
      amountPaise: paiseFrom(payment.payment_amount),
      currency: textAt(payment.payment_currency),
      bankReference: textAt(payment.bank_reference),
    });
  } else if (eventType.startsWith("REFUND_") && data.refund !== undefined) {
    const refund = objectAt(data.refund);
    Object.assign(summary, {
      kind: "refund",
      orderId: textAt(refund.order_id),
      refundId: textAt(refund.refund_id),
      refundStatus: textAt(refund.refund_status),
      amountPaise: paiseFrom(refund.refund_amount),
    });
  }
  return { eventType: eventType.slice(0, 64), summary };
}

/**
 * Records a verified webhook and queues its work, in one transaction. The same body again (the
 * vendor's retry of one delivery, or a replay inside the signature's window) is recorded once.
 */
export async function recordCashfreeWebhook(db: Db, rawBody: Buffer, body: unknown): Promise<{ webhookId: string; duplicate: boolean }> {
  const { eventType, summary } = summariseCashfreeWebhook(body);
  const bodyHash = crypto.createHash("sha256").update(rawBody).digest("hex");
  const webhookId = newId("pwh");
  try {
    await db.$transaction(async (tx) => {
      await tx.processorWebhook.create({ data: { id: webhookId, provider: "cashfree", eventType, bodyHash, summary: JSON.stringify(summary) } });
      if (summary.kind !== "other") await processorWebhookJob.enqueue(tx, { webhookId }, { uniqueKey: `processor-webhook:${webhookId}` });
    });
    return { webhookId, duplicate: false };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const first = await db.processorWebhook.findUnique({ where: { bodyHash }, select: { id: true } });
    return { webhookId: first?.id ?? webhookId, duplicate: true };
  }
}

/** Thrown while an attempt's start has not yet stored the vendor's payment id: the job tries again. */
class AttemptNotYetKnown extends Error {}

/** The reported payment as a poll would read it. */
function reportedPayment(s: ProcessorWebhookSummary) {
  return {
    cfPaymentId: s.cfPaymentId ?? "",
    orderId: s.orderId,
    status: s.paymentStatus ?? "",
    amountPaise: s.amountPaise,
    currency: s.currency ?? null,
    group: null,
    bankReference: s.bankReference,
    errorCode: null,
    errorDescription: null,
    startedAt: null,
  };
}

/**
 * A payment made on the processor's own card page, which Parakh did not start: the order's card
 * attempt takes it. A success (or another amount) is applied as reported; a failure only as the
 * processor's current word on the order confirms it, since the customer may have paid with another
 * card there meanwhile. Returns whether the report concerned a card hand-off (applied, or already
 * applied: a second declined card, a duplicate).
 */
async function applyToCardHandOff(db: Db, processors: Record<string, PaymentProcessor>, paymentId: string, s: ProcessorWebhookSummary, amountPaise: number) {
  const cfPaymentId = s.cfPaymentId!;
  const reported = attemptOutcome(reportedPayment(s), amountPaise);
  const live = processors as Record<Mode, PaymentProcessor>;
  if (reported.result === "SUCCESS") {
    return settleCardHandOff(
      db,
      live,
      paymentId,
      { result: "SUCCESS", processorRef: cfPaymentId, bankReference: reported.bankReference },
      { leaveUnpaid: false },
    );
  }
  if (reported.result === "FAILED" && reported.errorCode === "AMOUNT_MISMATCH") {
    const found = { result: "FAILED" as const, processorRef: cfPaymentId, errorCode: reported.errorCode, errorMessage: reported.errorMessage };
    return settleCardHandOff(db, live, paymentId, found, { leaveUnpaid: false });
  }
  if (reported.result !== "FAILED") return false;
  const handOff = await db.paymentAttempt.findFirst({ where: { paymentId, method: "CARD" }, orderBy: { createdAt: "desc" }, select: { status: true } });
  if (handOff?.status !== "PENDING") return handOff !== null;
  // Asked again if the processor cannot say now (the job retries); reconciliation asks too.
  await askAboutCardHandOff(db, live, paymentId, { leaveUnpaid: false });
  return true;
}

async function applyPaymentWebhook(db: Db, processors: Record<string, PaymentProcessor>, s: ProcessorWebhookSummary) {
  if (!s.orderId || !s.cfPaymentId || !s.paymentStatus) return;
  const payment = await db.payment.findUnique({
    where: { id: s.orderId },
    include: { attempts: { where: { OR: [{ processorRef: s.cfPaymentId }, { status: "PENDING", processorRef: null }] } } },
  });
  if (!payment || payment.mode !== "live") return log.warn("processor webhook for an unknown payment", { paymentId: s.orderId });
  const attempt = payment.attempts.find((a) => a.processorRef === s.cfPaymentId);
  if (!attempt) {
    // Most likely the payment of the attempt whose start is storing its id right now: asked again shortly.
    if (payment.attempts.some((a) => !isCardHandOff(payment.mode, a))) throw new AttemptNotYetKnown(`attempt of ${payment.id} not yet started`);
    if (await applyToCardHandOff(db, processors, payment.id, s, payment.amountPaise)) return;
    return log.warn("processor webhook for an unknown attempt", { paymentId: payment.id, cfPaymentId: s.cfPaymentId, status: s.paymentStatus });
  }
  let outcome: ProcessorAttemptResult = attemptOutcome(reportedPayment(s), payment.amountPaise);
  // Webhooks may arrive out of order: a failure is applied only if the processor still says so.
  const processor = processors[payment.mode];
  if (outcome.result === "FAILED" && outcome.errorCode !== "AMOUNT_MISMATCH" && processor?.checkAttempt) {
    outcome = await processor.checkAttempt({ paymentId: payment.id, processorRef: s.cfPaymentId, amountPaise: payment.amountPaise });
  }
  if (outcome.result === "PENDING") return;
  if (outcome.result === "FAILED" && outcome.errorCode === "AMOUNT_MISMATCH") {
    log.error("payment processor reported another amount", {
      paymentId: payment.id,
      attemptId: attempt.id,
      cfPaymentId: s.cfPaymentId,
      reportedPaise: s.amountPaise,
      reportedCurrency: s.currency ?? null,
      amountPaise: payment.amountPaise,
    });
  }
  await completeAttempt(
    db,
    attempt.id,
    outcome.result === "SUCCESS"
      ? { outcome: "SUCCESS", ...(outcome.bankReference ? { bankReference: outcome.bankReference } : {}) }
      : { outcome: "FAILED", errorCode: outcome.errorCode, errorMessage: outcome.errorMessage },
    processors,
  );
}

async function applyRefundWebhook({ db, atomicWriter }: StoreDeps, s: ProcessorWebhookSummary) {
  if (!s.refundId || !s.refundStatus) return;
  const refund = await db.refund.findUnique({ where: { id: s.refundId }, select: { id: true, mode: true, status: true, attemptId: true } });
  if (!refund || refund.mode !== "live") return log.warn("processor webhook for an unknown refund", { refundId: s.refundId });
  const outcome = refundOutcome({ refundId: s.refundId, cfRefundId: null, status: s.refundStatus, amountPaise: s.amountPaise, statusDescription: null });
  if (!outcome) return;
  if (refund.status !== "PENDING") {
    // Money the processor says it returned for a refund Parakh recorded as failed: operators must know before returning it again.
    if (outcome.outcome === "PROCESSED" && refund.status === "FAILED") {
      log.error("payment processor processed a refund recorded as failed", { refundId: refund.id, automatic: refund.attemptId !== null });
    }
    return;
  }
  if (outcome.outcome === "FAILED" && refund.attemptId)
    log.error("payment processor failed an automatic refund", { refundId: refund.id, status: s.refundStatus });
  await applyRefundOutcome(atomicWriter, refund.id, outcome);
}

/** The job: applies one recorded webhook. */
/** Where webhooks are applied: the Prisma client, and the atomic writer refund outcomes go through. */
interface StoreDeps {
  db: Db;
  atomicWriter: AtomicWriter;
}

export async function applyProcessorWebhook(deps: StoreDeps, processors: Record<string, PaymentProcessor>, webhookId: string) {
  const { db } = deps;
  const row = await db.processorWebhook.findUnique({ where: { id: webhookId } });
  if (!row) return;
  const summary = JSON.parse(row.summary) as ProcessorWebhookSummary;
  if (summary.kind === "payment") await applyPaymentWebhook(db, processors, summary);
  if (summary.kind === "refund") await applyRefundWebhook(deps, summary);
}

/** Recorded webhooks are evidence of money movements: kept as long as the audit log, then deleted. */
export async function purgeOldProcessorWebhooks(db: Db, retentionDays: number, now = new Date()): Promise<number> {
  const { count } = await db.processorWebhook.deleteMany({ where: { receivedAt: { lt: new Date(now.getTime() - retentionDays * 86_400_000) } } });
  return count;
}
