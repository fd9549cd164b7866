import { z } from "zod";
import { paymentStatusData } from "@/lib/schemas/api-objects";
import { apiEnvelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";
import { paymentPathIdField } from "@/server/api/payments/verify-payment.schema";

export const paymentStatusInput = z.object({ paymentId: paymentPathIdField });

export { paymentStatusData };

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
