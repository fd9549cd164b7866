import { z } from "zod";
import { cursorSchema, limitSchema } from "@/lib/schemas/logs";

// Browser-safe schemas shared by the Webhooks page (client validation) and the webhooks router.
// The server adds webhookUrlProblem's host checks (live: public hosts only) on top.

/** The webhook event types (the one list: the server's emitter uses it too). */
export const WEBHOOK_EVENT_TYPES = [
  "payment.success",
  "payment.failed",
  "payment.expired",
  "payment.cancelled",
  "pan.batch.completed",
  "epfo.batch.completed",
  "wallet.low_balance",
  "refund.processed",
  "refund.failed",
] as const;
export type WebhookEventTypeValue = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WEBHOOK_EVENT_LABELS: Record<WebhookEventTypeValue, string> = {
  "payment.success": "Payment succeeded",
  "payment.failed": "Payment attempt failed",
  "payment.expired": "Payment expired",
  "payment.cancelled": "Payment cancelled by the customer",
  "pan.batch.completed": "PAN batch completed",
  "epfo.batch.completed": "EPFO batch completed",
  "wallet.low_balance": "Wallet balance low",
  "refund.processed": "Refund processed",
  "refund.failed": "Refund failed",
};

/**
 * What "Send test event" emits: its own type, so a receiver that switches on `type` can never
 * mistake it for a real payment. It is signed and delivered exactly like a real event.
 */
export const WEBHOOK_TEST_EVENT_TYPE = "webhook.test";

/** "*" subscribes to every type, including ones added later. */
export const ALL_EVENTS = "*";

export const WEBHOOK_DELIVERY_STATUSES = ["PENDING", "DELIVERED", "FAILED"] as const;
export const webhookDeliveryStatusSchema = z.enum(WEBHOOK_DELIVERY_STATUSES, { error: "Choose a status from the list" });

export const WEBHOOK_MAX_ENDPOINTS = 20;

const modeSchema = z.enum(["sandbox", "live"]);

export const webhookUrlSchema = z
  .string()
  .trim()
  .min(1, "Enter the URL that receives events")
  .max(2000, "URLs are at most 2000 characters")
  .superRefine((raw, ctx) => {
    if (raw === "" || raw.length > 2000) return;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({ code: "custom", message: "Enter an absolute URL, e.g. https://shop.example/webhooks/parakh" });
      return;
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") ctx.addIssue({ code: "custom", message: "Use an http or https URL" });
    else if (url.username || url.password) ctx.addIssue({ code: "custom", message: "Credentials in the URL are not allowed" });
  });

export const webhookEventsSchema = z
  .array(z.enum([...WEBHOOK_EVENT_TYPES, ALL_EVENTS], { error: "Unknown event type" }))
  .min(1, "Choose at least one event")
  .max(WEBHOOK_EVENT_TYPES.length + 1);

export const webhookDescriptionSchema = z
  .string()
  .trim()
  .max(200, "Keep the description to 200 characters or fewer")
  .transform((v) => (v === "" ? null : v))
  .nullable();

/** Live endpoints must be https; the server also refuses private and loopback hosts there. */
const liveNeedsHttps = (v: { mode: "sandbox" | "live"; url?: string }, ctx: z.RefinementCtx) => {
  if (v.mode === "live" && v.url && /^http:/i.test(v.url.trim())) ctx.addIssue({ code: "custom", path: ["url"], message: "Live webhooks must use https" });
};

export const webhookCreateInput = z
  .object({ mode: modeSchema, url: webhookUrlSchema, events: webhookEventsSchema, description: webhookDescriptionSchema.optional() })
  .superRefine(liveNeedsHttps);

export const endpointIdSchema = z.string().trim().min(1).max(64);

export const webhookUpdateInput = z
  .object({
    mode: modeSchema,
    endpointId: endpointIdSchema,
    url: webhookUrlSchema.optional(),
    events: webhookEventsSchema.optional(),
    description: webhookDescriptionSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .superRefine(liveNeedsHttps);

export const webhookEndpointInput = z.object({ endpointId: endpointIdSchema });

export const webhookDeliveriesInput = z.object({
  endpointId: endpointIdSchema.optional(),
  status: webhookDeliveryStatusSchema.optional(),
  cursor: cursorSchema.optional(),
  limit: limitSchema,
});

export const webhookResendInput = z.object({ deliveryId: z.string().trim().min(1).max(64) });

/** The stored form of a subscription: "*" or the chosen types in a fixed order. */
export function eventsToStored(events: readonly string[]): string {
  if (events.includes(ALL_EVENTS)) return ALL_EVENTS;
  return WEBHOOK_EVENT_TYPES.filter((t) => events.includes(t)).join(",");
}

export function eventsFromStored(stored: string): string[] {
  return stored === ALL_EVENTS
    ? [ALL_EVENTS]
    : stored
        .split(",")
        .map((e) => e.trim())
        .filter(Boolean);
}
