import { z } from "zod";
import { REFUND_REASON_MAX, REFUND_WINDOW_DAYS } from "@/lib/limits";
import { REFUND_AMOUNT_RULE, refundAmountField, refundReasonSchema } from "@/lib/schemas/refunds";
import { apiEnvelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";
import { paymentPathIdField } from "@/server/api/payments/verify-payment.schema";
import { refundData } from "@/server/api/refunds/refund.schema";

export const createRefundInput = z.object({
  paymentId: paymentPathIdField,
  // Only an absent amount means "all that is left": null is a bad amount, not a full refund.
  amount: refundAmountField.optional(),
  reason: refundReasonSchema.nullish().meta({
    description: `Shown in the dashboard and sent in refund webhooks. At most ${REFUND_REASON_MAX} characters.`,
    example: "Customer returned the item",
  }),
  merchantRefundId: z
    .string()
    .max(64, "must be at most 64 characters")
    .regex(/^[A-Za-z0-9_-]+$/, "must use only A-Z, a-z, 0-9, _ and -")
    .nullish()
    .meta({ description: "Your id for this refund, unique per mode: a retry with the same id and body returns the same refund.", example: "RFND_10023_1" }),
});

export const createRefundOutput = apiEnvelope(refundData);

export const createRefundMeta = {
  openapi: {
    method: "POST",
    path: "/api/payments/{paymentId}/refunds",
    tags: ["Refunds"],
    summary: "Refund a payment",
    description: `Refunds a SUCCESS payment in full (no amount) or in part, several times, within ${REFUND_WINDOW_DAYS} days of payment; the refunds that are not FAILED never add up to more than the payment. Sandbox refunds are PROCESSED within seconds, or FAILED when the reason contains fail_refund; the result also arrives as refund.processed or refund.failed. Live mode answers 503 SERVICE_UNAVAILABLE until a processor is configured.`,
  },
  rest: {
    auth: "merchant",
    errors: [
      "VALIDATION_ERROR",
      "INVALID_AMOUNT",
      "REFUND_EXCEEDS_AMOUNT",
      "PAYMENT_NOT_FOUND",
      "PAYMENT_NOT_REFUNDABLE",
      "DUPLICATE_REFUND_ID",
      "SERVICE_UNAVAILABLE",
    ],
    fieldCodes: { amount: "INVALID_AMOUNT" },
    fieldMessages: { amount: REFUND_AMOUNT_RULE },
  },
} satisfies RestOperationMeta;
