import { hmacSha256Hex, safeEqual } from "@/server/lib/crypto";

/**
 * `X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC_SHA256(secret, t + "." + raw_body)>`, one v1 per valid secret
 * (two during a rotation). Used by delivery and shown in docs/api.md (Webhooks) as the receiver's check.
 */
export function webhookSignatureHeader(secrets: string[], timestampSeconds: number, rawBody: string): string {
  const parts = [`t=${timestampSeconds}`];
  for (const s of secrets) parts.push(`v1=${hmacSha256Hex(Buffer.from(s, "utf8"), `${timestampSeconds}.${rawBody}`)}`);
  return parts.join(",");
}

/** A receiver's check: any v1 matches, and the timestamp is within the tolerance. */
export function verifyWebhookSignature(
  secret: string,
  header: string,
  rawBody: string,
  toleranceSeconds = 300,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const fields = header.split(",").map((p) => p.trim().split("="));
  const t = Number(fields.find(([k]) => k === "t")?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = hmacSha256Hex(Buffer.from(secret, "utf8"), `${t}.${rawBody}`);
  return fields.some(([k, v]) => k === "v1" && v !== undefined && safeEqual(v, expected));
}
