import { z } from "zod";
import { MODES } from "@/lib/mode";
import { BATCH_STATUSES } from "@/lib/schemas/batches";
import { PAYMENT_STATUSES, REFUND_SUMMARY_STATUSES } from "@/lib/schemas/payments";
import { REFUND_STATUSES } from "@/lib/schemas/refunds";

// The API's objects that its answers and its webhook events both carry (contract B4, B5, B11):
// declared once, below the services that build them and the doors that answer with them.

/** The payment status object: `data` of GET /api/payments/{paymentId}/status and `data.payment` of payment and refund events. */
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
    mode: z.enum(MODES),
    amountRefunded: z
      .string()
      .meta({ description: "Sum of this payment's refunds that are not FAILED (automatic refunds of late attempts excluded).", example: "0.00" }),
    refundStatus: z.enum(REFUND_SUMMARY_STATUSES).meta({ description: "NONE, PARTIAL or FULL, on the same count as amountRefunded." }),
  })
  .meta({ id: "PaymentStatus" });

/** The refund object: answers of the refund operations and `data.refund` of refund events. */
export const refundData = z
  .object({
    refundId: z.string().meta({ example: "rfnd_Q2x7LmP0aZk3Vb9T" }),
    paymentId: z.string(),
    merchantOrderId: z.string(),
    merchantRefundId: z.string().nullable(),
    amount: z.string().meta({ example: "100.00" }),
    currency: z.literal("INR"),
    status: z.enum(REFUND_STATUSES).meta({ description: "PENDING, then PROCESSED or FAILED." }),
    reason: z.string().nullable(),
    createdAt: z.string(),
    processedAt: z.string().nullable(),
    failureReason: z.string().nullable(),
    automatic: z.boolean().meta({ description: "True for the automatic refund of a late attempt's money (reason AUTO_REFUND_LATE_ATTEMPT)." }),
  })
  .meta({ id: "Refund" });

/** A batch's progress: `data` of GET /v1/{kind}/batch/{batch_id}; batch events carry it with `results_url`. */
export const batchStatusData = z
  .object({
    batch_id: z.string(),
    status: z.enum(BATCH_STATUSES),
    total: z.number().int().meta({ description: "Every item submitted." }),
    accepted: z.number().int(),
    rejected: z.number().int().meta({ description: "Items that failed validation; they count as processed and failed from the start." }),
    processed: z.number().int(),
    succeeded: z.number().int().meta({ description: "Items the source answered (any outcome, an INVALID PAN included)." }),
    failed: z.number().int().meta({ description: "Rejected items and items that ended in an error." }),
    client_batch_id: z.string().nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: "BatchStatus" });
