import { z } from "zod";
import { apiEnvelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";

export { createCheckoutInput } from "@/server/services/payments/create-input";

export const createCheckoutData = z
  .object({
    paymentId: z.string().meta({ example: "pay_1763806530123_Xk2P9aQm4TzB7c" }),
    checkoutUrl: z.string(),
    expiresAt: z.string().meta({ description: "ISO 8601 UTC with milliseconds", example: "2026-11-22T10:45:30.123Z" }),
    merchantOrderId: z.string(),
    amount: z.string().meta({ example: "499.00" }),
    currency: z.literal("INR"),
    _token: z.string().meta({ description: "Opaque checkout token bound to this payment and its expiry." }),
  })
  .meta({ id: "CheckoutCreated" });

export const createCheckoutOutput = apiEnvelope(createCheckoutData);

export const createCheckoutMeta = {
  openapi: {
    method: "POST",
    path: "/api/checkout",
    tags: ["Payments"],
    summary: "Create a payment",
    description:
      "Creates a hosted-checkout payment and returns its checkoutUrl. The same orderId while its payment is open returns that payment (same amount) or 409 DUPLICATE_ORDER_ID; a paid order answers 409 ORDER_ALREADY_PAID. Requires a whitelisted server IP.",
  },
  rest: {
    auth: "merchant",
    errors: [
      "VALIDATION_ERROR",
      "INVALID_ORDER_ID",
      "INVALID_AMOUNT",
      "AMOUNT_LIMIT_EXCEEDED",
      "INVALID_REDIRECT_URL",
      "DUPLICATE_ORDER_ID",
      "ORDER_ALREADY_PAID",
      "SERVICE_UNAVAILABLE",
    ],
    fieldCodes: { orderId: "INVALID_ORDER_ID" },
  },
} satisfies RestOperationMeta;
