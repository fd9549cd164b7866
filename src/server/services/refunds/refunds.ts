import type { Mode } from "@/lib/mode";
import { AUTO_REFUND_REASON, type REFUND_STATUSES } from "@/lib/schemas/refunds";
import { formatPaise } from "@/lib/money";
import { REFUND_WINDOW_DAYS, REFUND_WINDOW_MS } from "@/lib/limits";
import { changedRows, insertFrom, insertMany, linked, rowsOf, sql, type AtomicWriter, type WriteScript } from "@/server/db/atomic-write";
import type { Db, DbTx } from "@/server/db/client";
import { dateFromSql } from "@/server/db/sql-encoding";
import { isUniqueViolation } from "@/server/db/errors";
import { AppError } from "@/server/errors";
import { isoOrNull } from "@/server/lib/dates";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { refundJob } from "@/server/jobs/registry";
import type { PaymentProcessor, RefundOutcome } from "@/server/providers/payments/types";
import { attemptsStatusSql, paymentStatusSql, statusFromSql, type PaymentStatusRow, type StatusAttempt } from "@/server/services/payments/payments";
import { webhookEventScript } from "@/server/services/webhooks/events";
import { storedFreeText } from "@/server/services/audit/redact";

export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Refunds per payment, FAILED ones included: a FAILED refund frees its amount, so without a cap one payment could take rows forever. */
export const MAX_REFUNDS_PER_PAYMENT = 100;
/**
 * Tries of an automatic refund while the processor cannot be reached (a connection failure, a
 * timeout, a 5xx): the job's backoff doubles from 1 s up to an hour between tries, so 24 tries
 * span about 10 hours. Each try carries the same refund id, so the processor makes one refund.
 */
export const AUTO_REFUND_MAX_ATTEMPTS = 24;
/** A PENDING refund with no job left (its worker was lost on the last try) is picked up after this. */
const STALLED_REFUND_MS = 15 * 60 * 1000;

type RefundRow = NonNullable<Awaited<ReturnType<Db["refund"]["findUnique"]>>>;

/** The refund object of the API and of `data.refund` in refund webhooks. */
export function refundView(r: RefundRow, merchantOrderId: string) {
  return {
    refundId: r.id,
    paymentId: r.paymentId,
    merchantOrderId,
    merchantRefundId: r.merchantRefundId,
    amount: formatPaise(r.amountPaise),
    currency: "INR" as const,
    status: r.status as RefundStatus,
    reason: r.reason,
    createdAt: r.createdAt.toISOString(),
    processedAt: isoOrNull(r.processedAt),
    failureReason: r.failureReason,
    automatic: r.attemptId !== null,
  };
}

export type RefundView = ReturnType<typeof refundView>;

export interface CreateRefundInput {
  /** Paise; absent: what is still refundable. */
  amount?: number;
  reason?: string | null;
  merchantRefundId?: string | null;
}

const refundKey = (merchantId: string, mode: string, merchantRefundId: string) => `${merchantId}|${mode}|${merchantRefundId}`;

/** A retry is the same merchantRefundId on the same payment with the same amount (as asked) and reason. */
function sameRequest(r: RefundRow, paymentId: string, input: CreateRefundInput): boolean {
  return r.paymentId === paymentId && r.requestedAmountPaise === (input.amount ?? null) && (r.reason ?? null) === storedFreeText(input.reason);
}

async function existingByMerchantRefundId(db: Db, merchantId: string, mode: string, paymentId: string, input: CreateRefundInput) {
  if (!input.merchantRefundId) return null;
  const r = await db.refund.findUnique({ where: { merchantRefundKey: refundKey(merchantId, mode, input.merchantRefundId) }, include: { payment: true } });
  if (!r) return null;
  if (!sameRequest(r, paymentId, input)) {
    throw new AppError("DUPLICATE_REFUND_ID", `merchantRefundId ${input.merchantRefundId} was already used for refund ${r.id} with another request.`, {
      field: "merchantRefundId",
    });
  }
  return refundView(r, r.payment.orderId);
}

