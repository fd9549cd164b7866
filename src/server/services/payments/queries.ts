import type { Mode } from "@/lib/mode";
import { formatPaise } from "@/lib/money";
import type { PaymentFilters } from "@/lib/schemas/payments";
import type { Db } from "@/server/db/client";
import { CSV_BOM, csvLine } from "@/server/lib/csv";
import { istDayRange } from "@/server/lib/ist";
import { afterCursor, encodeCursor, newestFirst, toPage } from "@/server/lib/pagination";
import { checkoutUrlFor, findMerchantPayment, refundStatusOf } from "@/server/services/payments/payments";
import { isFinal } from "@/server/services/payments/state-machine";
import { deliveriesBySubject } from "@/server/services/webhooks/deliveries";
import { isoOrNull } from "@/server/lib/dates";
import { refundSummary, refundsOfPayment } from "@/server/services/refunds/dashboard";

/** The list's filters as a where (always inside the merchant + mode scope). */
function paymentFilterWhere(f: PaymentFilters) {
  return {
    ...(f.status ? { status: f.status } : {}),
    ...(f.orderId ? { orderId: f.orderId } : {}),
    ...istDayRange(f.from, f.to),
  };
}

const listColumns = {
  id: true,
  orderId: true,
  amountPaise: true,
  status: true,
  method: true,
  customerName: true,
  customerEmail: true,
  createdAt: true,
  paidAt: true,
  refundedPaise: true,
} as const;

/** The mode's payments, newest first; filters by status, order id and IST dates. */
export async function listPayments(db: Db, merchantId: string, mode: Mode, input: PaymentFilters & { cursor?: string; limit: number }) {
  const rows = await db.payment.findMany({
    where: { merchantId, mode, ...paymentFilterWhere(input), AND: [afterCursor(input.cursor)] },
    orderBy: newestFirst,
    take: input.limit + 1,
    select: listColumns,
  });
  const { rows: page, nextCursor } = toPage(rows, input.limit);
  return {
    items: page.map((p) => ({
      id: p.id,
      orderId: p.orderId,
      amountPaise: p.amountPaise,
      amount: formatPaise(p.amountPaise),
      status: p.status,
      method: p.method,
      customerName: p.customerName,
      customerEmail: p.customerEmail,
      createdAt: p.createdAt.toISOString(),
      paidAt: isoOrNull(p.paidAt),
      refundStatus: refundStatusOf(p),
    })),
    nextCursor,
  };
}

/** What a timeline row of a refund shows of it (a refund is never deleted, so it is there). */
function timelineRefund(r: { amountPaise: number; amount: string; automatic: boolean } | undefined) {
  return r ? { amountPaise: r.amountPaise, amount: r.amount, automatic: r.automatic } : null;
}

/**
 * One payment with its attempts, its refunds, its timeline (status changes and refund rows, each
 * refund row with its refund) and every webhook delivery of its events and its refunds' events.
 */
