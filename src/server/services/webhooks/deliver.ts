import type { Db } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { activeSigningSecrets } from "@/server/services/merchants/signing-secrets";
import { resolveWebhookTarget, UnsafeWebhookTarget } from "@/server/services/webhooks/ssrf";
import { webhookSignatureHeader } from "@/server/services/webhooks/signing";
import { DELIVERY_TIMEOUT_MS, postWebhook, type SendResult } from "@/server/providers/webhooks/http-post";
import type { DeliverySlots } from "@/server/services/webhooks/slots";

export { DELIVERY_TIMEOUT_MS };

/** Retry schedule after the first attempt: 1 m, 5 m, 10 m, 30 m, 1 h, 2 h, 4 h, 6 h, 6 h (about 20 h). */
export const RETRY_DELAYS_MS = [1, 5, 10, 30, 60, 120, 240, 360, 360].map((m) => m * 60_000);

/**
 * One delivery attempt (the `webhook.deliver` job). Signs the stored body's exact bytes, records the
 * attempt, and returns when to try again, or null when the delivery is finished (delivered or failed).
 * With `slots`, a delivery whose endpoint or merchant has no free slot records nothing and returns
 * when to come back.
 */
export async function attemptDelivery(db: Db, deliveryId: string, opts: { allowLoopbackInSandbox: boolean; slots?: DeliverySlots }): Promise<Date | null> {
  const delivery = await db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { event: true, endpoint: { select: { enabled: true } } } });
  if (!delivery || delivery.status !== "PENDING") return null;
  if (delivery.endpoint && !delivery.endpoint.enabled) {
    // A disabled endpoint gets nothing more, queued retries included.
    await db.webhookDelivery.update({ where: { id: deliveryId }, data: { status: "FAILED", nextAttemptAt: null } });
    return null;
  }
  const { event } = delivery;
  const slot = opts.slots?.take(deliveryId, delivery.endpointId ?? delivery.url, event.merchantId);
  if (slot && "retryInMs" in slot) return new Date(Date.now() + slot.retryInMs);
  try {
    return await attempt(db, delivery, opts);
  } finally {
    slot?.release();
  }
}

async function attempt(
  db: Db,
  delivery: { id: string; url: string; attemptCount: number; event: { id: string; merchantId: string; mode: string; type: string; body: string } },
  opts: { allowLoopbackInSandbox: boolean },
): Promise<Date | null> {
  const { event, id: deliveryId } = delivery;
  const attemptNo = delivery.attemptCount + 1;
  const url = new URL(delivery.url);
  let result: SendResult;
  let started = performance.now();
  try {
    const secrets = await activeSigningSecrets(db, event.merchantId, event.mode as "sandbox" | "live");
    // The deadline covers the network: the name lookup, then connect, headers and body.
    started = performance.now();
    const target = await withDeadline(
      resolveWebhookTarget(url, { allowLoopback: event.mode === "sandbox" && opts.allowLoopbackInSandbox }),
      DELIVERY_TIMEOUT_MS,
    );
    const t = Math.floor(Date.now() / 1000);
    result = await postWebhook(
      url,
      target,
      {
        "Content-Type": "application/json",
        "User-Agent": "Parakh-Webhooks/1.0",
        "X-Webhook-Id": event.id,
        "X-Webhook-Event": event.type,
        "X-Webhook-Timestamp": String(t),
        "X-Webhook-Signature": webhookSignatureHeader(secrets, t, event.body),
      },
      event.body,
      { timeoutMs: DELIVERY_TIMEOUT_MS, startedAt: started },
    );
  } catch (err) {
    result = {
      statusCode: null,
      excerpt: null,
      error: err instanceof UnsafeWebhookTarget ? `Refused: ${err.message}` : (err as Error).message,
      latencyMs: Math.round(performance.now() - started),
      bytesRead: 0,
    };
  }
  // Only a whole 2xx answer counts (a 2xx still arriving at the deadline does not); redirects are
  // not followed and count as failures.
  const delivered = result.error === null && result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const delay = RETRY_DELAYS_MS[attemptNo - 1];
  const next = delivered || delay === undefined ? null : new Date(Date.now() + delay);
  await db.$transaction([
    db.webhookAttempt.create({
      data: {
        id: newId("whe"),
        deliveryId,
        attemptNo,
        statusCode: result.statusCode,
        latencyMs: result.latencyMs,
        responseExcerpt: result.excerpt,
        error: result.error?.slice(0, 300) ?? null,
      },
    }),
    db.webhookDelivery.update({
      where: { id: deliveryId },
      data: {
        attemptCount: attemptNo,
        lastStatusCode: result.statusCode,
        status: delivered ? "DELIVERED" : next ? "PENDING" : "FAILED",
        deliveredAt: delivered ? new Date() : null,
        nextAttemptAt: next,
      },
    }),
  ]);
  if (!delivered) log.info("webhook attempt failed", { deliveryId, eventId: event.id, attemptNo, statusCode: result.statusCode, error: result.error });
  return next;
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
