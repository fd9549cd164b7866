import { z } from "zod";
import { REFUND_STATUSES } from "@/lib/schemas/refunds";
import { pathIdField } from "@/server/api/path-id";

// What the refund operations share: the refund object and its id in paths.

export const refundIdField = pathIdField(80, "REFUND_NOT_FOUND").meta({ example: "rfnd_Q2x7LmP0aZk3Vb9T" });

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