export async function getPaymentDetail(db: Db, merchantId: string, mode: Mode, paymentId: string) {
  const p = await findMerchantPayment(db, merchantId, mode, paymentId);
  const refunds = await refundsOfPayment(db, p.id, p.orderId);
  const refundById = new Map(refunds.map((r) => [r.refundId, r]));
  return {
    payment: {
      id: p.id,
      mode: p.mode as Mode,
      orderId: p.orderId,
      amountPaise: p.amountPaise,
      amount: formatPaise(p.amountPaise),
      currency: p.currency,
      status: p.status,
      isFinal: isFinal(p.status),
      description: p.description,
      customer: { name: p.customerName, email: p.customerEmail, phone: p.customerPhone },
      redirectUrl: p.redirectUrl,
      method: p.method,
      bankReference: p.bankReference,
      /** The hosted page, while the customer can still pay. */
      checkoutUrl: isFinal(p.status) ? null : checkoutUrlFor(p.id),
      createdAt: p.createdAt.toISOString(),
      expiresAt: p.expiresAt.toISOString(),
      paidAt: isoOrNull(p.paidAt),
      updatedAt: p.updatedAt.toISOString(),
      ...refundSummary(p),
    },
    attempts: p.attempts.map((a) => ({
      id: a.id,
      method: a.method,
      status: a.status,
      vpa: a.vpa,
      cardNetwork: a.cardNetwork,
      cardLast4: a.cardLast4,
      bank: a.bank,
      errorCode: a.errorCode,
      errorMessage: a.errorMessage,
      bankReference: a.bankReference,
      createdAt: a.createdAt.toISOString(),
      completedAt: isoOrNull(a.completedAt),
    })),
    timeline: p.events.map((e) => ({
      id: e.id,
      fromStatus: e.fromStatus,
      toStatus: e.toStatus,
      reason: e.reason,
      attemptId: e.attemptId,
      refundId: e.refundId,
      refund: e.refundId ? timelineRefund(refundById.get(e.refundId)) : null,
      createdAt: e.createdAt.toISOString(),
    })),
    refunds,
    webhooks: await deliveriesBySubject(db, merchantId, mode, [p.id, ...refunds.map((r) => r.refundId)]),
  };
}

// ---- CSV export ----------------------------------------------------------------------------------

export const PAYMENT_CSV_COLUMNS = [
  "payment_id",
  "order_id",
  "amount",
  "currency",
  "status",
  "method",
  "description",
  "customer_name",
  "customer_email",
  "customer_phone",
  "bank_reference",
  "created_at",
  "paid_at",
  "expires_at",
  "mode",
  // Added later, so at the end: a reader that counts columns keeps working.
  "amount_refunded",
  "refund_status",
] as const;

type PaymentCsvRow = {
  id: string;
  orderId: string;
  amountPaise: number;
  currency: string;
  status: string;
  method: string | null;
  description: string | null;
  customerName: string | null;
  customerEmail: string | null;
  customerPhone: string | null;
  bankReference: string | null;
  createdAt: Date;
  paidAt: Date | null;
  expiresAt: Date;
  mode: string;
  refundedPaise: number;
};

/** Times are ISO 8601 UTC and amounts rupees with two decimals, as in the API. */
function paymentCsvLine(p: PaymentCsvRow): string {
  return csvLine([
    p.id,
    p.orderId,
    formatPaise(p.amountPaise),
    p.currency,
    p.status,
    p.method,
    p.description,
    p.customerName,
    p.customerEmail,
    p.customerPhone,
    p.bankReference,
    p.createdAt.toISOString(),
    isoOrNull(p.paidAt),
    p.expiresAt.toISOString(),
    p.mode,
    // As the API's amountRefunded and refundStatus: refunds not FAILED, automatic ones apart.
    formatPaise(p.refundedPaise),
    refundStatusOf(p),
  ]);
}

/** Rows read per database round trip while streaming. */
const EXPORT_BATCH = 500;

/**
 * The filtered payments as CSV text, newest first, in chunks read a batch at a time so an export of
 * any size streams in constant memory. The first chunk is the BOM and the header line.
 */
export async function* exportPaymentsCsv(db: Db, merchantId: string, mode: Mode, filters: PaymentFilters): AsyncGenerator<string> {
  yield `${CSV_BOM}${csvLine([...PAYMENT_CSV_COLUMNS])}`;
  const where = { merchantId, mode, ...paymentFilterWhere(filters) };
  let cursor: string | undefined;
  for (;;) {
    const rows = await db.payment.findMany({ where: { ...where, AND: [afterCursor(cursor)] }, orderBy: newestFirst, take: EXPORT_BATCH });
    if (rows.length === 0) return;
    yield rows.map(paymentCsvLine).join("");
    if (rows.length < EXPORT_BATCH) return;
    cursor = encodeCursor(rows[rows.length - 1]!);
  }
}
