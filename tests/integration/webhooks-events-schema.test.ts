import Ajv2020 from "ajv/dist/2020";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { request } from "../helpers/http";
import { cli, createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

/**
 * Every event the server can send, produced by the real flows (payments, batches, the wallet,
 * refunds, the dashboard's test event) and captured by a receiver on loopback, is held to the
 * schema the served OpenAPI document publishes for its type under `webhooks`, by an independent
 * JSON Schema validator (Ajv): what a merchant's generated client expects is what arrives.
 */
describe.each(DB_TARGETS)("webhook events against the published document on %s", (target) => {
  let env: Started;
  let db: Db;
  let m: MerchantFixture;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let endpointId: string;
  let doc: any;
  let seq = 0;

  const payHeaders = () => ({ "x-merchant-id": m.merchantId, "x-api-key": m.sandbox.publicKey, "x-secret-key": m.sandbox.secretKey });
  const post = (path: string, body: unknown, headers: Record<string, string> = payHeaders()) =>
    request(env.server.url, path, { method: "POST", body, headers });
  async function payment(): Promise<string> {
    const created = await post("/api/checkout", { orderId: `ORDER_ev_${target}_${seq++}`, amount: "250.00" });
    expect(created.status, created.text).toBe(200);
    return created.json.data.paymentId as string;
  }
  const simulate = async (paymentId: string, outcome: "SUCCESS" | "FAILED") => {
    const r = await post(`/api/sandbox/payments/${paymentId}/simulate`, { outcome });
    expect(r.status, r.text).toBe(200);
  };
  /** In-process moves the pages and the sweeper make (the server's job runner delivers their events). */
  const lifecycle = async () => {
    process.env.DATA_DIR = env.server.dataDir;
    return import("@/server/services/payments/lifecycle");
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    env = await startFor(target, { WEBHOOK_SANDBOX_ALLOW_LOOPBACK: "true", BATCH_RETRY_BUDGET_MS: "1500" });
    db = createPrismaClient(env.server.databaseUrl);
    m = await createMerchantViaCli(env.server.env);
    expect((await cli(env.server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    endpointId = newId("whe");
    await db.webhookEndpoint.create({ data: { id: endpointId, merchantId: m.merchantId, mode: "sandbox", url: receiver.url, events: "*" } });
    doc = (await request(env.server.url, "/api/openapi.json")).json;
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
    receiver?.close();
  });

  it("sends every event type the document publishes, each body valid against its type's schema", async () => {
    const published = Object.keys(doc.webhooks ?? {});
    expect(published.length, "the document publishes webhooks").toBeGreaterThan(0);

    // payment.success, then refund.processed and refund.failed on it
    const paid = await payment();
    await simulate(paid, "SUCCESS");
    for (const body of [{ amount: "10.00" }, { amount: "5.00", reason: "fail_refund test" }]) {
      const r = await post(`/api/payments/${paid}/refunds`, body);
      expect(r.status, r.text).toBe(200);
    }
    // payment.failed, then payment.cancelled
    const failed = await payment();
    await simulate(failed, "FAILED");
    await (await lifecycle()).cancelPayment(db, failed);
    // payment.expired
    const expiring = await payment();
    await db.payment.update({ where: { id: expiring }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await (await lifecycle()).expirePayment(db, expiring);
    // pan.batch.completed and epfo.batch.completed, to the endpoint and to each batch's webhook_url
    const bearer = { Authorization: `Bearer ${m.sandbox.secretKey}` };
    for (const [path, items] of [
      ["/v1/identity/pan/batch", [{ pan: "ABCPK1234F" }, { pan: "bad" }]],
      ["/v1/employment/epfo/batch", [{ uan: "100200300400" }]],
    ] as const) {
      const r = await post(path, { items, webhook_url: `${receiver.url}?batch` }, bearer);
      expect(r.status, r.text).toBe(202);
    }
    // wallet.low_balance: a threshold above the balance, then a charged KYC call
    await db.wallet.updateMany({ where: { merchantId: m.merchantId, mode: "sandbox" }, data: { lowBalanceThresholdPaise: 100_000_000 } });
    const kyc = await post(
      "/api/kyc/pan/verify",
      { merchantId: m.merchantId, pan: "ABCPK1234F" },
      { "x-api-key": m.sandbox.publicKey, "x-api-secret": m.sandbox.secretKey },
    );
    expect(kyc.status, kyc.text).toBe(200);
    // webhook.test, as the dashboard's "Send test event" sends it
    const { sendTestEvent } = await import("@/server/services/webhooks/endpoints");
    await sendTestEvent(db, m.merchantId, "sandbox", endpointId);

    const typesOf = () => new Set(receiver.received.map((r) => JSON.parse(r.body).type as string));
    await waitFor(`deliveries of ${published.join(", ")}`, () => published.every((t) => typesOf().has(t)), 60_000);
    // Batch events arrive twice (endpoint and webhook_url): wait for both.
    await waitFor("batch events at webhook_url", () => receiver.received.filter((r) => /batch\.completed/.test(r.body)).length >= 4, 30_000);

    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: "doc", components: doc.components });
    // The two formats the events use, checked as RFC 3339 UTC (what the contract's ISO 8601 UTC means here) and as absolute URLs.
    ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/);
    ajv.addFormat("uri", (v: string) => URL.canParse(v) && /^https?:\/\//.test(v));
    const schemaOf = (type: string) =>
      JSON.parse(JSON.stringify(doc.webhooks[type].post.requestBody.content["application/json"].schema).replaceAll('"#/components/', '"doc#/components/'));
    for (const got of receiver.received) {
      const body = JSON.parse(got.body);
      expect(published, `${body.type} is published`).toContain(body.type);
      expect(got.headers["x-webhook-event"]).toBe(body.type);
      const valid = ajv.validate(schemaOf(body.type), body);
      expect(valid, `${body.type}: ${got.body}\n${JSON.stringify(ajv.errors)}`).toBe(true);
    }
    // Every type the document publishes was sent and checked.
    expect([...typesOf()].sort()).toEqual([...published].sort());
  }, 120_000);
});
