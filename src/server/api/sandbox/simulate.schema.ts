import { z } from "zod";
import { apiEnvelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";
import { paymentPathIdField } from "@/server/api/payments/verify-payment.schema";
import { paymentStatusData } from "@/server/api/payments/payment-status.schema";
import { SIMULATE_METHODS, SIMULATE_OUTCOMES } from "@/server/services/payments/simulate";

export const simulatePaymentInput = z.object({
  paymentId: paymentPathIdField,
  outcome: z.enum(SIMULATE_OUTCOMES).meta({
    description:
      "Without attemptId: SUCCESS or FAILED starts an attempt and reports its result at once; PENDING starts one and leaves it pending. With attemptId: SUCCESS or FAILED reports that attempt's (late) result; ABANDONED leaves a pending attempt.",
    example: "SUCCESS",
  }),
  method: z.enum(SIMULATE_METHODS).nullish().meta({ description: "The new attempt's method; default upi.", example: "upi" }),
  attemptId: z
    .string()
    .min(1)
    .max(80)
    .nullish()
    .meta({ description: "A PENDING, ABANDONED or timed-out attempt of this payment.", example: "att_Xk2P9aQm4TzB7c1L" }),
});

export const simulatePaymentOutput = apiEnvelope(z.object({ payment: paymentStatusData, attemptId: z.string() }).meta({ id: "SimulatedPayment" }));

export const simulatePaymentMeta = {
  openapi: {
    method: "POST",
    path: "/api/sandbox/payments/{paymentId}/simulate",
    tags: ["Sandbox"],
    summary: "Simulate a payment outcome",
    description:
      "Sandbox keys only (a live key answers 404 NOT_FOUND). Moves the payment through the hosted page's state machine, so every payment and refund rule holds: a payment that cannot take a new attempt answers 409 PAYMENT_NOT_PAYABLE; a late result of an abandoned or timed-out attempt is always accepted (a late success pays the payment if nothing else has and it is not final, otherwise it is refunded in full automatically).",
  },
  rest: { auth: "merchant", errors: ["VALIDATION_ERROR", "NOT_FOUND", "PAYMENT_NOT_FOUND", "ATTEMPT_NOT_FOUND", "PAYMENT_NOT_PAYABLE", "CONFLICT"] },
} satisfies RestOperationMeta;
