import { z } from "zod";
import { PAYMENT_STATUSES } from "@/lib/schemas/payments";
import { apiEnvelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";
import { REFUND_SUMMARY_STATUSES } from "@/server/services/payments/payments";
import { paymentPathIdField } from "@/server/api/payments/verify-payment.schema";

export const paymentStatusInput = z.object({ paymentId: paymentPathIdField });

export const paymentStatusData = z
  .object({
    paymentId: z.string(),
    merchantOrderId: z.string(),
    status: z.enum(PAYMENT_STATUSES),
    isFinal: z.boolean(),
    amount: z.string(),
    currency: z.literal("INR"),
    method: z.string().nullable(),
    description: z.string().nullable(),
    customer: z.object({ name: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() }).nullable(),
    attempts: z.array(
      z.object({
        attemptId: z.string(),
        method: z.string(),
        status: z.string(),
        errorCode: z.string().nullable(),
        errorMessage: z.string().nullable(),
        createdAt: z.string(),
        completedAt: z.string().nullable(),
      }),
    ),
    redirectUrl: z.string().nullable(),
    createdAt: z.string(),
    expiresAt: z.string(),
    paidAt: z.string().nullable(),
    bankReference: z.string().nullable(),
    mode: z.enum(["sandbox", "live"]),
    amountRefunded: z
      .string()
      .meta({ description: "Sum of this payment's refunds that are not FAILED (automatic refunds of late attempts excluded).", example: "0.00" }),
    refundStatus: z.enum(REFUND_SUMMARY_STATUSES).meta({ description: "NONE, PARTIAL or FULL, on the same count as amountRefunded." }),
  })
  .meta({ id: "PaymentStatus" });

export const paymentStatusOutput = apiEnvelope(paymentStatusData);

export const paymentStatusMeta = {
  openapi: {
    method: "GET",
    path: "/api/payments/{paymentId}/status",
    tags: ["Payments"],
    summary: "Get a payment's status",
    description: "The payment with its attempts. Another merchant's or the other mode's payment answers 404 PAYMENT_NOT_FOUND, like an unknown id.",
  },
  rest: { auth: "merchant", errors: ["PAYMENT_NOT_FOUND"] },
} satisfies RestOperationMeta;
