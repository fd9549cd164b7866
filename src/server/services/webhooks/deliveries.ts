import type { Mode } from "@/lib/mode";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { afterCursor, newestFirst, toPage } from "@/server/lib/pagination";
import { webhookDeliveryJob } from "@/server/jobs/registry";
import { findEndpoint } from "@/server/services/webhooks/endpoints";
import { isoOrNull } from "@/server/lib/dates";

/** What the dashboard reads with a delivery: every attempt, its event and its endpoint. */
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
  attempts: {
    id: string;
    attemptNo: number;
    statusCode: number | null;
    latencyMs: number;
    responseExcerpt: string | null;
    error: string | null;
    createdAt: Date;
  }[];
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
    nextAttemptAt: isoOrNull(d.nextAttemptAt),
    lastStatusCode: d.lastStatusCode,
    deliveredAt: isoOrNull(d.deliveredAt),
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

/** The deliveries of a merchant's events about the given subjects (a payment and its refunds), oldest first, by event. */
export async function deliveriesBySubject(db: Db, merchantId: string, mode: Mode, subjectId: string | string[]) {
  const events = await db.webhookEvent.findMany({
    where: { subjectId: typeof subjectId === "string" ? subjectId : { in: subjectId }, merchantId, mode },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    include: { deliveries: { orderBy: [{ createdAt: "asc" }, { id: "asc" }], include: deliveryInclude } },
  });
  return events.map((e) => ({ eventId: e.id, type: e.type, createdAt: e.createdAt.toISOString(), deliveries: e.deliveries.map(deliveryView) }));
}

/** Deliveries newest first, optionally of one of the merchant's endpoints (else NOT_FOUND) or of one status. */
export async function listDeliveries(
  db: Db,
  merchantId: string,
  mode: Mode,
  input: { endpointId?: string; status?: "PENDING" | "DELIVERED" | "FAILED"; cursor?: string; limit: number },
) {
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
}

/**
 * A new delivery of the same event (same id, same stored body) to the same URL, with its own
 * retries. Receivers dedupe on the event id, so a resend is safe.
 */
export async function resendDelivery(db: Db, merchantId: string, mode: Mode, deliveryId: string) {
  const original = await db.webhookDelivery.findFirst({
    where: { id: deliveryId, event: { merchantId, mode } },
    select: { id: true, eventId: true, endpointId: true, url: true },
  });
  if (!original) throw new AppError("NOT_FOUND", "No such webhook delivery in this mode.");
  const newDeliveryId = newId("del");
  await db.$transaction(async (tx) => {
    // A double click should not queue the same event twice before either has been tried.
    const queued = await tx.webhookDelivery.findFirst({
      where: { eventId: original.eventId, url: original.url, status: "PENDING", attemptCount: 0 },
      select: { id: true },
    });
    if (queued) throw new AppError("CONFLICT", "This event is already queued for this URL; it goes out within seconds.");
    await tx.webhookDelivery.create({
      data: { id: newDeliveryId, eventId: original.eventId, endpointId: original.endpointId, url: original.url, status: "PENDING", nextAttemptAt: new Date() },
    });
    await webhookDeliveryJob.enqueue(tx, { deliveryId: newDeliveryId }, { uniqueKey: `deliver:${newDeliveryId}` });
  });
  return { deliveryId: newDeliveryId, eventId: original.eventId };
}