/** The payment's refunds, timeline rows and follow-up job for one new refund, in the caller's transaction. */
async function insertRefund(
  tx: DbTx,
  refund: Omit<RefundRow, "updatedAt" | "processedAt" | "failureReason" | "status">,
  paymentStatus: string,
  maxAttempts?: number,
) {
  const row = await tx.refund.create({ data: { ...refund, status: "PENDING" } });
  await tx.paymentEvent.create({
    data: {
      id: newId("evt"),
      paymentId: refund.paymentId,
      fromStatus: paymentStatus,
      toStatus: paymentStatus,
      reason: refund.attemptId ? AUTO_REFUND_REASON : "REFUND_CREATED",
      attemptId: refund.attemptId,
      refundId: refund.id,
      createdAt: refund.createdAt,
    },
  });
  // A new refund id: no dedupe key needed (a plain insert, not an upsert).
  await refundJob.enqueue(tx, { refundId: refund.id }, { runAt: refund.createdAt, maxAttempts });
  return row;
}

/**
 * Reserves `amount` of the payment's refundable paise and writes the refund, its timeline row and
 * its job, as one write (one statement on PostgreSQL): the reservation is one conditional UPDATE
 * (however many requests race, the refunds that are not FAILED never add up to more than the
 * payment, nor number more than the cap), and nothing else is read or locked in between. No row
 * when the reservation was refused.
 */
function reserveAndInsertRefund(refund: RefundRow, paymentStatus: string) {
  const job = refundJob.row({ refundId: refund.id }, { runAt: refund.createdAt });
  const now = refund.createdAt;
  const event = [newId("evt"), refund.paymentId, paymentStatus, paymentStatus, "REFUND_CREATED", null, refund.id, now];
  return linked<{ id: string }>(
    [
      {
        name: "reserved",
        st: sql`UPDATE "Payment" SET "refundedPaise" = "refundedPaise" + ${refund.amountPaise}, "updatedAt" = ${refund.createdAt}
          WHERE "id" = ${refund.paymentId} AND "status" = 'SUCCESS' AND "refundedPaise" + ${refund.amountPaise} <= "amountPaise"
          AND (SELECT COUNT(*) FROM "Refund" WHERE "paymentId" = ${refund.paymentId}) < ${MAX_REFUNDS_PER_PAYMENT} RETURNING "id"`,
      },
      { st: insertFrom("reserved", { table: "Refund", columns: Object.keys(refund), rows: [Object.values(refund)] }) },
      { st: insertFrom("reserved", { table: "PaymentEvent", columns: PAYMENT_EVENT_COLUMNS, rows: [event] }) },
      {
        st: insertFrom("reserved", {
          table: "Job",
          columns: [...Object.keys(job), "attempts", "createdAt", "updatedAt"],
          rows: [[...Object.values(job), 0, now, now]],
        }),
      },
    ],
    ["reserved"],
  );
}

/**
 * A merchant refunds a SUCCESS payment in full or in part. The same merchantRefundId with the
 * same request returns the first refund, also when the requests race; with another request it is
 * refused. Processing happens on the durable job queue (`processRefund`).
 */
