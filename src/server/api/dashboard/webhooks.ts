import {
  WEBHOOK_MAX_ENDPOINTS,
  WEBHOOK_TEST_EVENT_TYPE,
  eventsFromStored,
  eventsToStored,
  webhookCreateInput,
  webhookDeliveriesInput,
  webhookEndpointInput,
  webhookResendInput,
  webhookUpdateInput,
} from "@/lib/schemas/webhooks";
import { afterCursor, newestFirst, toPage } from "@/server/api/dashboard/logs";
import type { Db, DbTx } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { newId, randomToken } from "@/server/lib/ids";
import { enqueueJob } from "@/server/jobs/queue";
import { DELIVER_JOB } from "@/server/services/webhooks/events";
import { webhookUrlProblem } from "@/server/services/webhooks/ssrf";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

type Mode = "sandbox" | "live";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

// ---- Shapes shared with the payment detail -----------------------------------------------------

export const deliveryInclude = {
  attempts: { orderBy: [{ attemptNo: "asc" as const }, { createdAt: "asc" as const }] },
  event: { select: { id: true, type: true, subjectId: true } },
  endpoint: { select: { id: true, description: true } },
};

type DeliveryRow = {
  id: string;
  eventId: string;
  endpointId: string | null;
  url: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  deliveredAt: Date | null;
  createdAt: Date;
  attempts: { id: string; attemptNo: number; statusCode: number | null; latencyMs: number; responseExcerpt: string | null; error: string | null; createdAt: Date }[];
  event: { id: string; type: string; subjectId: string | null };
  endpoint: { id: string; description: string | null } | null;
};

/** One delivery as the dashboard shows it: the event, where it went, and every attempt. */
export function deliveryView(d: DeliveryRow) {
  return {
    id: d.id,
    eventId: d.event.id,
    eventType: d.event.type,
    subjectId: d.event.subjectId,
    endpointId: d.endpointId,
    endpointDescription: d.endpoint?.description ?? null,
    url: d.url,
    status: d.status as "PENDING" | "DELIVERED" | "FAILED",
    attemptCount: d.attemptCount,
    nextAttemptAt: iso(d.nextAttemptAt),
    lastStatusCode: d.lastStatusCode,
    deliveredAt: iso(d.deliveredAt),
    createdAt: d.createdAt.toISOString(),
    attempts: d.attempts.map((a) => ({
      id: a.id,
      attemptNo: a.attemptNo,
      statusCode: a.statusCode,
      latencyMs: a.latencyMs,
      responseExcerpt: a.responseExcerpt,
      error: a.error,
      createdAt: a.createdAt.toISOString(),
    })),
  };
}

// ---- Endpoints -----------------------------------------------------------------------------------

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

async function findEndpoint(db: Db | DbTx, merchantId: string, mode: Mode, endpointId: string) {
  const e = await db.webhookEndpoint.findFirst({ where: { id: endpointId, merchantId, mode } });
  if (!e) throw new AppError("NOT_FOUND", "No such webhook endpoint in this mode.");
  return e;
}

/** Registration checks beyond the shared schema: B7's host rules and one endpoint per URL and mode. */
async function checkEndpointUrl(db: Db | DbTx, merchantId: string, mode: Mode, url: string, exceptId?: string) {
  const problem = webhookUrlProblem(url, mode);
  if (problem) throw new AppError("VALIDATION_ERROR", problem, { field: "url" });
  const same = await db.webhookEndpoint.findFirst({ where: { merchantId, mode, url, ...(exceptId ? { id: { not: exceptId } } : {}) }, select: { id: true } });
  if (same) throw new AppError("CONFLICT", "This URL is already registered in this mode.", { field: "url" });
}

const STATS_WINDOW_MS = 7 * 24 * 3600 * 1000;

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
            deliveredAt: iso(last.deliveredAt),
          }
        : null,
    };
  });
}

// ---- Test events -----------------------------------------------------------------------------------

/** A clearly fake payment in B5's status shape, so a receiver can exercise its parsing. */
function samplePayment(mode: Mode, now: Date) {
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
  const recent = await db.webhookEvent.count({ where: { merchantId, mode, type: WEBHOOK_TEST_EVENT_TYPE, createdAt: { gte: new Date(now.getTime() - 60_000) } } });
  if (recent >= TEST_EVENTS_PER_MINUTE) throw new AppError("RATE_LIMITED", `At most ${TEST_EVENTS_PER_MINUTE} test events a minute; try again shortly.`, { retryAfterSeconds: 60 });
  const eventId = newId("evt", 24);
  const body = JSON.stringify({
    id: eventId,
    type: WEBHOOK_TEST_EVENT_TYPE,
    created_at: now.toISOString(),
    mode,
    data: { test: true, endpoint_id: endpoint.id, message: "A test event sent from the Parakh dashboard.", payment: samplePayment(mode, now) },
  });
  const deliveryId = newId("del");
  await db.$transaction(async (tx) => {
    await tx.webhookEvent.create({ data: { id: eventId, merchantId, mode, type: WEBHOOK_TEST_EVENT_TYPE, body, subjectId: null, createdAt: now } });
    await tx.webhookDelivery.create({ data: { id: deliveryId, eventId, endpointId: endpoint.id, url: endpoint.url, status: "PENDING", nextAttemptAt: now } });
    await enqueueJob(tx, { type: DELIVER_JOB, payload: { deliveryId }, uniqueKey: `deliver:${deliveryId}` });
  });
  return { eventId, deliveryId };
}

