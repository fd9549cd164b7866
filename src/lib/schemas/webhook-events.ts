import { z } from "zod";
import { MODES } from "@/lib/mode";
import { batchStatusData, paymentStatusData, refundData } from "@/lib/schemas/api-objects";
import { WEBHOOK_EVENT_LABELS, WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE, type WebhookEventTypeValue } from "@/lib/schemas/webhooks";

// Every webhook event's body, by type (contract B4, B7, B11): the emitter builds each delivery
// through these schemas and the OpenAPI document publishes them under `webhooks`, so what a
// merchant's generated client expects is what the server sends.

const paymentEvent = z.object({
  payment: paymentStatusData.meta({ description: "The payment's status object, as GET /api/payments/{paymentId}/status answers it." }),
});

const batchEvent = batchStatusData
  .extend({
    results_url: z.url().meta({
      description: "Absolute URL of the batch's results (GET /v1/{kind}/batch/{batch_id}/results).",
      example: "https://api.parakh.in/v1/identity/pan/batch/batch_8fK2mQ7xLp3Rt9Za/results",
    }),
  })
  .meta({ description: "The batch's final status (as GET /v1/{kind}/batch/{batch_id} answers it) and where to read its results." });

const walletEvent = z.object({
  wallet: z.object({
    mode: z.enum(MODES),
    balance: z.string().meta({ description: "Balance after the debit that crossed the threshold, in rupees.", example: "42.00" }),
    threshold: z.string().meta({ description: "The low-balance threshold set in the dashboard, in rupees.", example: "50.00" }),
    currency: z.literal("INR"),
  }),
});

const refundEvent = z.object({
  refund: refundData,
  payment: paymentStatusData.meta({ description: "The refunded payment's status object, with amountRefunded and refundStatus after this refund." }),
});

const testEvent = z.object({
  test: z.literal(true),
  endpoint_id: z.string().meta({ description: "The endpoint the test was sent to." }),
  message: z.string(),
  payment: paymentStatusData.meta({ description: "A sample payment (not a real one), shaped like payment events' data.payment." }),
});

/** What `data` holds, per event type. */
export const WEBHOOK_EVENT_DATA = {
  "payment.success": paymentEvent,
  "payment.failed": paymentEvent,
  "payment.expired": paymentEvent,
  "payment.cancelled": paymentEvent,
  "pan.batch.completed": batchEvent,
  "epfo.batch.completed": batchEvent,
  "wallet.low_balance": walletEvent,
  "refund.processed": refundEvent,
  "refund.failed": refundEvent,
  [WEBHOOK_TEST_EVENT_TYPE]: testEvent,
} as const satisfies Record<WebhookEventTypeValue | typeof WEBHOOK_TEST_EVENT_TYPE, z.ZodType>;

export type WebhookEventName = keyof typeof WEBHOOK_EVENT_DATA;
/** What an emitter passes as `data` for an event of type T. */
export type WebhookEventData<T extends WebhookEventName> = z.input<(typeof WEBHOOK_EVENT_DATA)[T]>;

/** Every type a delivery can carry: the subscribable ones, then the dashboard's test event. */
export const WEBHOOK_EVENT_NAMES = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE] as const satisfies readonly WebhookEventName[];

const WHEN: Record<WebhookEventName, string> = {
  "payment.success": "A payment succeeded (also through a late attempt result).",
  "payment.failed": "A payment attempt failed, timed out or was abandoned; the customer may still retry until the payment expires.",
  "payment.expired": "A payment reached expiresAt without succeeding.",
  "payment.cancelled": "The customer cancelled the payment.",
  "pan.batch.completed": "A PAN batch finished (COMPLETED, or FAILED when it could not be run); sent to its webhook_url too.",
  "epfo.batch.completed": "An EPFO batch finished (COMPLETED, or FAILED when it could not be run); sent to its webhook_url too.",
  "wallet.low_balance": "A debit took the wallet below its low-balance threshold (once, until a credit brings it back above).",
  "refund.processed": "A refund was processed.",
  "refund.failed": "A refund failed; its amount is refundable again.",
  [WEBHOOK_TEST_EVENT_TYPE]: "Send test event in the dashboard: delivered and signed like a real event, to that endpoint only.",
};

/** The whole body of an event of type T, as every delivery of it sends it (built once: its id names it in the document). */
function webhookEventSchema<T extends WebhookEventName>(type: T) {
  const label = type === WEBHOOK_TEST_EVENT_TYPE ? "Test event" : WEBHOOK_EVENT_LABELS[type as WebhookEventTypeValue];
  return z
    .object({
      id: z
        .string()
        .regex(/^evt_[A-Za-z0-9]+$/)
        .meta({ description: "The event's id; the same in X-Webhook-Id and on every retry. Receivers dedupe on it.", example: "evt_Jd8s2LqP0xZk3Vb9TmW4rY7n" }),
      type: z.literal(type),
      created_at: z.string().meta({ format: "date-time", description: "When the event happened (ISO 8601 UTC).", example: "2026-01-15T10:30:00.000Z" }),
      mode: z.enum(MODES),
      data: WEBHOOK_EVENT_DATA[type],
    })
    .meta({ id: `WebhookEvent.${type}`, title: label, description: WHEN[type] });
}

/** Every event's schema, by type (built once). */
export const WEBHOOK_EVENT_SCHEMAS = Object.fromEntries(WEBHOOK_EVENT_NAMES.map((t) => [t, webhookEventSchema(t)])) as {
  [T in WebhookEventName]: ReturnType<typeof webhookEventSchema<T>>;
};
