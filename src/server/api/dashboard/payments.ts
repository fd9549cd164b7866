import { paymentsGetInput, paymentsListInput, type PaymentFilters } from "@/lib/schemas/payments";
import { formatPaise } from "@/lib/money";
import { afterCursor, istDayStart, newestFirst, toPage } from "@/server/api/dashboard/logs";
import { deliveryInclude, deliveryView } from "@/server/api/dashboard/webhooks";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { checkoutUrlFor } from "@/server/services/payments/payments";
import { isFinal } from "@/server/services/payments/state-machine";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

type Mode = "sandbox" | "live";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The list's filters as a Prisma where (always inside the merchant + mode scope). */
export function paymentFilterWhere(f: PaymentFilters) {
  const createdAt: { gte?: Date; lt?: Date } = {};
  if (f.from) createdAt.gte = istDayStart(f.from);
  // "to" is inclusive: everything before the next IST day starts.
  if (f.to) createdAt.lt = new Date(istDayStart(f.to).getTime() + 24 * 3600 * 1000);
  return {
    ...(f.status ? { status: f.status } : {}),
    ...(f.orderId ? { orderId: f.orderId } : {}),
    ...(f.from || f.to ? { createdAt } : {}),
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
} as const;

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
      paidAt: iso(p.paidAt),
    })),
    nextCursor,
  };
}

/** One payment with its attempts, its timeline and every webhook delivery of its events. */
export async function getPaymentDetail(db: Db, merchantId: string, mode: Mode, paymentId: string) {
  const p = await db.payment.findFirst({
    where: { id: paymentId, merchantId, mode },
    include: { attempts: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] }, events: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } },
  });
  if (!p) throw new AppError("PAYMENT_NOT_FOUND");
  const events = await db.webhookEvent.findMany({
    where: { subjectId: p.id, merchantId, mode },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    include: { deliveries: { orderBy: [{ createdAt: "asc" }, { id: "asc" }], include: deliveryInclude } },
  });
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
      paidAt: iso(p.paidAt),
      updatedAt: p.updatedAt.toISOString(),
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
      completedAt: iso(a.completedAt),
    })),
    timeline: p.events.map((e) => ({
      id: e.id,
      fromStatus: e.fromStatus,
      toStatus: e.toStatus,
      reason: e.reason,
      attemptId: e.attemptId,
      createdAt: e.createdAt.toISOString(),
    })),
    webhooks: events.map((e) => ({
      eventId: e.id,
      type: e.type,
      createdAt: e.createdAt.toISOString(),
      deliveries: e.deliveries.map(deliveryView),
    })),
  };
}

export const paymentsRouter = router({
  /** The mode's payments, newest first; filters by status, order id and IST dates. */
  list: modeProcedure.input(paymentsListInput).query(({ ctx, input }) => listPayments(ctx.services.db, ctx.merchantId, ctx.mode, input)),

  /** PAYMENT_NOT_FOUND (NOT_FOUND) for another merchant's or mode's payment, as for an unknown id. */
  get: modeProcedure.input(paymentsGetInput).query(({ ctx, input }) => getPaymentDetail(ctx.services.db, ctx.merchantId, ctx.mode, input.paymentId)),
});

// ---- CSV export ----------------------------------------------------------------------------------

export const PAYMENT_CSV_COLUMNS = [
  "payment_id", "order_id", "amount", "currency", "status", "method", "description",
  "customer_name", "customer_email", "customer_phone", "bank_reference", "created_at", "paid_at", "expires_at", "mode",
] as const;

/**
 * One CSV cell (RFC 4180). Text a spreadsheet would run as a formula (starting with = + - @, or a
 * tab / carriage return) gets a leading apostrophe, so customer-supplied text cannot become a formula.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvLine = (cells: (string | number | null | undefined)[]) => `${cells.map(csvCell).join(",")}\r\n`;

type PaymentCsvRow = {
  id: string; orderId: string; amountPaise: number; currency: string; status: string; method: string | null; description: string | null;
  customerName: string | null; customerEmail: string | null; customerPhone: string | null; bankReference: string | null;
  createdAt: Date; paidAt: Date | null; expiresAt: Date; mode: string;
};

/** Times are ISO 8601 UTC and amounts rupees with two decimals, as in the API. */
export function paymentCsvLine(p: PaymentCsvRow): string {
  return csvLine([
    p.id, p.orderId, formatPaise(p.amountPaise), p.currency, p.status, p.method, p.description,
    p.customerName, p.customerEmail, p.customerPhone, p.bankReference,
    p.createdAt.toISOString(), iso(p.paidAt), p.expiresAt.toISOString(), p.mode,
  ]);
}
