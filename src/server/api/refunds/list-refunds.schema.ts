import { z } from "zod";
import { apiEnvelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";
import { paymentPathIdField } from "@/server/api/payments/verify-payment.schema";
import { refundData } from "@/server/api/refunds/refund.schema";

export const listRefundsInput = z.object({ paymentId: paymentPathIdField });
export const listRefundsOutput = apiEnvelope(z.object({ items: z.array(refundData) }));

export const listRefundsMeta = {
  openapi: {
    method: "GET",
    path: "/api/payments/{paymentId}/refunds",
    tags: ["Refunds"],
    summary: "List a payment's refunds",
    description: "Newest first, automatic refunds of late attempts included.",
  },
  rest: { auth: "merchant", errors: ["PAYMENT_NOT_FOUND"] },
} satisfies RestOperationMeta;
