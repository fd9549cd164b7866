import type { z } from "zod";
import type { Mode } from "@/lib/mode";
import {
  WEBHOOK_MAX_ENDPOINTS,
  WEBHOOK_TEST_EVENT_TYPE,
  eventsFromStored,
  eventsToStored,
  type webhookCreateInput,
  type webhookUpdateInput,
} from "@/lib/schemas/webhooks";
import type { Db, DbTx } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { randomToken } from "@/server/lib/ids";
import { newestFirst } from "@/server/lib/pagination";
import type { WebhookEventData } from "@/lib/schemas/webhook-events";
import { emitWebhookEvent } from "@/server/services/webhooks/events";
import { webhookUrlProblem } from "@/server/services/webhooks/ssrf";
import { isoOrNull } from "@/server/lib/dates";
import { storedFreeText } from "@/server/services/audit/redact";

function endpointView(e: { id: string; url: string; events: string; description: string | null; enabled: boolean; createdAt: Date; updatedAt: Date }) {
  return {
    id: e.id,
    url: e.url,
    events: eventsFromStored(e.events),
    description: e.description,
    enabled: e.enabled,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

/** One of the merchant's endpoints in this mode, or NOT_FOUND. */
export async function findEndpoint(db: Db | DbTx, merchantId: string, mode: Mode, endpointId: string) {
  const e = await db.webhookEndpoint.findFirst({ where: { id: endpointId, merchantId, mode } });
  if (!e) throw new AppError("NOT_FOUND", "No such webhook endpoint in this mode.");
  return e;
}

/** Registration checks beyond the shared schema: the host rules of the mode and one endpoint per URL and mode. */
async function checkEndpointUrl(db: Db | DbTx, merchantId: string, mode: Mode, url: string, exceptId?: string) {
  const problem = webhookUrlProblem(url, mode);
  if (problem) throw new AppError("VALIDATION_ERROR", problem, { field: "url" });
  const same = await db.webhookEndpoint.findFirst({ where: { merchantId, mode, url, ...(exceptId ? { id: { not: exceptId } } : {}) }, select: { id: true } });
  if (same) throw new AppError("CONFLICT", "This URL is already registered in this mode.", { field: "url" });
}

const STATS_WINDOW_MS = 7 * 24 * 3600 * 1000;

/** The mode's endpoints with their last delivery and 7-day delivery counts. */
export async function listEndpoints(db: Db, merchantId: string, mode: Mode) {
  const endpoints = await db.webhookEndpoint.findMany({ where: { merchantId, mode }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  const ids = endpoints.map((e) => e.id);
  const since = new Date(Date.now() - STATS_WINDOW_MS);
  const [grouped, lasts] = await Promise.all([
    ids.length
      ? db.webhookDelivery.groupBy({ by: ["endpointId", "status"], where: { endpointId: { in: ids }, createdAt: { gte: since } }, _count: { _all: true } })
      : Promise.resolve([]),
    Promise.all(
      ids.map((id) =>
        db.webhookDelivery.findFirst({
          where: { endpointId: id },
          orderBy: newestFirst,
          select: { id: true, status: true, lastStatusCode: true, createdAt: true, deliveredAt: true, attemptCount: true, event: { select: { type: true } } },
        }),
      ),
    ),
  ]);
  return endpoints.map((e, i) => {
    const count = (status: string) => grouped.find((g) => g.endpointId === e.id && g.status === status)?._count._all ?? 0;
    const last = lasts[i];
    return {
      ...endpointView(e),
      /** Deliveries created in the last 7 days, by status. */
      stats: { delivered: count("DELIVERED"), failed: count("FAILED"), pending: count("PENDING") },
      lastDelivery: last
        ? {
            id: last.id,
            status: last.status as "PENDING" | "DELIVERED" | "FAILED",
            lastStatusCode: last.lastStatusCode,
            attemptCount: last.attemptCount,
            eventType: last.event.type,
            createdAt: last.createdAt.toISOString(),
            deliveredAt: isoOrNull(last.deliveredAt),
          }
        : null,
    };
  });
}

export async function createEndpoint(db: Db, merchantId: string, mode: Mode, input: z.output<typeof webhookCreateInput>) {
  const created = await db.$transaction(async (tx) => {
    await checkEndpointUrl(tx, merchantId, mode, input.url);
    const count = await tx.webhookEndpoint.count({ where: { merchantId, mode } });
    if (count >= WEBHOOK_MAX_ENDPOINTS) throw new AppError("CONFLICT", `At most ${WEBHOOK_MAX_ENDPOINTS} endpoints per mode; delete one first.`);
    return tx.webhookEndpoint.create({
      data: {
        id: `we_${randomToken(16)}`,
        merchantId,
        mode,
        url: input.url,
        events: eventsToStored(input.events),
        description: storedFreeText(input.description),
        enabled: true,
      },
    });
  });
  return endpointView(created);
}

/** Changes apply to events emitted from now on; deliveries already made keep their URL. */
export async function updateEndpoint(db: Db, merchantId: string, mode: Mode, input: z.output<typeof webhookUpdateInput>) {
  const updated = await db.$transaction(async (tx) => {
    const endpoint = await findEndpoint(tx, merchantId, mode, input.endpointId);
    if (input.url !== undefined && input.url !== endpoint.url) await checkEndpointUrl(tx, merchantId, mode, input.url, endpoint.id);
    return tx.webhookEndpoint.update({
      where: { id: endpoint.id },
      data: {
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.events !== undefined ? { events: eventsToStored(input.events) } : {}),
        ...(input.description !== undefined ? { description: storedFreeText(input.description) } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      },
    });
  });
  return endpointView(updated);
}

/** Removes the endpoint and stops its pending retries; its delivery history stays. */
export async function deleteEndpoint(db: Db, merchantId: string, mode: Mode, endpointId: string) {
  return db.$transaction(async (tx) => {
    const endpoint = await findEndpoint(tx, merchantId, mode, endpointId);
    // A PENDING delivery keeps retrying until it is no longer PENDING; deleting means "stop calling this URL".
    const stopped = await tx.webhookDelivery.updateMany({
      where: { endpointId: endpoint.id, status: "PENDING" },
      data: { status: "FAILED", nextAttemptAt: null },
    });
    await tx.webhookEndpoint.delete({ where: { id: endpoint.id } });
    return { id: endpoint.id, url: endpoint.url, stoppedDeliveries: stopped.count };
  });
}

/** A clearly fake payment in the status shape, so a receiver can exercise its parsing. */
/** A sample shaped exactly like the status object (its refunds included), so a receiver can parse it as payment events' data.payment. */
function samplePayment(mode: Mode, now: Date): WebhookEventData<typeof WEBHOOK_TEST_EVENT_TYPE>["payment"] {
  return {
    paymentId: "pay_0_TestEventSample",
    merchantOrderId: "ORDER_TEST_EVENT",
    status: "SUCCESS",
    isFinal: true,
    amount: "1.00",
    currency: "INR",
    method: "UPI",
    description: "Sample payment in a test event; not a real payment",
    customer: null,
    attempts: [],
    redirectUrl: null,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + 30 * 60_000).toISOString(),
    paidAt: now.toISOString(),
    bankReference: null,
    mode,
    amountRefunded: "0.00",
    refundStatus: "NONE",
  };
}

const TEST_EVENTS_PER_MINUTE = 10;

/**
 * A `webhook.test` event to one endpoint only (enabled or not). Stored and delivered like a real
 * event, signed with the mode's signing secret; `data.test` is true and the sample payment is fake.
 */
export async function sendTestEvent(db: Db, merchantId: string, mode: Mode, endpointId: string) {
  const endpoint = await findEndpoint(db, merchantId, mode, endpointId);
  const now = new Date();
  const recent = await db.webhookEvent.count({
    where: { merchantId, mode, type: WEBHOOK_TEST_EVENT_TYPE, createdAt: { gte: new Date(now.getTime() - 60_000) } },
  });
  if (recent >= TEST_EVENTS_PER_MINUTE)
    throw new AppError("RATE_LIMITED", `At most ${TEST_EVENTS_PER_MINUTE} test events a minute; try again shortly.`, { retryAfterSeconds: 60 });
  const data: WebhookEventData<typeof WEBHOOK_TEST_EVENT_TYPE> = {
    test: true,
    endpoint_id: endpoint.id,
    message: "A test event sent from the Parakh dashboard.",
    payment: samplePayment(mode, now),
  };
  const { eventId, deliveryIds } = await db.$transaction((tx) =>
    emitWebhookEvent(tx, { merchantId, mode, type: WEBHOOK_TEST_EVENT_TYPE, data, only: { endpointId: endpoint.id, url: endpoint.url }, at: now }),
  );
  return { eventId, deliveryId: deliveryIds[0]! };
}