export async function createRefund(
  deps: { db: Db; atomicWriter: AtomicWriter },
  processor: PaymentProcessor,
  scope: { merchantId: string; mode: Mode },
  paymentId: string,
  input: CreateRefundInput,
  now = new Date(),
): Promise<RefundView> {
  const { db, atomicWriter } = deps;
  const { merchantId, mode } = scope;
  const [payment] = await atomicWriter.read<{
    merchantId: string;
    mode: string;
    orderId: string;
    status: string;
    amountPaise: number;
    refundedPaise: number;
    paidAt: unknown;
  }>(sql`SELECT "merchantId", "mode", "orderId", "status", "amountPaise", "refundedPaise", "paidAt" FROM "Payment" WHERE "id" = ${paymentId}`);
  if (!payment || payment.merchantId !== merchantId || payment.mode !== mode) throw new AppError("PAYMENT_NOT_FOUND");
  const replay = await existingByMerchantRefundId(db, merchantId, mode, paymentId, input);
  if (replay) return replay;
  if (!processor.configured) throw new AppError("SERVICE_UNAVAILABLE", "No payment processor is configured for live mode yet.");
  if (payment.status !== "SUCCESS") throw new AppError("PAYMENT_NOT_REFUNDABLE", `Only a successful payment can be refunded; this one is ${payment.status}.`);
  const paidAt = dateFromSql(payment.paidAt);
  if (!paidAt || now.getTime() - paidAt.getTime() > REFUND_WINDOW_MS) {
    throw new AppError("PAYMENT_NOT_REFUNDABLE", `This payment was made more than ${REFUND_WINDOW_DAYS} days ago and can no longer be refunded.`);
  }

  let refundable = Number(payment.amountPaise) - Number(payment.refundedPaise);
  for (let round = 0; round < 5; round++) {
    const amount = input.amount ?? refundable;
    if (amount <= 0 || amount > refundable) {
      // A retry racing its own first request for the whole amount finds nothing left: it is that refund.
      const first = await existingByMerchantRefundId(db, merchantId, mode, paymentId, input);
      if (first) return first;
      throw new AppError(
        "REFUND_EXCEEDS_AMOUNT",
        refundable > 0 ? `At most ${formatPaise(refundable)} of this payment can still be refunded.` : "This payment has been refunded in full.",
        { field: "amount" },
      );
    }
    const refund: RefundRow = {
      id: newId("rfnd"),
      paymentId,
      merchantId,
      mode,
      amountPaise: amount,
      status: "PENDING",
      reason: storedFreeText(input.reason),
      merchantRefundId: input.merchantRefundId ?? null,
      merchantRefundKey: input.merchantRefundId ? refundKey(merchantId, mode, input.merchantRefundId) : null,
      requestedAmountPaise: input.amount ?? null,
      attemptId: null,
      failureReason: null,
      createdAt: now,
      processedAt: null,
      updatedAt: now,
    };
    try {
      if ((await atomicWriter.run(reserveAndInsertRefund(refund, payment.status))).length === 1) return refundView(refund, payment.orderId);
    } catch (err) {
      // Two requests with one merchantRefundId raced: the loser answers with the winner's refund.
      if (!isUniqueViolation(err)) throw err;
      const winner = await existingByMerchantRefundId(db, merchantId, mode, paymentId, input);
      if (winner) return winner;
      throw err;
    }
    // Refused: the cap on refunds, or another refund took part of the amount meanwhile (decide again on what is left).
    if ((await db.refund.count({ where: { paymentId } })) >= MAX_REFUNDS_PER_PAYMENT) {
      throw new AppError("PAYMENT_NOT_REFUNDABLE", `This payment already has ${MAX_REFUNDS_PER_PAYMENT} refunds, the most one payment can have.`);
    }
    const fresh = await db.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { refundedPaise: true, amountPaise: true, status: true } });
    if (fresh.status !== "SUCCESS") throw new AppError("PAYMENT_NOT_REFUNDABLE", `Only a successful payment can be refunded; this one is ${fresh.status}.`);
    refundable = fresh.amountPaise - fresh.refundedPaise;
  }
  throw new AppError("CONFLICT", "The payment changed meanwhile; retry the refund.");
}

/**
 * The money of a late attempt's success that cannot be the payment (it succeeded through another
 * attempt, or is EXPIRED or CANCELLED) goes back in full. Not counted in the refundable amount.
 */
export async function createAutoRefund(
  tx: DbTx,
  payment: { id: string; merchantId: string; mode: string; amountPaise: number; status: string },
  attemptId: string,
  now: Date,
) {
  return insertRefund(
    tx,
    {
      id: newId("rfnd"),
      paymentId: payment.id,
      merchantId: payment.merchantId,
      mode: payment.mode,
      amountPaise: payment.amountPaise,
      reason: AUTO_REFUND_REASON,
      merchantRefundId: null,
      merchantRefundKey: null,
      requestedAmountPaise: null,
      attemptId,
      createdAt: now,
    },
    payment.status,
    AUTO_REFUND_MAX_ATTEMPTS,
  );
}

