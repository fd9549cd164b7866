import { sql, type AtomicWriter } from "@/server/db/atomic-write";
import type { BulkInserter } from "@/server/db/bulk-insert";
import { dateFromSql } from "@/server/db/sql-encoding";
import { isUniqueViolation } from "@/server/db/errors";
import type { Db, DbTx } from "@/server/db/client";
import { formatPaise } from "@/lib/money";
import type { REFUND_SUMMARY_STATUSES } from "@/lib/schemas/payments";
import { getConfig } from "@/server/config";
import { AppError } from "@/server/errors";
import { newPaymentId } from "@/server/lib/ids";
import type { Mode } from "@/lib/mode";
import { issueCheckoutToken } from "@/server/services/payments/checkout-token";
import { isFinal, orderKey, transitionPayment, type PaymentStatus } from "@/server/services/payments/state-machine";
import { newId } from "@/server/lib/ids";
import { paymentExpiryJob } from "@/server/jobs/registry";
import type { CreatePaymentInput } from "@/server/services/payments/create-input";
import type { PaymentProcessor } from "@/server/providers/payments/types";
import { isoOrNull } from "@/server/lib/dates";
import { storedFreeText } from "@/server/services/audit/redact";

type PaymentRow = NonNullable<Awaited<ReturnType<Db["payment"]["findUnique"]>>>;

export function checkoutUrlFor(paymentId: string): string {
  return `${getConfig().checkoutUrl}/checkout/${paymentId}`;
}

/** The `data` of a created payment (POST /api/checkout). */
export function createdView(p: PaymentRow) {
  return {
    paymentId: p.id,
    checkoutUrl: checkoutUrlFor(p.id),
    expiresAt: p.expiresAt.toISOString(),
    merchantOrderId: p.orderId,
    amount: formatPaise(p.amountPaise),
    currency: "INR" as const,
    _token: issueCheckoutToken(p.id, p.expiresAt),
  };
}

/** An open payment whose time is up is expired on the spot (the sweeper may not have run yet). */
async function expireIfDue(tx: DbTx, p: PaymentRow, now: Date): Promise<boolean> {
  if (p.expiresAt > now || (p.status !== "CREATED" && p.status !== "FAILED")) return false;
  return transitionPayment(tx, p, p.status as PaymentStatus, "EXPIRED", { reason: "EXPIRED", expiry: "after", now });
}

export interface CreatedPayment {
  payment: PaymentRow;
  created: boolean;
}

/**
 * The order rules: one open payment per order id (same amount → the same payment back,
 * different amount → DUPLICATE_ORDER_ID), a paid order is never paid again (ORDER_ALREADY_PAID),
 * and after expiry or cancellation a new payment may be made.
 */
