/**
 * The dashboard's refunds: a payment's refunds and what is left to refund on its page, the mode's
 * Refunds list and its CSV export. Refunds are created through `createRefund`, as the API does.
 */
import { REFUND_WINDOW_MS } from "@/lib/limits";
import type { Mode } from "@/lib/mode";
import { formatPaise } from "@/lib/money";
import type { RefundFilters } from "@/lib/schemas/refunds";
import type { Db, Prisma } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { CSV_BOM, csvLine } from "@/server/lib/csv";
import { isoOrNull } from "@/server/lib/dates";
import { istDayRange } from "@/server/lib/ist";
import { afterCursor, encodeCursor, newestFirst, toPage } from "@/server/lib/pagination";
import { refundStatusOf } from "@/server/services/payments/payments";
import { refundView } from "@/server/services/refunds/refunds";

type RefundRow = NonNullable<Awaited<ReturnType<Db["refund"]["findUnique"]>>>;

/** The API's refund object plus what the dashboard shows beside it: paise for formatting and the late attempt it returns. */
export function dashboardRefundView(r: RefundRow, merchantOrderId: string) {
  return { ...refundView(r, merchantOrderId), amountPaise: r.amountPaise, attemptId: r.attemptId };
}

export type DashboardRefund = ReturnType<typeof dashboardRefundView>;

/** A payment's refunds, newest first, automatic ones included (the caller has checked the payment is the merchant's). */
export async function refundsOfPayment(db: Db, paymentId: string, merchantOrderId: string): Promise<DashboardRefund[]> {
  const rows = await db.refund.findMany({ where: { paymentId }, orderBy: newestFirst });
  return rows.map((r) => dashboardRefundView(r, merchantOrderId));
}

/** `refunds.forPayment`: PAYMENT_NOT_FOUND alike for an unknown id, another merchant's and the other mode's. */
export async function listDashboardPaymentRefunds(db: Db, merchantId: string, mode: Mode, paymentId: string) {
  const p = await db.payment.findUnique({ where: { id: paymentId }, select: { merchantId: true, mode: true, orderId: true } });
  if (!p || p.merchantId !== merchantId || p.mode !== mode) throw new AppError("PAYMENT_NOT_FOUND");
  return { items: await refundsOfPayment(db, paymentId, p.orderId) };
}

/**
 * What the payment page says about refunds: refunded so far and what may still be refunded,
 * and until when. Automatic refunds of late attempts are money beyond the payment and count in neither.
 */
export function refundSummary(p: { status: string; amountPaise: number; refundedPaise: number; paidAt: Date | null }, now = new Date()) {
  const until = p.status === "SUCCESS" && p.paidAt ? new Date(p.paidAt.getTime() + REFUND_WINDOW_MS) : null;
  const refundablePaise = until && until > now ? Math.max(0, p.amountPaise - p.refundedPaise) : 0;
  return {
    refundedPaise: p.refundedPaise,
    amountRefunded: formatPaise(p.refundedPaise),
    refundStatus: refundStatusOf(p),
    refundablePaise,
    refundable: formatPaise(refundablePaise),
    /** The last moment a refund may be created; null unless the payment succeeded. */
    refundableUntil: isoOrNull(until),
  };
}

// ---- Refunds list --------------------------------------------------------------------------------

/** The merchant + mode's refunds matching the list's filters, after the cursor; the search box matches ids exactly. */
function refundWhere(merchantId: string, mode: Mode, f: RefundFilters, cursor: string | undefined): Prisma.RefundWhereInput {
  const search = f.q ? { OR: [{ id: f.q }, { paymentId: f.q }, { merchantRefundId: f.q }, { payment: { orderId: f.q } }] } : {};
  return { merchantId, mode, ...(f.status ? { status: f.status } : {}), ...istDayRange(f.from, f.to), AND: [search, afterCursor(cursor)] };
}

const withOrderId = { payment: { select: { orderId: true } } } as const;

/** The mode's refunds, newest first; filters by status, an id and IST dates. */
export async function listDashboardRefunds(db: Db, merchantId: string, mode: Mode, input: RefundFilters & { cursor?: string; limit: number }) {
  const rows = await db.refund.findMany({
    where: refundWhere(merchantId, mode, input, input.cursor),
    orderBy: newestFirst,
    take: input.limit + 1,
    include: withOrderId,
  });
  const { rows: page, nextCursor } = toPage(rows, input.limit);
  return { items: page.map((r) => dashboardRefundView(r, r.payment.orderId)), nextCursor };
}

// ---- CSV export ----------------------------------------------------------------------------------

export const REFUND_CSV_COLUMNS = [
  "refund_id",
  "payment_id",
  "order_id",
  "merchant_refund_id",
  "amount",
  "currency",
  "status",
  "reason",
  "automatic",
  "failure_reason",
  "created_at",
  "processed_at",
  "mode",
] as const;

/** Times are ISO 8601 UTC and amounts rupees with two decimals, as in the API. */
function refundCsvLine(r: RefundRow & { payment: { orderId: string } }): string {
  return csvLine([
    r.id,
    r.paymentId,
    r.payment.orderId,
    r.merchantRefundId,
    formatPaise(r.amountPaise),
    "INR",
    r.status,
    r.reason,
    r.attemptId !== null ? "true" : "false",
    r.failureReason,
    r.createdAt.toISOString(),
    isoOrNull(r.processedAt),
    r.mode,
  ]);
}

/** Rows read per database round trip while streaming. */
const EXPORT_BATCH = 500;

/** The filtered refunds as CSV text, newest first, a batch at a time; the first chunk is the BOM and the header line. */
export async function* exportRefundsCsv(db: Db, merchantId: string, mode: Mode, filters: RefundFilters): AsyncGenerator<string> {
  yield `${CSV_BOM}${csvLine([...REFUND_CSV_COLUMNS])}`;
  let cursor: string | undefined;
  for (;;) {
    const rows = await db.refund.findMany({
      where: refundWhere(merchantId, mode, filters, cursor),
      orderBy: newestFirst,
      take: EXPORT_BATCH,
      include: withOrderId,
    });
    if (rows.length === 0) return;
    yield rows.map(refundCsvLine).join("");
    if (rows.length < EXPORT_BATCH) return;
    cursor = encodeCursor(rows[rows.length - 1]!);
  }
}