const PAYMENT_EVENT_COLUMNS = ["id", "paymentId", "fromStatus", "toStatus", "reason", "attemptId", "refundId", "createdAt"];

/** A Refund row as raw SQL returns it, in the shape Prisma gives. */
function refundFromSql(r: Record<string, unknown>): RefundRow {
  return {
    ...(r as unknown as RefundRow),
    amountPaise: Number(r.amountPaise),
    requestedAmountPaise: r.requestedAmountPaise === null ? null : Number(r.requestedAmountPaise),
    createdAt: dateFromSql(r.createdAt)!,
    processedAt: dateFromSql(r.processedAt),
    updatedAt: dateFromSql(r.updatedAt)!,
  };
}

function* refundOutcomeScript(refundId: string, outcome: RefundOutcome, now: Date): WriteScript<boolean> {
  const to: RefundStatus = outcome.outcome;
  const failureReason = outcome.outcome === "FAILED" ? outcome.failureReason : null;
  const [moved] = yield* rowsOf<Record<string, unknown>>(
    sql`UPDATE "Refund" SET "status" = ${to}, "processedAt" = ${to === "PROCESSED" ? now : null}, "failureReason" = ${failureReason}, "updatedAt" = ${now}
        WHERE "id" = ${refundId} AND "status" = 'PENDING'
        RETURNING "id", "paymentId", "merchantId", "mode", "amountPaise", "status", "reason", "merchantRefundId", "merchantRefundKey",
          "requestedAmountPaise", "attemptId", "failureReason", "createdAt", "processedAt", "updatedAt"`,
  );
  if (!moved) return false;
  const refund = refundFromSql(moved);
  // A failed merchant refund frees its amount; an automatic one never held any.
  if (to === "FAILED" && refund.attemptId === null) {
    yield* changedRows(
      sql`UPDATE "Payment" SET "refundedPaise" = "refundedPaise" - ${refund.amountPaise} WHERE "id" = ${refund.paymentId} AND "refundedPaise" >= ${refund.amountPaise}`,
    );
  }
  const [payment] = yield* rowsOf<PaymentStatusRow>(paymentStatusSql(refund.paymentId));
  const attempts = yield* rowsOf<StatusAttempt>(attemptsStatusSql(refund.paymentId));
  const webhookRows = yield* webhookEventScript({
    merchantId: refund.merchantId,
    mode: refund.mode,
    type: to === "PROCESSED" ? "refund.processed" : "refund.failed",
    subjectId: refund.id,
    data: { refund: refundView(refund, payment!.orderId), payment: statusFromSql(payment!, attempts) },
    at: now,
  });
  const event = [
    newId("evt"),
    payment!.id,
    payment!.status,
    payment!.status,
    to === "PROCESSED" ? "REFUND_PROCESSED" : "REFUND_FAILED",
    refund.attemptId,
    refundId,
    now,
  ];
  yield* insertMany([{ table: "PaymentEvent", columns: PAYMENT_EVENT_COLUMNS, rows: [event] }, ...webhookRows]);
  return true;
}

/** Applies the processor's answer once: a conditional update from PENDING, its timeline row and its webhook, in one atomic write. */
export function applyRefundOutcome(writer: AtomicWriter, refundId: string, outcome: RefundOutcome, now = new Date()): Promise<boolean> {
  return writer.transaction(refundOutcomeScript(refundId, outcome, now));
}

/**
 * The refund job: asks the mode's processor once the refund is still PENDING (at least once per
 * refund). A processor that cannot be reached makes the job throw, and the queue tries again later
 * under the same refund id; a refusal is the processor's final word and fails the refund at once,
 * automatic ones too (the same request would be refused again). A failed refund sends the
 * merchant `refund.failed`, and a failed automatic one is listed for operators.
 */
