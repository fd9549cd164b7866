import type { DbTx } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { webhookDeliveryJob } from "@/server/jobs/registry";
import { WEBHOOK_TEST_EVENT_TYPE, type WebhookEventTypeValue } from "@/lib/schemas/webhooks";

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

/**
 * Records an event with the exact body every delivery will sign and send, one delivery per
 * subscribed endpoint (plus an extra URL such as a batch's webhook_url), and their delivery jobs,
 * all in the caller's transaction: the state change and its notification commit together.
 * `only` sends it to that one endpoint instead, subscribed or not (a test event).
 */
export async function emitWebhookEvent(
  tx: DbTx,
  e: {
    merchantId: string;
    mode: string;
    type: WebhookEventType | typeof WEBHOOK_TEST_EVENT_TYPE;
    subjectId?: string | null;
    data: unknown;
    extraUrl?: string | null;
    only?: { endpointId: string; url: string };
    at?: Date;
  },
): Promise<{ eventId: string; deliveryIds: string[] }> {
  const id = newId("evt", 24);
  const createdAt = e.at ?? new Date();
  const body = JSON.stringify({ id, type: e.type, created_at: createdAt.toISOString(), mode: e.mode, data: e.data });
  await tx.webhookEvent.create({ data: { id, merchantId: e.merchantId, mode: e.mode, type: e.type, body, subjectId: e.subjectId ?? null, createdAt } });
  let targets: { endpointId: string | null; url: string }[];
  if (e.only) targets = [e.only];
  else {
    const endpoints = await tx.webhookEndpoint.findMany({ where: { merchantId: e.merchantId, mode: e.mode, enabled: true } });
    targets = endpoints.filter((ep) => endpointWants(ep.events, e.type)).map((ep) => ({ endpointId: ep.id as string | null, url: ep.url }));
  }
  if (e.extraUrl) targets.push({ endpointId: null, url: e.extraUrl });
  const deliveryIds: string[] = [];
  for (const t of targets) {
    const deliveryId = newId("del");
    await tx.webhookDelivery.create({
      data: { id: deliveryId, eventId: id, endpointId: t.endpointId, url: t.url, status: "PENDING", nextAttemptAt: createdAt },
    });
    await webhookDeliveryJob.enqueue(tx, { deliveryId }, { uniqueKey: `deliver:${deliveryId}` });
    deliveryIds.push(deliveryId);
  }
  return { eventId: id, deliveryIds };
}
