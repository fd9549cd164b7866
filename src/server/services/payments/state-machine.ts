import type { PAYMENT_STATUSES } from "@/lib/schemas/payments";
import type { DbTx } from "@/server/db/client";
import { newId } from "@/server/lib/ids";

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const FINAL_STATUSES: readonly PaymentStatus[] = ["SUCCESS", "EXPIRED", "CANCELLED"];

/**
 * The payment statuses as data: the only moves a payment can make. SUCCESS is never left.
 * FAILED → SUCCESS is the late success of an abandoned or timed-out attempt.
 */
export const TRANSITIONS: Record<PaymentStatus, readonly PaymentStatus[]> = {
  CREATED: ["PENDING", "EXPIRED", "CANCELLED"],
  PENDING: ["SUCCESS", "FAILED"],
  FAILED: ["PENDING", "SUCCESS", "EXPIRED", "CANCELLED"],
  SUCCESS: [],
  EXPIRED: [],
  CANCELLED: [],
};

export function isFinal(status: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function orderKey(merchantId: string, mode: string, orderId: string): string {
  return `${merchantId}|${mode}|${orderId}`;
}

export interface TransitionOptions {
  reason?: string;
  attemptId?: string | null;
  /** Extra columns set in the same conditional update. */
  data?: Record<string, unknown>;
  /** Only if `expiresAt` is still in the future (retries), or already past (expiry). */
  expiry?: "before" | "after";
  now?: Date;
}

/**
 * Applies one transition with a conditional update on the current status, so of two racing
 * requests exactly one wins; records the timeline row in the same transaction. Returns false when
 * the payment was no longer in `from` (someone else moved it first).
 */
export async function transitionPayment(
  tx: DbTx,
  payment: { id: string; merchantId: string; mode: string; orderId: string },
  from: PaymentStatus,
  to: PaymentStatus,
  opts: TransitionOptions = {},
): Promise<boolean> {
  if (!canTransition(from, to)) throw new Error(`illegal payment transition ${from} → ${to}`);
  const now = opts.now ?? new Date();
  const key = orderKey(payment.merchantId, payment.mode, payment.orderId);
  const data: Record<string, unknown> = { ...opts.data, status: to };
  // Final states free the order id (EXPIRED, CANCELLED) or hold it for good (SUCCESS keeps its
  // open-order key, so a new payment for a paid order is refused by the same unique index).
  if (to === "EXPIRED" || to === "CANCELLED") data.openOrderKey = null;
  if (to === "SUCCESS") data.paidOrderKey = key;
  const where: Record<string, unknown> = { id: payment.id, status: from };
  if (opts.expiry === "before") where.expiresAt = { gt: now };
  if (opts.expiry === "after") where.expiresAt = { lte: now };
  const res = await tx.payment.updateMany({ where, data });
  if (res.count !== 1) return false;
  await tx.paymentEvent.create({
    data: {
      id: newId("evt"),
      paymentId: payment.id,
      fromStatus: from,
      toStatus: to,
      reason: opts.reason ?? null,
      attemptId: opts.attemptId ?? null,
      createdAt: now,
    },
  });
  return true;
}
