import type { Db } from "@/server/db/client";
import { parseFrameOrigins } from "@/lib/frame-origins";

/** Origins that may frame a payment's hosted checkout page; none when the payment is unknown. */
export async function checkoutFrameAncestors(db: Db, paymentId: string): Promise<string[]> {
  const p = await db.payment.findUnique({ where: { id: paymentId }, select: { merchantId: true } });
  if (!p) return [];
  const m = await db.merchant.findUnique({ where: { id: p.merchantId }, select: { checkoutFrameOrigins: true } });
  if (!m?.checkoutFrameOrigins) return [];
  const parsed = parseFrameOrigins(m.checkoutFrameOrigins);
  return "origins" in parsed ? parsed.origins : [];
}

/** What a hosted checkout page's headers depend on: who may frame it, and whether it is a live payment's. */
export async function checkoutPageFacts(db: Db, paymentId: string): Promise<{ frameAncestors: string[]; live: boolean }> {
  const p = await db.payment.findUnique({ where: { id: paymentId }, select: { mode: true } });
  if (!p) return { frameAncestors: [], live: false };
  return { frameAncestors: await checkoutFrameAncestors(db, paymentId), live: p.mode === "live" };
}
