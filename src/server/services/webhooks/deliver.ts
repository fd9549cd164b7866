import type { Db } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { activeSigningSecrets } from "@/server/services/merchants/signing-secrets";
import { resolveWebhookTarget, UnsafeWebhookTarget } from "@/server/services/webhooks/ssrf";
import { webhookSignatureHeader } from "@/server/services/webhooks/signing";
import { DELIVERY_TIMEOUT_MS, postWebhook, type SendResult } from "@/server/providers/webhooks/http-post";

export { DELIVERY_TIMEOUT_MS };

/** Retry schedule after the first attempt: 1 m, 5 m, 10 m, 30 m, 1 h, 2 h, 4 h, 6 h, 6 h (about 20 h). */
export const RETRY_DELAYS_MS = [1, 5, 10, 30, 60, 120, 240, 360, 360].map((m) => m * 60_000);
/**
 * One delivery attempt (the `webhook.deliver` job). Signs the stored body's exact bytes, records the
 * attempt, and returns when to try again, or null when the delivery is finished (delivered or failed).
 */
export async function attemptDelivery(db: Db, deliveryId: string, opts: { allowLoopbackInSandbox: boolean }): Promise<Date | null> {
  const delivery = await db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { event: true, endpoint: { select: { enabled: true } } } });
  if (!delivery || delivery.status !== "PENDING") return null;
  if (delivery.endpoint && !delivery.endpoint.enabled) {
    // A disabled endpoint gets nothing more, queued retries included.
    await db.webhookDelivery.update({ where: { id: deliveryId }, data: { status: "FAILED", nextAttemptAt: null } });
    return null;
  }
  const { event } = delivery;
  const attemptNo = delivery.attemptCount + 1;
  const url = new URL(delivery.url);
  let result: SendResult;
  try {
    const target = await resolveWebhookTarget(url, { allowLoopback: event.mode === "sandbox" && opts.allowLoopbackInSandbox });
    const secrets = await activeSigningSecrets(db, event.merchantId, event.mode as "sandbox" | "live");
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
    );
  } catch (err) {
    result = { statusCode: null, excerpt: null, error: err instanceof UnsafeWebhookTarget ? `Refused: ${err.message}` : (err as Error).message, latencyMs: 0 };
  }
  // Only a 2xx counts; redirects are not followed and count as failures.
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
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