/**
 * A new delivery of the same event (same id, same stored body) to the same URL, with its own
 * retries. Receivers dedupe on the event id, so a resend is safe.
 */
export async function resendDelivery(db: Db, merchantId: string, mode: Mode, deliveryId: string) {
  const original = await db.webhookDelivery.findFirst({ where: { id: deliveryId, event: { merchantId, mode } }, select: { id: true, eventId: true, endpointId: true, url: true } });
  if (!original) throw new AppError("NOT_FOUND", "No such webhook delivery in this mode.");
  const newDeliveryId = newId("del");
  await db.$transaction(async (tx) => {
    // A double click should not queue the same event twice before either has been tried.
    const queued = await tx.webhookDelivery.findFirst({ where: { eventId: original.eventId, url: original.url, status: "PENDING", attemptCount: 0 }, select: { id: true } });
    if (queued) throw new AppError("CONFLICT", "This event is already queued for this URL; it goes out within seconds.");
    await tx.webhookDelivery.create({
      data: { id: newDeliveryId, eventId: original.eventId, endpointId: original.endpointId, url: original.url, status: "PENDING", nextAttemptAt: new Date() },
    });
    await enqueueJob(tx, { type: DELIVER_JOB, payload: { deliveryId: newDeliveryId }, uniqueKey: `deliver:${newDeliveryId}` });
  });
  return { deliveryId: newDeliveryId, eventId: original.eventId };
}

// ---- Router ----------------------------------------------------------------------------------------

export const webhooksRouter = router({
  /** The mode's endpoints with their last delivery and 7-day delivery counts. */
  list: modeProcedure.query(async ({ ctx }) => ({
    endpoints: await listEndpoints(ctx.services.db, ctx.merchantId, ctx.mode),
    maxEndpoints: WEBHOOK_MAX_ENDPOINTS,
  })),

  create: modeProcedure.input(webhookCreateInput).mutation(async ({ ctx, input }) => {
    const db = ctx.services.db;
    const { merchantId, mode } = ctx;
    const created = await db.$transaction(async (tx) => {
      await checkEndpointUrl(tx, merchantId, mode, input.url);
      const count = await tx.webhookEndpoint.count({ where: { merchantId, mode } });
      if (count >= WEBHOOK_MAX_ENDPOINTS) throw new AppError("CONFLICT", `At most ${WEBHOOK_MAX_ENDPOINTS} endpoints per mode; delete one first.`);
      return tx.webhookEndpoint.create({
        data: { id: `we_${randomToken(16)}`, merchantId, mode, url: input.url, events: eventsToStored(input.events), description: input.description ?? null, enabled: true },
      });
    });
    return endpointView(created);
  }),

  /** Changes apply to events emitted from now on; deliveries already made keep their URL. */
  update: modeProcedure.input(webhookUpdateInput).mutation(async ({ ctx, input }) => {
    const db = ctx.services.db;
    const { merchantId, mode } = ctx;
    const updated = await db.$transaction(async (tx) => {
      const endpoint = await findEndpoint(tx, merchantId, mode, input.endpointId);
      if (input.url !== undefined && input.url !== endpoint.url) await checkEndpointUrl(tx, merchantId, mode, input.url, endpoint.id);
      return tx.webhookEndpoint.update({
        where: { id: endpoint.id },
        data: {
          ...(input.url !== undefined ? { url: input.url } : {}),
          ...(input.events !== undefined ? { events: eventsToStored(input.events) } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        },
      });
    });
    return endpointView(updated);
  }),

  /** Removes the endpoint and stops its pending retries; its delivery history stays. */
  delete: modeProcedure.input(webhookEndpointInput).mutation(async ({ ctx, input }) => {
    const db = ctx.services.db;
    const { merchantId, mode } = ctx;
    return db.$transaction(async (tx) => {
      const endpoint = await findEndpoint(tx, merchantId, mode, input.endpointId);
      // A PENDING delivery keeps retrying until it is no longer PENDING; deleting means "stop calling this URL".
      const stopped = await tx.webhookDelivery.updateMany({ where: { endpointId: endpoint.id, status: "PENDING" }, data: { status: "FAILED", nextAttemptAt: null } });
      await tx.webhookEndpoint.delete({ where: { id: endpoint.id } });
      return { id: endpoint.id, url: endpoint.url, stoppedDeliveries: stopped.count };
    });
  }),

  /** Deliveries newest first, optionally of one endpoint or one status, with every attempt. */
  deliveries: modeProcedure.input(webhookDeliveriesInput).query(async ({ ctx, input }) => {
    const db = ctx.services.db;
    const { merchantId, mode } = ctx;
    if (input.endpointId) await findEndpoint(db, merchantId, mode, input.endpointId);
    const rows = await db.webhookDelivery.findMany({
      where: {
        event: { merchantId, mode },
        ...(input.endpointId ? { endpointId: input.endpointId } : {}),
        ...(input.status ? { status: input.status } : {}),
        AND: [afterCursor(input.cursor)],
      },
      orderBy: newestFirst,
      take: input.limit + 1,
      include: deliveryInclude,
    });
    const { rows: page, nextCursor } = toPage(rows, input.limit);
    return { items: page.map(deliveryView), nextCursor };
  }),

  resend: modeProcedure.input(webhookResendInput).mutation(({ ctx, input }) => resendDelivery(ctx.services.db, ctx.merchantId, ctx.mode, input.deliveryId)),

  sendTest: modeProcedure.input(webhookEndpointInput).mutation(({ ctx, input }) => sendTestEvent(ctx.services.db, ctx.merchantId, ctx.mode, input.endpointId)),
});
