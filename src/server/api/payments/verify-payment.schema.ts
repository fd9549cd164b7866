import { z } from "zod";
import { PAYMENT_STATUSES } from "@/lib/schemas/payments";
import { pathIdField } from "@/server/api/path-id";
import { apiEnvelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";

export const paymentIdField = z.string().min(1).max(80).meta({ example: "pay_1763806530123_Xk2P9aQm4TzB7c" });

/** The payment id in a path: one that is too long to exist answers 404 PAYMENT_NOT_FOUND. */
export const paymentPathIdField = pathIdField(80, "PAYMENT_NOT_FOUND").meta({ example: "pay_1763806530123_Xk2P9aQm4TzB7c" });

export const verifyPaymentInput = z
  .object({
    paymentId: paymentIdField,
    orderId: z.string().max(64).nullish(),
    status: z.string().max(20).nullish(),
    signature: z.string().max(128).nullish(),
  })
  .refine((v) => !v?.signature || (!!v.orderId && !!v.status), {
    message: "orderId and status are required with signature",
    params: { code: "VALIDATION_ERROR" },
    when: () => true,
  });

export const verifyPaymentData = z
  .object({
    verified: z.boolean().meta({ description: "True only when the signature (if sent) is valid and the stored status is SUCCESS." }),
    paymentId: z.string(),
    merchantOrderId: z.string(),
    status: z.enum(PAYMENT_STATUSES).meta({ description: "Always the stored status, never the one sent." }),
    amount: z.string(),
    currency: z.literal("INR"),
    method: z.string().nullable(),
    paidAt: z.string().nullable(),
    bankReference: z.string().nullable(),
  })
  .meta({ id: "PaymentVerification" });

export const verifyPaymentOutput = apiEnvelope(verifyPaymentData);

export const verifyPaymentMeta = {
  openapi: {
    method: "POST",
    path: "/api/payments/verify",
    tags: ["Payments"],
    summary: "Verify a payment",
    description:
      "Confirms a payment server-side. With `signature`, also send the `orderId` and `status` from the redirect: the signature hex(HMAC_SHA256(signing_secret, orderId|paymentId|status)) is recomputed from them and compared in constant time.",
  },
  rest: {
    auth: "merchant",
    errors: ["VALIDATION_ERROR", "PAYMENT_NOT_FOUND", "ORDER_MISMATCH", "SIGNATURE_INVALID"],
  },
} satisfies RestOperationMeta;
