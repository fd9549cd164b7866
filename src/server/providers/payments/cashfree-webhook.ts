/**
 * The check of a Cashfree Payment Gateway webhook before anything reads it:
 *
 *   x-webhook-signature = Base64(HMAC-SHA256(x-webhook-timestamp + raw body, PG client secret))
 *
 * over the bytes exactly as they arrived (the vendor warns that re-serialised JSON, `170.00` read
 * back as `170`, no longer matches), compared in constant time, with the timestamp (milliseconds
 * since the epoch) at most five minutes away from this server's clock so a recorded webhook cannot
 * be replayed later.
 */
import crypto from "node:crypto";

/** How far the vendor's timestamp may be from this server's clock, either way. */
export const WEBHOOK_TOLERANCE_MS = 5 * 60_000;

export type WebhookRejection = "missing-signature" | "missing-timestamp" | "bad-timestamp" | "stale" | "bad-signature";

export type WebhookVerdict = { ok: true; timestampMs: number } | { ok: false; reason: WebhookRejection };

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** One header's value; a header sent twice is treated as absent. */
function header(headers: WebhookHeaders, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return typeof value === "string" ? value : null;
}

export function verifyCashfreeWebhook(rawBody: Buffer, headers: WebhookHeaders, secret: string, now: number = Date.now()): WebhookVerdict {
  const signature = header(headers, "x-webhook-signature")?.trim();
  if (!signature) return { ok: false, reason: "missing-signature" };
  const timestamp = header(headers, "x-webhook-timestamp")?.trim();
  if (!timestamp) return { ok: false, reason: "missing-timestamp" };
  if (!/^\d{1,16}$/.test(timestamp)) return { ok: false, reason: "bad-timestamp" };
  const timestampMs = Number(timestamp);
  if (Math.abs(now - timestampMs) > WEBHOOK_TOLERANCE_MS) return { ok: false, reason: "stale" };

  const expected = Buffer.from(crypto.createHmac("sha256", secret).update(timestamp, "utf8").update(rawBody).digest("base64"), "utf8");
  const given = Buffer.from(signature, "utf8");
  // timingSafeEqual needs equal lengths; a length mismatch reveals nothing about the secret.
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return { ok: false, reason: "bad-signature" };
  return { ok: true, timestampMs };
}
