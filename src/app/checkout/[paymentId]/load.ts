import { cache } from "react";
import { getServices } from "@/server/services";

/** The payment and the merchant's branding for the hosted page; null for an unknown id. Cached per request. */
export const loadCheckoutPayment = cache(async (paymentId: string) => {
  if (paymentId.length > 80) return null;
  const db = getServices().db;
  const payment = await db.payment.findUnique({
    where: { id: paymentId },
    select: { id: true, merchantId: true, mode: true, orderId: true, amountPaise: true, status: true, expiresAt: true, description: true },
  });
  if (!payment) return null;
  const merchant = await db.merchant.findUnique({
    where: { id: payment.merchantId },
    select: { name: true, displayName: true, brandColor: true, logoUrl: true, supportEmail: true },
  });
  if (!merchant) return null;
  return { payment, merchant: { ...merchant, label: merchant.displayName?.trim() || merchant.name } };
});