export async function createPayment(
  db: Db,
  bulk: BulkInserter,
  merchantId: string,
  mode: Mode,
  input: CreatePaymentInput,
  defaultExpiryMinutes: number,
): Promise<CreatedPayment> {
  const key = orderKey(merchantId, mode, input.orderId);
  // Fast path first: the common case is a new order, so insert straight away and let the unique
  // open-order key (held by open and paid payments) catch repeats; the checks run only when the
  // insert is refused.
  const minutes = input.expiresInMinutes ?? defaultExpiryMinutes;
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = new Date();
    const payment: PaymentRow = {
      id: newPaymentId(),
      merchantId,
      mode,
      orderId: input.orderId,
      amountPaise: input.amount,
      currency: "INR",
      status: "CREATED",
      description: storedFreeText(input.description),
      customerName: storedFreeText(input.meta?.name),
      customerEmail: storedFreeText(input.meta?.email),
      customerPhone: input.meta?.phone ?? null,
      lat: input.lat ?? null,
      lng: input.lng ?? null,
      redirectUrl: input.redirectUrl ?? null,
      method: null,
      bankReference: null,
      paidAt: null,
      // Milliseconds are part of the API's expiresAt; keep them whole.
      expiresAt: new Date(now.getTime() + minutes * 60_000),
      openOrderKey: key,
      paidOrderKey: null,
      refundedPaise: 0,
      createdAt: now,
      updatedAt: now,
    };
    const job = paymentExpiryJob.row({ paymentId: payment.id }, { runAt: payment.expiresAt });
    try {
      // Payment, first timeline row and expiry job in one commit through the direct inserter: the
      // hot path of checkout creation, holding the database lock only for three inserts.
      await bulk.insert([
        { table: "Payment", columns: Object.keys(payment), rows: [Object.values(payment)] },
        {
          table: "PaymentEvent",
          columns: ["id", "paymentId", "fromStatus", "toStatus", "reason", "attemptId", "createdAt"],
          rows: [[newId("evt"), payment.id, null, "CREATED", "CREATED", null, now]],
        },
        { table: "Job", columns: [...Object.keys(job), "attempts", "createdAt", "updatedAt"], rows: [[...Object.values(job), 0, now, now]] },
      ]);
      return { payment, created: true };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    // The order already has an open payment (or one was just paid): decide against it.
    const existing = await db.$transaction(async (tx) => {
      const nowPaid = await tx.payment.findUnique({ where: { paidOrderKey: key }, select: { id: true } });
      if (nowPaid) throw new AppError("ORDER_ALREADY_PAID", `Order ${input.orderId} has already been paid (${nowPaid.id}).`);
      const open = await tx.payment.findUnique({ where: { openOrderKey: key } });
      if (!open || (await expireIfDue(tx, open, new Date()))) return null;
      if (open.amountPaise !== input.amount) {
        throw new AppError("DUPLICATE_ORDER_ID", `Order ${input.orderId} already has an open payment (${open.id}) for ${formatPaise(open.amountPaise)}.`);
      }
      return open;
    });
    if (existing) return { payment: existing, created: false };
  }
  throw new AppError("CONFLICT", "Could not create the payment; retry.");
}

const inOrder = [{ createdAt: "asc" as const }, { id: "asc" as const }];

/**
 * A payment of this merchant and mode with its attempts (and, for the dashboard, its timeline), or
 * PAYMENT_NOT_FOUND: the same answer for an unknown id, another merchant's and the other mode's.
 * The REST status call and the dashboard load a payment through here alike.
 */
export async function findMerchantPayment(db: Db, merchantId: string, mode: Mode, paymentId: string) {
  const p = await db.payment.findUnique({ where: { id: paymentId }, include: { attempts: { orderBy: inOrder }, events: { orderBy: inOrder } } });
  if (!p || p.merchantId !== merchantId || p.mode !== mode) throw new AppError("PAYMENT_NOT_FOUND");
  return p;
}

type AttemptRow = NonNullable<Awaited<ReturnType<Db["paymentAttempt"]["findUnique"]>>>;
type StatusPayment = Pick<
  PaymentRow,
  | "id"
  | "orderId"
  | "status"
  | "amountPaise"
  | "method"
  | "description"
  | "customerName"
  | "customerEmail"
  | "customerPhone"
  | "redirectUrl"
  | "createdAt"
  | "expiresAt"
  | "paidAt"
  | "bankReference"
  | "mode"
  | "refundedPaise"
>;
export type StatusAttempt = Pick<AttemptRow, "id" | "method" | "status" | "errorCode" | "errorMessage" | "createdAt" | "completedAt">;
type PaymentWithAttempts = StatusPayment & { attempts: StatusAttempt[] };

/** The payment's columns of its status view, as raw SQL reads them (see `statusFromSql`). */
export const paymentStatusSql = (paymentId: string) =>
  sql`SELECT "id", "merchantId", "mode", "orderId", "status", "amountPaise", "method", "description", "customerName", "customerEmail",
      "customerPhone", "redirectUrl", "createdAt", "expiresAt", "paidAt", "bankReference", "refundedPaise"
      FROM "Payment" WHERE "id" = ${paymentId}`;

/** The payment's attempts for its status view, oldest first. */
export const attemptsStatusSql = (paymentId: string) =>
  sql`SELECT "id", "method", "status", "errorCode", "errorMessage", "createdAt", "completedAt"
      FROM "PaymentAttempt" WHERE "paymentId" = ${paymentId} ORDER BY "createdAt" ASC, "id" ASC`;

