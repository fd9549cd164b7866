import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { request } from "../helpers/http";
import { cli, createMerchantViaCli, startServer, type MerchantFixture, type TestServer } from "../helpers/server";
import { verifyWebhookSignature } from "@/server/services/webhooks/signing";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

// Generous: on a busy 2-core machine the job runner may take seconds to reach a job.
async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("webhook delivery through the server's job runner", () => {
  let server: TestServer;
  let db: Db;
  let m: MerchantFixture;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let endpointId: string;
  let n = 0;

  const headers = () => ({ "x-merchant-id": m.merchantId, "x-api-key": m.sandbox.publicKey, "x-secret-key": m.sandbox.secretKey });

  /** Pays a payment through the page's backend (card 4111…) and returns its id. */
  async function paidPayment(): Promise<string> {
    const created = await request(server.url, "/api/checkout", { method: "POST", body: { orderId: `ORDER_wh_${n++}`, amount: "499" }, headers: headers() });
    const id = created.json.data.paymentId as string;
    process.env.DATA_DIR = server.dataDir;
    const { startAttempt } = await import("@/server/services/payments/lifecycle");
    const { sandboxProcessor } = await import("@/server/providers/payments/sandbox");
    await startAttempt(db, sandboxProcessor, id, { method: "CARD", number: "4111111111111111", expiryMonth: 12, expiryYear: 2035, cvv: "123" });
    return id;
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    server = await startServer({ env: { WEBHOOK_SANDBOX_ALLOW_LOOPBACK: "true" } });
    db = createPrismaClient(server.databaseUrl);
    m = await createMerchantViaCli(server.env);
    await cli(server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"]);
    endpointId = newId("whe");
    await db.webhookEndpoint.create({
      data: { id: endpointId, merchantId: m.merchantId, mode: "sandbox", url: receiver.url, events: "payment.success,payment.failed" },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.$disconnect();
    receiver?.close();
  });

  it("delivers a signed payment.success whose data.payment equals the status response", async () => {
    const id = await paidPayment();
    const got = await waitFor(async () => receiver.received.find((r) => r.body.includes(id)));
    const body = JSON.parse(got.body);
    expect(Object.keys(body).sort()).toEqual(["created_at", "data", "id", "mode", "type"]);
    expect(body).toMatchObject({ type: "payment.success", mode: "sandbox" });
    expect(body.id).toMatch(/^evt_[A-Za-z0-9]+$/);
    expect(got.headers["x-webhook-id"]).toBe(body.id);
    expect(got.headers["x-webhook-event"]).toBe("payment.success");
    expect(got.headers["content-type"]).toBe("application/json");
    const sig = String(got.headers["x-webhook-signature"]);
    expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(sig.startsWith(`t=${got.headers["x-webhook-timestamp"]},`)).toBe(true);
    expect(verifyWebhookSignature(m.sandbox.signingSecret, sig, got.body)).toBe(true);
    expect(verifyWebhookSignature(m.sandbox.signingSecret, sig, got.body.replace("SUCCESS", "FAILED"))).toBe(false);
    const status = await request(server.url, `/api/payments/${id}/status`, { headers: headers() });
    expect(body.data.payment).toEqual(status.json.data);
    const delivery = await waitFor(() => db.webhookDelivery.findFirst({ where: { eventId: body.id, status: "DELIVERED" }, include: { attempts: true } }));
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ statusCode: 200, responseExcerpt: "ok" });
  });

  it("records a failed attempt, schedules the retry a minute later, and delivers on retry", async () => {
    receiver.setAnswer(500);
    const id = await paidPayment();
    const ev = await waitFor(() => db.webhookEvent.findFirst({ where: { subjectId: id, type: "payment.success" } }));
    const pending = await waitFor(() => db.webhookDelivery.findFirst({ where: { eventId: ev.id, attemptCount: 1 }, include: { attempts: true } }));
    expect(pending.status).toBe("PENDING");
    expect(pending.attempts[0]).toMatchObject({ statusCode: 500, responseExcerpt: "nope 500" });
    expect(pending.nextAttemptAt!.getTime() - Date.now()).toBeGreaterThan(50_000);
    receiver.setAnswer(200);
    // Bring the scheduled retry forward instead of waiting a minute.
    await db.job.updateMany({ where: { uniqueKey: `deliver:${pending.id}` }, data: { runAt: new Date() } });
    const done = await waitFor(() => db.webhookDelivery.findFirst({ where: { id: pending.id, status: "DELIVERED" }, include: { attempts: true } }));
    expect(done.attempts.map((a) => a.statusCode).sort()).toEqual([200, 500]);
    const bodies = receiver.received.filter((r) => r.body.includes(ev.id)).map((r) => r.body);
    expect(new Set(bodies).size).toBe(1);
  });

  it("treats a redirect as a failure and does not follow it", async () => {
    receiver.setAnswer(302);
    const id = await paidPayment();
    const ev = await waitFor(() => db.webhookEvent.findFirst({ where: { subjectId: id } }));
    const d = await waitFor(() => db.webhookDelivery.findFirst({ where: { eventId: ev.id, attemptCount: 1 }, include: { attempts: true } }));
    expect(d.status).toBe("PENDING");
    expect(d.attempts[0]!.statusCode).toBe(302);
    receiver.setAnswer(200);
  });

  it("refuses private and loopback targets in live mode, at delivery time", async () => {
    const eventId = newId("evt", 24);
    await db.webhookEvent.create({
      data: { id: eventId, merchantId: m.merchantId, mode: "live", type: "payment.success", body: JSON.stringify({ id: eventId }) },
    });
    const deliveryId = newId("del");
    await db.webhookDelivery.create({ data: { id: deliveryId, eventId, url: receiver.url, status: "PENDING" } });
    await db.job.create({
      data: { id: newId("job"), type: "webhook.deliver", payload: JSON.stringify({ deliveryId }), runAt: new Date(), uniqueKey: `deliver:${deliveryId}` },
    });
    const d = await waitFor(() => db.webhookDelivery.findFirst({ where: { id: deliveryId, attemptCount: 1 }, include: { attempts: true } }));
    expect(d.attempts[0]!.statusCode).toBeNull();
    expect(d.attempts[0]!.error).toMatch(/Refused/);
    expect(receiver.received.some((r) => r.body.includes(eventId))).toBe(false);
  });

  it("keeps pending deliveries across a restart", async () => {
    receiver.setAnswer(503);
    const id = await paidPayment();
    const ev = await waitFor(() => db.webhookEvent.findFirst({ where: { subjectId: id } }));
    const d = await waitFor(() => db.webhookDelivery.findFirst({ where: { eventId: ev.id, attemptCount: 1 } }));
    expect(await server.stop()).toBe(0);
    receiver.setAnswer(200);
    await db.job.updateMany({ where: { uniqueKey: `deliver:${d.id}` }, data: { runAt: new Date() } });
    server = await startServer({ databaseUrl: server.databaseUrl, env: { DATA_DIR: server.dataDir, WEBHOOK_SANDBOX_ALLOW_LOOPBACK: "true" } });
    const done = await waitFor(() => db.webhookDelivery.findFirst({ where: { id: d.id, status: "DELIVERED" } }));
    expect(done.attemptCount).toBe(2);
  });
});
