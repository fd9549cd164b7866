import { describe, expect, it } from "vitest";
import { verifyCashfreeWebhook, WEBHOOK_TOLERANCE_MS } from "@/server/providers/payments/cashfree-webhook";

/*
 * The signatures below were computed once with OpenSSL, apart from the code under test:
 *
 *   printf '%s' "$TIMESTAMP$BODY" | openssl dgst -sha256 -hmac "$SECRET" -binary | base64
 *
 * (for BYTES_BODY, printf '1746427759733{"note":"\xe2\x82\xb9170.00 \xff"}' with the escapes).
 */
const SECRET = "cfsk_ma_test_2f1c9a7e5d3b";
const TIMESTAMP = "1746427759733";
const NOW = Number(TIMESTAMP) + 1_000;
const BODY =
  '{"data":{"order":{"order_id":"pay_1746427700000_Ab12Cd34Ef56Gh","order_amount":170.00,"order_currency":"INR"},"payment":{"cf_payment_id":"5114910123456","payment_status":"SUCCESS","payment_amount":170.00}},"event_time":"2025-05-05T12:19:19+05:30","type":"PAYMENT_SUCCESS_WEBHOOK"}';
const SIGNATURE = "4S6wV+KdGuLCmQPafMpqcpEWW2g3nRPzOoycFnSBW9A=";
/** Not valid UTF-8 (a lone 0xff): only a check on the bytes as received accepts it. */
const BYTES_BODY = Buffer.concat([Buffer.from('{"note":"\u20b9170.00 '), Buffer.from([0xff]), Buffer.from('"}')]);
const BYTES_SIGNATURE = "EJi+0OcCIFiOd6SLmZuN9qQqSKHD65TczU/Ft/z15T0=";
/** A second, unrelated vector: secret "secret", timestamp 1617695238078 (the vendor's documented example time), body {"data":{}}. */
const SMALL = { secret: "secret", timestamp: "1617695238078", body: '{"data":{}}', signature: "G8+B0ioZ94sVJnryhu6aKYsZd36+i+C2bj8w4rq5a4A=" };

/** The vendor's headers; null leaves one out. */
const headers = (signature: string | null, timestamp: string | null = TIMESTAMP) => ({
  "content-type": "application/json",
  ...(signature === null ? {} : { "x-webhook-signature": signature }),
  ...(timestamp === null ? {} : { "x-webhook-timestamp": timestamp }),
});

