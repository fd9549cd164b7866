import { rowsOf, sql, type BulkRows, type WriteScript } from "@/server/db/atomic-write";
import type { DbTx } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { webhookDeliveryJob } from "@/server/jobs/registry";
import { z } from "zod";
import { WEBHOOK_EVENT_SCHEMAS, type WebhookEventData, type WebhookEventName } from "@/lib/schemas/webhook-events";
import type { WebhookEventTypeValue } from "@/lib/schemas/webhooks";

export type WebhookEventType = WebhookEventTypeValue;

export function endpointWants(events: string, type: string): boolean {
  return (
    events === "*" ||
    events
      .split(",")
      .map((e) => e.trim())
      .includes(type)
  );
}

interface EventInput<T extends WebhookEventName = WebhookEventName> {
  merchantId: string;
  mode: string;
  type: T;
  subjectId?: string | null;
  /** What the event's schema (src/lib/schemas/webhook-events.ts) says `data` holds for this type. */
  data: WebhookEventData<T>;
  extraUrl?: string | null;
  only?: { endpointId: string; url: string };
  at?: Date;
}

interface Target {
  endpointId: string | null;
  url: string;
}

/**
 * The body every delivery of the event sends, built through its type's schema. A body the schema
 * refuses is a programming error (the service built the wrong object): it throws, so the state
 * change it belongs to does not commit with a notification its receivers could not read.
 */
function eventBody(e: EventInput, id: string, createdAt: Date): string {
  const schema: z.ZodType = WEBHOOK_EVENT_SCHEMAS[e.type];
  const parsed = schema.safeParse({ id, type: e.type, created_at: createdAt.toISOString(), mode: e.mode, data: e.data });
  if (!parsed.success) throw new Error(`A ${e.type} event does not match its schema:\n${z.prettifyError(parsed.error)}`);
  return JSON.stringify(parsed.data);
}

/** The event's row and one delivery per target, with the exact body every delivery will sign and send. */
function eventRows(e: EventInput, targets: Target[]) {
  const id = newId("evt", 24);
  const createdAt = e.at ?? new Date();
  const body = eventBody(e, id, createdAt);
  const event = { id, merchantId: e.merchantId, mode: e.mode, type: e.type, body, subjectId: e.subjectId ?? null, createdAt };
  const deliveries = targets.map((t) => ({ id: newId("del"), eventId: id, endpointId: t.endpointId, url: t.url, status: "PENDING", nextAttemptAt: createdAt }));
  return { event, deliveries };
}

/** Where an event goes: `only`, or every enabled endpoint subscribed to it; plus the extra URL. */
function targetsOf(e: EventInput, endpoints: { id: string; url: string; events: string }[]): Target[] {
  const targets: Target[] = e.only ? [e.only] : endpoints.filter((ep) => endpointWants(ep.events, e.type)).map((ep) => ({ endpointId: ep.id, url: ep.url }));
  if (e.extraUrl) targets.push({ endpointId: null, url: e.extraUrl });
  return targets;
}

/**
 * Records an event with the exact body every delivery will sign and send, one delivery per
 * subscribed endpoint (plus an extra URL such as a batch's webhook_url), and their delivery jobs,
 * all in the caller's transaction: the state change and its notification commit together.
 * `only` sends it to that one endpoint instead, subscribed or not (a test event).
 */
export async function emitWebhookEvent<T extends WebhookEventName>(tx: DbTx, e: EventInput<T>): Promise<{ eventId: string; deliveryIds: string[] }> {
  const endpoints = e.only ? [] : await tx.webhookEndpoint.findMany({ where: { merchantId: e.merchantId, mode: e.mode, enabled: true } });
  const { event, deliveries } = eventRows(e, targetsOf(e, endpoints));
  await tx.webhookEvent.create({ data: event });
  for (const d of deliveries) {
    await tx.webhookDelivery.create({ data: d });
    await webhookDeliveryJob.enqueue(tx, { deliveryId: d.id }, { uniqueKey: `deliver:${d.id}` });
  }
  return { eventId: event.id, deliveryIds: deliveries.map((d) => d.id) };
}

const rowsFor = (table: string, records: Record<string, unknown>[]): BulkRows[] =>
  records.length ? [{ table, columns: Object.keys(records[0]!), rows: records.map((r) => Object.values(r)) }] : [];

/**
 * The same event as `emitWebhookEvent`, in an atomic-writer script: reads the endpoints and gives
 * back the rows to insert with the caller's own (event, deliveries and their jobs).
 */
export function* webhookEventScript<T extends WebhookEventName>(e: EventInput<T>): WriteScript<BulkRows[]> {
  const endpoints = e.only
    ? []
    : yield* rowsOf<{ id: string; url: string; events: string }>(
        sql`SELECT "id", "url", "events" FROM "WebhookEndpoint" WHERE "merchantId" = ${e.merchantId} AND "mode" = ${e.mode} AND "enabled" = ${true}`,
      );
  const { event, deliveries } = eventRows(e, targetsOf(e, endpoints));
  const now = new Date();
  const jobs = deliveries.map((d) => ({
    ...webhookDeliveryJob.row({ deliveryId: d.id }),
    uniqueKey: `deliver:${d.id}`,
    attempts: 0,
    createdAt: now,
    updatedAt: now,
  }));
  // What Prisma fills in for a create: the counters' defaults and the timestamps.
  const deliveryRows = deliveries.map((d) => ({ ...d, attemptCount: 0, createdAt: now, updatedAt: now }));
  return [...rowsFor("WebhookEvent", [event]), ...rowsFor("WebhookDelivery", deliveryRows), ...rowsFor("Job", jobs)];
}
