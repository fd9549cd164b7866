import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request, type HttpResult } from "../helpers/http";
import { cli, createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";

const NUL = "\u0000";

/**
 * Text a database cannot store as sent (U+0000, which PostgreSQL's text refuses, and unpaired
 * surrogates, which both databases would silently turn into U+FFFD) is refused at the door, field
 * by field, before any work or charge: never a 500, never another request's failure.
 */
describe.each(DB_TARGETS)("unstorable text on %s", (target) => {
  let env: Started;
  let m: MerchantFixture;
  let db: Db;
  let seq = 0;

  const v1 = (path: string, body: unknown) =>
    request(env.server.url, path, { method: "POST", body, headers: { Authorization: `Bearer ${m.sandbox.secretKey}` } });
  const payHeaders = () => ({ "x-merchant-id": m.merchantId, "x-api-key": m.sandbox.publicKey, "x-secret-key": m.sandbox.secretKey });
  const pay = (path: string, body?: unknown) => request(env.server.url, path, { method: body === undefined ? "GET" : "POST", body, headers: payHeaders() });
  const kyc = (path: string, body: Record<string, unknown>) =>
    request(env.server.url, path, {
      method: "POST",
      body: { merchantId: m.merchantId, ...body },
      headers: { "x-api-key": m.sandbox.publicKey, "x-api-secret": m.sandbox.secretKey },
    });

  async function balance(): Promise<number> {
    return (await db.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId: m.merchantId, mode: "sandbox" } } })).balancePaise;
  }

  function expectRefused(r: HttpResult, field: string) {
    expect(r.status, r.text).toBe(400);
    const error = r.json.error;
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(error.details).toEqual([{ field, message: expect.stringMatching(/U\+0000|unpaired surrogate/) }]);
  }

  async function paidPayment(): Promise<string> {
    const created = await pay("/api/checkout", { orderId: `ORDER_nul_${target}_${Date.now()}_${seq++}`, amount: 500 });
    expect(created.status).toBe(200);
    const paymentId = created.json.data.paymentId as string;
    expect((await pay(`/api/sandbox/payments/${paymentId}/simulate`, { outcome: "SUCCESS" })).status).toBe(200);
    return paymentId;
  }

  beforeAll(async () => {
    env = await startFor(target);
    m = await createMerchantViaCli(env.server.env);
    expect((await cli(env.server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    db = createPrismaClient(env.server.databaseUrl);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
  });

  it("refuses U+0000 in a JSON string with 400 VALIDATION_ERROR naming the field, on every kind of route", async () => {
    expectRefused(await v1("/v1/identity/pan/verify", { pan: "ABCPK1234F", name: `x${NUL}y` }), "name");
    expectRefused(await v1("/v1/employment/epfo/verify", { uan: `10000000000${NUL}` }), "uan");
    expectRefused(await pay("/api/checkout", { orderId: "ORDER_nul_desc", amount: 10, description: `a${NUL}` }), "description");
    expectRefused(await pay("/api/checkout", { orderId: "ORDER_nul_meta", amount: 10, meta: { name: `Asha${NUL}`, email: "a@example.com" } }), "meta.name");
    expectRefused(await v1("/v1/identity/pan/batch", { items: [{ pan: "ABCPK1234F" }], client_batch_id: `b${NUL}` }), "client_batch_id");
    expectRefused(await kyc("/api/kyc/aadhaar/verify-otp", { aadhaarNumber: "234567890009", otp: "123456", requestId: `kyc_req_${NUL}` }), "requestId");
    // In a key too: unknown fields are dropped by the schema, but the audit log keeps the body as sent.
    expectRefused(await v1("/v1/identity/pan/verify", { pan: "ABCPK1234F", [`x${NUL}`]: 1 }), "x\\u0000");
    // And in an array element.
    expectRefused(await pay("/api/checkout", { orderId: "ORDER_nul_arr", amount: 10, meta: { tags: ["ok", `b${NUL}`] } }), "meta.tags.1");
    const paymentId = await paidPayment();
    expectRefused(await pay(`/api/payments/${paymentId}/refunds`, { reason: `r${NUL}` }), "reason");
  });

  it("refuses unpaired surrogates the same way (they could only be stored changed)", async () => {
    // JSON text with a lone high surrogate escape: JSON.stringify would write a valid pair, so the body is raw.
    const r = await request(env.server.url, "/v1/identity/pan/verify", {
      method: "POST",
      rawBody: '{"pan":"ABCPK1234F","name":"Asha \\ud800"}',
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${m.sandbox.secretKey}` },
    });
    expectRefused(r, "name");
    // A proper pair (an emoji) is ordinary text.
    const ok = await v1("/v1/identity/pan/verify", { pan: "ABCPK1234F", name: "Asha 😀" });
    expect(ok.status, ok.text).toBe(200);
  });

  it("refuses it before any charge: a KYC call with U+0000 leaves the wallet as it was", async () => {
    const before = await balance();
    expectRefused(await kyc("/api/kyc/pan/verify", { pan: "ABCPK1234F", name: `Rahul${NUL}` }), "name");
    expectRefused(await kyc("/api/kyc/bank/verify", { accountNumber: "1234567890", ifsc: "HDFC0000001", name: `x${NUL}` }), "name");
    expect(await balance()).toBe(before);
  });

  it("answers a path id or query value with U+0000 in the envelope: 404 for the id, 400 naming the parameter", async () => {
    const status = await pay("/api/payments/%00/status");
    expect(status.status, status.text).toBe(404);
    expect(status.json).toMatchObject({ success: false, error: { code: "PAYMENT_NOT_FOUND" } });
    const refund = await pay("/api/refunds/rfnd_%00");
    expect(refund.status, refund.text).toBe(404);
    expect(refund.json.error.code).toBe("REFUND_NOT_FOUND");
    const batch = await request(env.server.url, "/v1/identity/pan/batch/batch_%00", { headers: { Authorization: `Bearer ${m.sandbox.secretKey}` } });
    expect(batch.status, batch.text).toBe(404);
    expect(batch.json).toMatchObject({ status: "error", error: { code: "BATCH_NOT_FOUND" } });
    const created = await v1("/v1/identity/pan/batch", { items: [{ pan: "ABCPK1234F" }] });
    expect(created.status, created.text).toBe(202);
    const results = await request(env.server.url, `/v1/identity/pan/batch/${created.json.data.batch_id}/results?cursor=a%00`, {
      headers: { Authorization: `Bearer ${m.sandbox.secretKey}` },
    });
    expectRefused(results, "cursor");
  });

  it("rejects a batch item with U+0000 as that item, and the batch completes", async () => {
    const items = [
      { pan: "ABCPK1234F", name: "Rahul Sharma", reference_id: "ok-1" },
      { pan: "ABCPK1234F", name: `Rahul${NUL}Sharma`, reference_id: "bad-name" },
      { pan: "ABCPK1234F", reference_id: `bad${NUL}ref` },
      { pan: "ABCPK1234F", reference_id: "ok-2" },
    ];
    const created = await v1("/v1/identity/pan/batch", { items });
    expect(created.status, created.text).toBe(202);
    expect(created.json.data).toMatchObject({ total: 4, accepted: 2, rejected: 2 });
    const id = created.json.data.batch_id as string;
    const auth = { Authorization: `Bearer ${m.sandbox.secretKey}` };
    const done = await waitFor("batch completed", async () => {
      const s = await request(env.server.url, `/v1/identity/pan/batch/${id}`, { headers: auth });
      return s.json.data.status === "COMPLETED" ? s.json.data : null;
    });
    expect(done).toMatchObject({ total: 4, processed: 4, succeeded: 2, failed: 2 });
    const results = await request(env.server.url, `/v1/identity/pan/batch/${id}/results`, { headers: auth });
    const byIndex = results.json.data.items as { index: number; reference_id: string | null; error: { code: string; message: string } | null }[];
    expect(byIndex.map((i) => i.error?.code ?? null)).toEqual([null, "VALIDATION_ERROR", "VALIDATION_ERROR", null]);
    expect(byIndex[1]!.error!.message).toMatch(/name .*U\+0000/);
    expect(byIndex[2]!.error!.message).toMatch(/reference_id .*U\+0000/);
    expect(byIndex[2]!.reference_id).toBeNull();
  });

  it("keeps no card or Aadhaar number typed into free text: payment, refund, batch item (B9 by value)", async () => {
    const card = "4111\u00a01111\u00a01111\u00a01111"; // the Visa test number, copied with no-break spaces
    const created = await pay("/api/checkout", {
      orderId: `ORDER_b9_${target}_${seq++}`,
      amount: 10,
      description: `Gift for card ${card}`,
      meta: { name: "Asha 2345 6789 0009", email: "asha@example.com" },
    });
    expect(created.status, created.text).toBe(200);
    const payment = await db.payment.findUniqueOrThrow({ where: { id: created.json.data.paymentId } });
    expect(payment.description).toBe("Gift for card [REDACTED]");
    expect(payment.customerName).toBe("Asha [REDACTED]");

    const paymentId = await paidPayment();
    const reason = `customer card ${card}`;
    const first = await pay(`/api/payments/${paymentId}/refunds`, { amount: 1, reason, merchantRefundId: `rf_b9_${target}` });
    expect(first.status, first.text).toBe(200);
    expect((await db.refund.findUniqueOrThrow({ where: { id: first.json.data.refundId } })).reason).toBe("customer card [REDACTED]");
    // A retry of the same refund (same reason as sent) is still recognised as the same request.
    const retry = await pay(`/api/payments/${paymentId}/refunds`, { amount: 1, reason, merchantRefundId: `rf_b9_${target}` });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json.data.refundId).toBe(first.json.data.refundId);

    const batch = await v1("/v1/identity/pan/batch", {
      items: [
        { pan: "ABCPK1234F", name: `Rahul ${card}` },
        { pan: `4111 1111 1111 1111`, name: "Rahul" },
      ],
    });
    expect(batch.status, batch.text).toBe(202);
    const auth = { Authorization: `Bearer ${m.sandbox.secretKey}` };
    const id = batch.json.data.batch_id as string;
    await waitFor("batch completed", async () => {
      const st = await request(env.server.url, `/v1/identity/pan/batch/${id}`, { headers: auth });
      return st.json.data.status === "COMPLETED" || null;
    });
    const results = await request(env.server.url, `/v1/identity/pan/batch/${id}/results`, { headers: auth });
    expect(results.json.data.items.map((i: { input: unknown }) => i.input)).toEqual([
      { pan: "ABCPK1234F", name: "Rahul [REDACTED]" },
      { pan: "[REDACTED]", name: "Rahul" },
    ]);
    const stored = await db.batchChunkItems.findMany({ where: { chunk: { batchId: id } } });
    expect(JSON.stringify(stored)).not.toMatch(/4111/);
  });
});