export async function processRefund(writer: AtomicWriter, processors: Record<Mode, PaymentProcessor>, refundId: string) {
  const [refund] = await writer.read<{
    id: string;
    status: string;
    mode: string;
    paymentId: string;
    attemptId: string | null;
    amountPaise: number;
    reason: string | null;
  }>(sql`SELECT "id", "status", "mode", "paymentId", "attemptId", "amountPaise", "reason" FROM "Refund" WHERE "id" = ${refundId}`);
  if (!refund || refund.status !== "PENDING") return;
  const outcome = await processors[refund.mode as Mode].refund({
    id: refund.id,
    paymentId: refund.paymentId,
    attemptId: refund.attemptId,
    amountPaise: Number(refund.amountPaise),
    reason: refund.reason,
  });
  // Accepted by a live processor: its refund webhook ends the refund.
  if (outcome.outcome === "PENDING") return;
  if (outcome.outcome === "FAILED" && refund.attemptId) {
    log.error("payment processor refused an automatic refund", { refundId: refund.id, paymentId: refund.paymentId });
  }
  await applyRefundOutcome(writer, refundId, outcome);
}

/**
 * The refund job used up its tries without an answer from the processor: the refund fails with
 * that reason. A merchant refund frees its amount, so the merchant may refund again; an automatic
 * one is listed for operators, who check the processor's record of it before returning the money
 * another way (a try that timed out may still have reached the processor).
 */
export async function giveUpRefund(db: Db, writer: AtomicWriter, refundId: string) {
  const refund = await db.refund.findUnique({ where: { id: refundId }, select: { status: true, attemptId: true, paymentId: true } });
  if (!refund || refund.status !== "PENDING") return;
  if (refund.attemptId) {
    log.error("automatic refund failed: the payment processor could not be reached", { refundId, paymentId: refund.paymentId });
    await applyRefundOutcome(writer, refundId, {
      outcome: "FAILED",
      failureReason: "The payment processor could not be reached over repeated tries for several hours; the money was not sent back.",
    });
    return;
  }
  await applyRefundOutcome(writer, refundId, {
    outcome: "FAILED",
    failureReason: "The payment processor did not confirm the refund after repeated tries. Create the refund again.",
  });
}

/**
 * PENDING refunds whose job is gone (its worker was lost during the last try, so the queue marked it
 * DEAD without running it) get a new job. Run by the periodic sweep.
 */
export async function requeueStalledRefunds(db: Db, now = new Date()): Promise<number> {
  const stalled = await db.refund.findMany({
    where: { status: "PENDING", createdAt: { lt: new Date(now.getTime() - STALLED_REFUND_MS) } },
    select: { id: true },
    take: 500,
  });
  let requeued = 0;
  for (const r of stalled) {
    if (await refundJob.countLive(db, r.id)) continue;
    await refundJob.enqueue(db, { refundId: r.id }, { runAt: now });
    requeued++;
  }
  return requeued;
}

/** A payment's refunds, newest first; PAYMENT_NOT_FOUND like the status call. */
export async function listPaymentRefunds(db: Db, merchantId: string, mode: Mode, paymentId: string) {
  const payment = await db.payment.findUnique({ where: { id: paymentId }, select: { merchantId: true, mode: true, orderId: true } });
  if (!payment || payment.merchantId !== merchantId || payment.mode !== mode) throw new AppError("PAYMENT_NOT_FOUND");
  const rows = await db.refund.findMany({ where: { paymentId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  return rows.map((r) => refundView(r, payment.orderId));
}

/** One refund; REFUND_NOT_FOUND alike for an unknown id, another merchant's and the other mode's. */
export async function getRefund(db: Db, merchantId: string, mode: Mode, refundId: string) {
  const r = await db.refund.findUnique({ where: { id: refundId }, include: { payment: { select: { orderId: true } } } });
  if (!r || r.merchantId !== merchantId || r.mode !== mode) throw new AppError("REFUND_NOT_FOUND");
  return refundView(r, r.payment.orderId);
}
