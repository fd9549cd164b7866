import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request } from "../helpers/http";
import { cli, createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";
import { startMisbehavingReceiver, startWebhookReceiver } from "../helpers/webhook-receiver";

/** docs/api.md, Webhooks: one 5 s deadline per attempt, 64 KiB of the answer read, two at a time per endpoint. */
const DELIVERY_TIMEOUT_MS = 5_000;
const PER_ENDPOINT = 2;
/** Half of the instance's eight delivery workers. */
const PER_MERCHANT = 4;
const EXCERPT_CHARS = 500;

const randomId = (prefix: string) => `${prefix}_${crypto.randomBytes(12).toString("hex")}`;

interface Interval {
  key: string;
  start: number;
  end: number;
}

/** The most intervals open at one instant. */
function maxOverlap(intervals: Interval[]): number {
  const edges = intervals.flatMap((i) => [
    [i.start, 1],
    [i.end, -1],
  ]);
  // An end before a start at the same instant: touching intervals do not overlap.
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let open = 0;
  let max = 0;
  for (const [, d] of edges) max = Math.max(max, (open += d!));
  return max;
}

/**
 * Receivers that trickle or stream their answer must not stall the instance: while twelve
 * deliveries go to them, a refund and a payment expiry due meanwhile finish at once (they run on
 * another runner), each attempt ends by the 5 s deadline having read at most 64 KiB, and one
 * endpoint gets at most two workers, one merchant at most four.
 */
describe.each(DB_TARGETS)("slow webhook receivers on %s", (target) => {
  let env: Started;
  let db: Db;
  let m: MerchantFixture;
  let other: MerchantFixture;
  let bad: Awaited<ReturnType<typeof startMisbehavingReceiver>>;
  let good: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let seq = 0;

  const headers = (x: MerchantFixture) => ({ "x-merchant-id": x.merchantId, "x-api-key": x.sandbox.publicKey, "x-secret-key": x.sandbox.secretKey });
  const post = (path: string, body: unknown) => request(env.server.url, path, { method: "POST", body, headers: headers(m) });
  async function newPayment(): Promise<string> {
    const created = await post("/api/checkout", { orderId: `ORDER_slow_${target}_${Date.now()}_${seq++}`, amount: "250.00" });
    expect(created.status).toBe(200);
    return created.json.data.paymentId as string;
  }
  async function endpoint(x: MerchantFixture, url: string): Promise<string> {
    const id = randomId("whe");
    await db.webhookEndpoint.create({ data: { id, merchantId: x.merchantId, mode: "sandbox", url, events: "payment.failed" } });
    return id;
  }
  /** A sandbox event with one pending delivery to the endpoint, queued as the app queues it. */
  async function queueDelivery(x: MerchantFixture, endpointId: string, url: string): Promise<string> {
    const eventId = randomId("evt");
    const deliveryId = randomId("del");
    const body = JSON.stringify({ id: eventId, type: "payment.failed", created_at: new Date().toISOString(), mode: "sandbox", data: {} });
    await db.webhookEvent.create({ data: { id: eventId, merchantId: x.merchantId, mode: "sandbox", type: "payment.failed", body } });
    await db.webhookDelivery.create({ data: { id: deliveryId, eventId, endpointId, url, status: "PENDING", nextAttemptAt: new Date() } });
    await db.job.create({
      data: { id: randomId("job"), type: "webhook.deliver", payload: JSON.stringify({ deliveryId }), runAt: new Date(), uniqueKey: `deliver:${deliveryId}` },
    });
    return deliveryId;
  }

  beforeAll(async () => {
    bad = await startMisbehavingReceiver();
    good = await startWebhookReceiver();
    env = await startFor(target, { WEBHOOK_SANDBOX_ALLOW_LOOPBACK: "true" });
    db = createPrismaClient(env.server.databaseUrl);
    m = await createMerchantViaCli(env.server.env, "Slow Receivers");
    other = await createMerchantViaCli(env.server.env, "Someone Else");
    expect((await cli(env.server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
    bad?.close();
    good?.close();
  });

  it("keeps refunds and expiry on time, fails each trickling answer at 5 s and each stream after 64 KiB, and caps workers per endpoint and merchant", async () => {
    // Set up before the receivers are busy: a paid payment to refund, an open one to expire.
    const paid = await newPayment();
    expect((await post(`/api/sandbox/payments/${paid}/simulate`, { outcome: "SUCCESS" })).json.data.payment.status).toBe("SUCCESS");
    const open = await newPayment();

    const trickle1 = await endpoint(m, `${bad.url}/trickle-1`);
    const trickle2 = await endpoint(m, `${bad.url}/trickle-2`);
    const stream = await endpoint(m, `${bad.url}/stream`);
    const fine = await endpoint(other, good.url);
    const trickling: string[] = [];
    const streamed: string[] = [];
    for (let i = 0; i < 4; i++) {
      trickling.push(await queueDelivery(m, trickle1, `${bad.url}/trickle-1`));
      trickling.push(await queueDelivery(m, trickle2, `${bad.url}/trickle-2`));
      streamed.push(await queueDelivery(m, stream, `${bad.url}/stream`));
    }
    const otherDelivery = await queueDelivery(other, fine, good.url);

    // Four bad answers held at once (for a while: not a stream about to be closed), as many as a
    // runner shared with refunds and expiry used to have workers.
    await waitFor("four slow deliveries in flight", () => bad.hits.filter((h) => h.closedAt === null && h.openedAt < Date.now() - 300).length >= 4, 20_000);

    // Now a refund and an expiry come due.
    const due = Date.now();
    const refund = await post(`/api/payments/${paid}/refunds`, { amount: "100.00", reason: "Slow receivers" });
    expect(refund.status).toBe(200);
    const refundId = refund.json.data.refundId as string;
    await db.payment.update({ where: { id: open }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    expect((await db.job.updateMany({ where: { type: "payment.expire", payload: { contains: open } }, data: { runAt: new Date() } })).count).toBe(1);
    // Read from the database: the status endpoint would expire the payment on sight.
    const [processed, expired] = await waitFor(
      "the refund PROCESSED and the payment EXPIRED",
      async () => {
        const r = await db.refund.findUniqueOrThrow({ where: { id: refundId } });
        const p = await db.payment.findUniqueOrThrow({ where: { id: open }, include: { events: { where: { toStatus: "EXPIRED" } } } });
        return r.status === "PROCESSED" && p.status === "EXPIRED" && ([r.processedAt!, p.events[0]!.createdAt] as const);
      },
      10_000,
    );
    expect(Date.now() - due).toBeLessThan(10_000);

    // Each trickling answer fails at the deadline (first attempt), recorded with its status and
    // the timeout, and is retried on the schedule.
    const trickled = await waitFor(
      "a first attempt on every trickling delivery",
      async () => {
        const rows = await db.webhookDelivery.findMany({ where: { id: { in: trickling } }, include: { attempts: true } });
        return rows.every((d) => d.attemptCount >= 1) && rows;
      },
      60_000,
      200,
    );
    for (const d of trickled) {
      const first = d.attempts.find((a) => a.attemptNo === 1)!;
      expect(first).toMatchObject({ statusCode: 200, error: `timed out after ${DELIVERY_TIMEOUT_MS} ms` });
      expect(first.latencyMs).toBeGreaterThanOrEqual(DELIVERY_TIMEOUT_MS - 50);
      // The deadline plus the server's own scheduling (a byte every 200 ms would have held it for hours).
      expect(first.latencyMs).toBeLessThan(DELIVERY_TIMEOUT_MS + 1_000);
      expect(first.responseExcerpt).toMatch(/^a+$/);
      expect(d).toMatchObject({ status: "PENDING", attemptCount: 1, lastStatusCode: 200, deliveredAt: null });
      expect(Math.round((d.nextAttemptAt!.getTime() - first.createdAt.getTime()) / 60_000)).toBe(1);
    }
    // The refund and the expiry did not wait for a delivery worker: both were done while the first
    // trickling answers were still being waited for.
    const firstTrickleEnd = Math.min(...trickled.flatMap((d) => d.attempts.map((a) => a.createdAt.getTime())));
    expect(processed.getTime()).toBeLessThan(firstTrickleEnd);
    expect(expired.getTime()).toBeLessThan(firstTrickleEnd);

    // A 200 streamed fast is read to 64 KiB, then the socket is closed, long before the receiver's
    // 30 s: a failed attempt, recorded within 6 s, retried on the schedule.
    const streamedRows = await waitFor(
      "every streamed delivery answered",
      async () => {
        const rows = await db.webhookDelivery.findMany({ where: { id: { in: streamed } }, include: { attempts: true } });
        return rows.every((d) => d.attemptCount >= 1) && rows;
      },
      60_000,
      200,
    );
    for (const d of streamedRows) {
      expect(d).toMatchObject({ status: "PENDING", attemptCount: 1, lastStatusCode: 200 });
      expect(d.nextAttemptAt!.getTime() - d.attempts[0]!.createdAt.getTime()).toBeGreaterThan(50_000);
      expect(d.attempts[0]).toMatchObject({ statusCode: 200, error: "the answer's body is over 64 KiB (not read further)" });
      expect(d.attempts[0]!.responseExcerpt).toBe("b".repeat(EXCERPT_CHARS));
      expect(d.attempts[0]!.latencyMs).toBeLessThan(6_000);
    }
    const streams = await waitFor("the streaming sockets closed", () => {
      const hits = bad.hits.filter((h) => h.path === "/stream");
      return hits.length === streamed.length && hits.every((h) => h.closedAt !== null) && hits;
    });
    for (const h of streams) {
      // 64 KiB read, plus what the two kernels buffer on loopback: megabytes, not the gigabytes of a
      // body read to its end.
      expect(h.bytesWritten).toBeLessThan(40 * 1024 * 1024);
      expect(h.closedAt! - h.openedAt).toBeLessThan(DELIVERY_TIMEOUT_MS + 5_000);
    }
    // A normal receiver (another merchant's) is delivered as ever.
    const ok = await waitFor("the other merchant's delivery", () =>
      db.webhookDelivery.findFirst({ where: { id: otherDelivery, status: "DELIVERED" }, include: { attempts: true } }),
    );
    expect(ok.attempts).toHaveLength(1);
    expect(ok.attempts[0]).toMatchObject({ statusCode: 200, responseExcerpt: "ok", error: null });

    // Slots: never more than two attempts at once per endpoint, four per merchant. Each attempt's
    // recorded span lies inside the time it held its slot.
    const attempts = await db.webhookAttempt.findMany({ where: { deliveryId: { in: [...trickling, ...streamed] } }, include: { delivery: true } });
    expect(attempts.length).toBeGreaterThanOrEqual(12);
    const spans: Interval[] = attempts.map((a) => ({
      key: a.delivery.endpointId!,
      start: a.createdAt.getTime() - a.latencyMs + 1,
      end: a.createdAt.getTime(),
    }));
    for (const id of [trickle1, trickle2, stream]) expect(maxOverlap(spans.filter((s) => s.key === id))).toBeLessThanOrEqual(PER_ENDPOINT);
    // The trickling endpoints did use both their slots (so the limit above is the limit, not idleness).
    expect(maxOverlap(spans.filter((s) => s.key === trickle1))).toBe(PER_ENDPOINT);
    expect(maxOverlap(spans)).toBeLessThanOrEqual(PER_MERCHANT);
  }, 120_000);
});