describe("verifyCashfreeWebhook", () => {
  it("accepts the vendor's signature over the raw body, with the timestamp it carried", () => {
    expect(verifyCashfreeWebhook(Buffer.from(BODY), headers(SIGNATURE), SECRET, NOW)).toEqual({ ok: true, timestampMs: Number(TIMESTAMP) });
    const small = verifyCashfreeWebhook(Buffer.from(SMALL.body), headers(SMALL.signature, SMALL.timestamp), SMALL.secret, Number(SMALL.timestamp));
    expect(small).toEqual({ ok: true, timestampMs: Number(SMALL.timestamp) });
  });

  it("reads the headers from a Fetch Headers object and from Node's header record alike", () => {
    const fetchHeaders = new Headers({ "X-Webhook-Signature": SIGNATURE, "X-Webhook-Timestamp": TIMESTAMP });
    expect(verifyCashfreeWebhook(Buffer.from(BODY), fetchHeaders, SECRET, NOW).ok).toBe(true);
    expect(verifyCashfreeWebhook(Buffer.from(BODY), { "X-Webhook-Signature": SIGNATURE, "X-Webhook-Timestamp": TIMESTAMP }, SECRET, NOW).ok).toBe(true);
  });

  it("checks the bytes as received, not a re-serialised or re-decoded body", () => {
    expect(verifyCashfreeWebhook(BYTES_BODY, headers(BYTES_SIGNATURE), SECRET, NOW).ok).toBe(true);
    // The same JSON parsed and written again (170.00 becomes 170) is another body.
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(BODY)));
    expect(reserialised.equals(Buffer.from(BODY))).toBe(false);
    expect(verifyCashfreeWebhook(reserialised, headers(SIGNATURE), SECRET, NOW)).toEqual({ ok: false, reason: "bad-signature" });
    // Decoding the bytes as text replaces the 0xff byte, which changes the signed message.
    expect(verifyCashfreeWebhook(Buffer.from(BYTES_BODY.toString("utf8")), headers(BYTES_SIGNATURE), SECRET, NOW).ok).toBe(false);
  });

  it("refuses a body changed by one byte, another secret, another timestamp, and a signature changed by one character", () => {
    const body = Buffer.from(BODY);
    for (const i of [0, 57, body.length - 1]) {
      const changed = Buffer.from(body);
      changed[i] = changed[i]! ^ 0x01;
      expect(verifyCashfreeWebhook(changed, headers(SIGNATURE), SECRET, NOW), `byte ${i}`).toEqual({ ok: false, reason: "bad-signature" });
    }
    expect(verifyCashfreeWebhook(body, headers(SIGNATURE), `${SECRET}x`, NOW)).toEqual({ ok: false, reason: "bad-signature" });
    expect(verifyCashfreeWebhook(body, headers(SIGNATURE, String(Number(TIMESTAMP) + 1)), SECRET, NOW)).toEqual({ ok: false, reason: "bad-signature" });
    const flipped = `${SIGNATURE.slice(0, 10)}${SIGNATURE[10] === "A" ? "B" : "A"}${SIGNATURE.slice(11)}`;
    expect(verifyCashfreeWebhook(body, headers(flipped), SECRET, NOW)).toEqual({ ok: false, reason: "bad-signature" });
    // The right bytes written as hex, or cut short, are not the vendor's signature either.
    expect(verifyCashfreeWebhook(body, headers(Buffer.from(SIGNATURE, "base64").toString("hex")), SECRET, NOW)).toEqual({ ok: false, reason: "bad-signature" });
    expect(verifyCashfreeWebhook(body, headers(SIGNATURE.slice(0, -1)), SECRET, NOW)).toEqual({ ok: false, reason: "bad-signature" });
  });

  it("refuses a missing signature or timestamp, and a timestamp that is not milliseconds", () => {
    const body = Buffer.from(BODY);
    expect(verifyCashfreeWebhook(body, headers(null), SECRET, NOW)).toEqual({ ok: false, reason: "missing-signature" });
    expect(verifyCashfreeWebhook(body, headers(""), SECRET, NOW)).toEqual({ ok: false, reason: "missing-signature" });
    expect(verifyCashfreeWebhook(body, headers(SIGNATURE, null), SECRET, NOW)).toEqual({ ok: false, reason: "missing-timestamp" });
    expect(verifyCashfreeWebhook(body, headers(SIGNATURE, "2025-05-05T12:19:19Z"), SECRET, NOW)).toEqual({ ok: false, reason: "bad-timestamp" });
    // The same instant in seconds is fifty-five years away when read as milliseconds.
    expect(verifyCashfreeWebhook(body, headers(SIGNATURE, TIMESTAMP.slice(0, 10)), SECRET, NOW)).toEqual({ ok: false, reason: "stale" });
    // A header sent twice is not one signature.
    expect(verifyCashfreeWebhook(body, { "x-webhook-signature": [SIGNATURE, SIGNATURE], "x-webhook-timestamp": TIMESTAMP }, SECRET, NOW)).toEqual({
      ok: false,
      reason: "missing-signature",
    });
  });

  it("accepts a timestamp up to five minutes away either way and refuses one further, even when correctly signed", () => {
    const body = Buffer.from(BODY);
    const at = Number(TIMESTAMP);
    expect(verifyCashfreeWebhook(body, headers(SIGNATURE), SECRET, at + WEBHOOK_TOLERANCE_MS).ok).toBe(true);
    expect(verifyCashfreeWebhook(body, headers(SIGNATURE), SECRET, at - WEBHOOK_TOLERANCE_MS).ok).toBe(true);
    expect(verifyCashfreeWebhook(body, headers(SIGNATURE), SECRET, at + WEBHOOK_TOLERANCE_MS + 1)).toEqual({ ok: false, reason: "stale" });
    expect(verifyCashfreeWebhook(body, headers(SIGNATURE), SECRET, at - WEBHOOK_TOLERANCE_MS - 1)).toEqual({ ok: false, reason: "stale" });
    expect(WEBHOOK_TOLERANCE_MS).toBe(300_000);
  });
});
