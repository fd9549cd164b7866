import { z } from "zod";
import { parseAmountToPaise, REFUND_AMOUNT_PATTERN } from "@/lib/money";
import { apiEnvelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";
import { paymentPathIdField } from "@/server/api/payments/verify-payment.schema";
import { refundData } from "@/server/api/refunds/refund.schema";

const REFUND_AMOUNT_RULE = "must be a number of at least 0.01 with at most two fraction digits";

/** Rupees; at least 0.01. More than is refundable is the service's REFUND_EXCEEDS_AMOUNT. */
const refundAmountField = z
  // The bound and pattern are for the document: the rule below decides.
  .union([z.number().meta({ minimum: 0.01 }), z.string().max(32).meta({ pattern: REFUND_AMOUNT_PATTERN })])
  .superRefine((v, ctx) => {
    const paise = parseAmountToPaise(v);
    if (paise === null || paise <= 0) {
      ctx.addIssue({ code: "custom", message: REFUND_AMOUNT_RULE, params: { code: "INVALID_AMOUNT" } });
    }
  })
  .transform((v) => parseAmountToPaise(v)!)
  .meta({
    description: "Rupees to refund, as a number or numeric string with at most two fraction digits. Default: all that is still refundable.",
    example: "100.00",
  });

export const createRefundInput = z.object({
  paymentId: paymentPathIdField,
  // Only an absent amount means "all that is left": null is a bad amount, not a full refund.
  amount: refundAmountField.optional(),
  reason: z
    .string()
    .trim()
    .max(255)
    .nullish()
    .meta({ description: "Shown in the dashboard and sent in refund webhooks. At most 255 characters.", example: "Customer returned the item" }),
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
    description:
      "Refunds a SUCCESS payment in full (no amount) or in part, several times, within 180 days of payment; the refunds that are not FAILED never add up to more than the payment. Sandbox refunds are PROCESSED within seconds, or FAILED when the reason contains fail_refund; the result also arrives as refund.processed or refund.failed. Live mode answers 503 SERVICE_UNAVAILABLE until a processor is configured.",
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
