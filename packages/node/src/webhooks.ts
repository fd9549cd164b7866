import { hexEqual, hmacHex, refuse, secretList } from "./signatures.js";
import type { WebhookEvent } from "./types.js";

export interface ConstructEventOptions {
  /** How far (seconds) the signature's timestamp may be from now, either way. Default 300. */
  toleranceSec?: number;
  /** Now, in Unix seconds (for tests). */
  nowSec?: number;
}

export const DEFAULT_TOLERANCE_SEC = 300;

/** `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: the timestamp and every v1 value. */
function parseHeader(header: string): { t: number; v1: string[] } {
  let t = Number.NaN;
  const v1: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (eq < 0) continue;
    if (key === "t" && /^\d+$/.test(value)) t = Number(value);
    if (key === "v1" && value) v1.push(value.toLowerCase());
  }
  if (!Number.isSafeInteger(t) || v1.length === 0) refuse("WEBHOOK_SIGNATURE_MALFORMED", "X-Webhook-Signature must be t=<unix seconds>,v1=<hex>");
  return { t, v1 };
}

function bytesOf(rawBody: string | Uint8Array): Buffer {
  if (typeof rawBody === "string") return Buffer.from(rawBody, "utf8");
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  throw new TypeError("constructEvent needs the raw request body (a string or Buffer, before JSON.parse), not a parsed object");
}

/**
 * Verifies a delivery and returns its event: the `X-Webhook-Signature` must carry a `v1` that is
 * HMAC-SHA256 of `t + "." + rawBody` under one of the secrets (give the current and the previous one
 * during a rotation), and `t` must be within `toleranceSec` of now. Anything else raises
 * `SignatureVerificationError`; nothing is parsed before the signature holds.
 */
export function constructEvent(
  rawBody: string | Uint8Array,
  signatureHeader: string | readonly string[] | null | undefined,
  secret: string | readonly string[],
  options: ConstructEventOptions = {},
): WebhookEvent {
  const secrets = secretList(secret);
  const body = bytesOf(rawBody);
  const header = Array.isArray(signatureHeader) ? signatureHeader.join(",") : signatureHeader;
  if (typeof header !== "string" || header.trim() === "") refuse("WEBHOOK_SIGNATURE_MISSING", "No X-Webhook-Signature header");
  const { t, v1 } = parseHeader(header);
  const tolerance = options.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  const now = options.nowSec ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > tolerance)
    refuse("WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE", `The signature's timestamp is ${now - t} s from now (tolerance ${tolerance} s)`);
  const signed = Buffer.concat([Buffer.from(`${t}.`, "utf8"), body]);
  const expected = secrets.map((s) => hmacHex(s, signed));
  // Every pair is compared (no early exit), each in constant time.
  let ok = false;
  for (const e of expected) for (const given of v1) if (hexEqual(e, given)) ok = true;
  if (!ok) refuse("WEBHOOK_SIGNATURE_INVALID", "No v1 signature matches the body under the given secret(s)");
  let event: unknown;
  try {
    event = JSON.parse(body.toString("utf8"));
  } catch {
    refuse("WEBHOOK_PAYLOAD_INVALID", "The signed body is not JSON");
  }
  if (!event || typeof event !== "object" || typeof (event as { type?: unknown }).type !== "string")
    refuse("WEBHOOK_PAYLOAD_INVALID", "The signed body is not an event");
  return event as WebhookEvent;
}