export type PaymentStatusRow = StatusPayment & { merchantId: string };

/** The status view from the rows of `paymentStatusSql` and `attemptsStatusSql` (dates and numbers as either database gives them). */
export function statusFromSql(p: PaymentStatusRow, attempts: StatusAttempt[]) {
  return statusView({
    ...p,
    amountPaise: Number(p.amountPaise),
    refundedPaise: Number(p.refundedPaise),
    createdAt: dateFromSql(p.createdAt)!,
    expiresAt: dateFromSql(p.expiresAt)!,
    paidAt: dateFromSql(p.paidAt),
    attempts: attempts.map((a) => ({ ...a, createdAt: dateFromSql(a.createdAt)!, completedAt: dateFromSql(a.completedAt) })),
  });
}

/**
 * GET /api/payments/{id}/status: the same answer as findMerchantPayment + statusView, in two
 * prepared reads instead of Prisma's three queries (the timeline is not part of it), so that a
 * status poll costs less than creating a payment.
 */
export async function findMerchantPaymentStatus(writer: AtomicWriter, merchantId: string, mode: Mode, paymentId: string) {
  const [p] = await writer.read<PaymentStatusRow>(paymentStatusSql(paymentId));
  if (!p || p.merchantId !== merchantId || p.mode !== mode) throw new AppError("PAYMENT_NOT_FOUND");
  return statusFromSql(p, await writer.read<StatusAttempt>(attemptsStatusSql(paymentId)));
}

/** The status `data` (GET /api/payments/{id}/status); also the `data.payment` of payment webhooks. */
export function statusView(p: PaymentWithAttempts) {
  const customer = p.customerName || p.customerEmail || p.customerPhone ? { name: p.customerName, email: p.customerEmail, phone: p.customerPhone } : null;
  return {
    paymentId: p.id,
    merchantOrderId: p.orderId,
    status: p.status as PaymentStatus,
    isFinal: isFinal(p.status),
    amount: formatPaise(p.amountPaise),
    currency: "INR" as const,
    method: p.method,
    description: p.description,
    customer,
    attempts: p.attempts.map((a) => ({
      attemptId: a.id,
      method: a.method,
      status: a.status,
      errorCode: a.errorCode,
      errorMessage: a.errorMessage,
      createdAt: a.createdAt.toISOString(),
      completedAt: isoOrNull(a.completedAt),
    })),
    redirectUrl: p.redirectUrl,
    createdAt: p.createdAt.toISOString(),
    expiresAt: p.expiresAt.toISOString(),
    paidAt: isoOrNull(p.paidAt),
    bankReference: p.bankReference,
    mode: p.mode as Mode,
    amountRefunded: formatPaise(p.refundedPaise),
    refundStatus: refundStatusOf(p),
  };
}

/** Counted on the merchant refunds that are not FAILED (automatic refunds of late attempts excluded). */
export function refundStatusOf(p: { refundedPaise: number; amountPaise: number }): (typeof REFUND_SUMMARY_STATUSES)[number] {
  if (p.refundedPaise <= 0) return "NONE";
  return p.refundedPaise >= p.amountPaise ? "FULL" : "PARTIAL";
}

/**
 * A payment for the hosted checkout, with the rules of the mode: live mode needs a configured
 * processor and an https redirect. Returns the creation answer (`data` of the REST call).
 */
export async function openCheckout(
  db: Db,
  bulk: BulkInserter,
  processor: PaymentProcessor,
  merchant: { merchantId: string; mode: Mode; checkoutExpiryMinutes: number },
  input: CreatePaymentInput,
) {
  if (merchant.mode === "live") {
    if (input.redirectUrl && !input.redirectUrl.startsWith("https://")) {
      throw new AppError("INVALID_REDIRECT_URL", "In live mode the redirectUrl must use https.", { field: "redirectUrl" });
    }
    if (!processor.configured) throw new AppError("SERVICE_UNAVAILABLE", "No payment processor is configured for live mode yet.");
  }
  const { payment } = await createPayment(db, bulk, merchant.merchantId, merchant.mode, input, merchant.checkoutExpiryMinutes);
  return createdView(payment);
}
