import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { redirectSignature } from "@/server/services/payments/signature";
import { request } from "../helpers/http";
import { cli, createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";

const CHECKOUT_ORIGIN = "https://pay.parakh.test";
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(DB_TARGETS)("payments REST API on %s", (target) => {
  let env: Started;
  let m: MerchantFixture;
  let db: Db;
  let seq = 0;
  const order = () => `ORDER_${target}_${Date.now()}_${seq++}`;
  const headers = (x: MerchantFixture = m) => ({ "x-merchant-id": x.merchantId, "x-api-key": x.sandbox.publicKey, "x-secret-key": x.sandbox.secretKey });
  const create = (body: unknown, opts: { localAddress?: string; extra?: Record<string, string>; who?: MerchantFixture } = {}) =>
    request(env.server.url, "/api/checkout", { method: "POST", body, headers: { ...headers(opts.who), ...opts.extra }, localAddress: opts.localAddress });
  const status = (id: string, who: MerchantFixture = m) => request(env.server.url, `/api/payments/${id}/status`, { headers: headers(who) });
  const verify = (body: unknown) => request(env.server.url, "/api/payments/verify", { method: "POST", body, headers: headers() });

  /**
   * Completes a payment through the state machine the hosted page uses: a UPI attempt is started,
   * then its result is reported (the processor's callback), in the server's own database.
   */
  async function settle(paymentId: string, to: "SUCCESS" | "FAILED") {
    process.env.DATA_DIR = env.server.dataDir;
    const { startAttempt, completeAttempt } = await import("@/server/services/payments/lifecycle");
    const { sandboxProcessor } = await import("@/server/providers/payments/sandbox");
    const { attemptId } = await startAttempt(db, sandboxProcessor, paymentId, { method: "UPI", flow: "collect", vpa: "pending@parakh" });
    const result =
      to === "SUCCESS"
        ? { outcome: "SUCCESS" as const, bankReference: "PRK123" }
        : { outcome: "FAILED" as const, errorCode: "PAYMENT_DECLINED", errorMessage: "Declined (test)." };
    expect(await completeAttempt(db, attemptId, result)).toBe(to);
    expect((await status(paymentId)).json.data.status).toBe(to);
  }

  beforeAll(async () => {
    env = await startFor(target, { CHECKOUT_URL: CHECKOUT_ORIGIN });
    m = await createMerchantViaCli(env.server.env);
    expect((await cli(env.server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    db = createPrismaClient(env.server.databaseUrl);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
  });

  it("creates a payment with exactly the fields and formats of the checkout API", async () => {
    const orderId = order();
    const r = await create({
      orderId,
      amount: "499",
      redirectUrl: "https://shop.example/return",
      meta: { name: "Asha", email: "asha@example.com", phone: "+919876543210" },
      lat: 19.07,
      lng: 72.87,
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(["data", "success"]);
    const d = r.json.data;
    expect(Object.keys(d).sort()).toEqual(["_token", "amount", "checkoutUrl", "currency", "expiresAt", "merchantOrderId", "paymentId"]);
    expect(d.paymentId).toMatch(/^pay_\d{13}_[A-Za-z0-9]{10,}$/);
    // {checkout_url}/checkout/<paymentId>, with checkout_url as configured (CHECKOUT_URL).
    expect(d.checkoutUrl).toBe(`${CHECKOUT_ORIGIN}/checkout/${d.paymentId}`);
    expect(d.expiresAt).toMatch(ISO_MS);
    expect(new Date(d.expiresAt).getTime() - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(d).toMatchObject({ merchantOrderId: orderId, amount: "499.00", currency: "INR" });
    expect(typeof d._token).toBe("string");
  });

  it.each([
    [{ amount: 10 }, "VALIDATION_ERROR"],
    [{ orderId: "1001", amount: 10 }, "INVALID_ORDER_ID"],
    [{ orderId: `ORDER_${"x".repeat(60)}`, amount: 10 }, "INVALID_ORDER_ID"],
    [{ orderId: "ORDER_bad id", amount: 10 }, "INVALID_ORDER_ID"],
    [{ orderId: "ORDER_A", amount: "abc" }, "INVALID_AMOUNT"],
    [{ orderId: "ORDER_A", amount: 0 }, "INVALID_AMOUNT"],
    [{ orderId: "ORDER_A", amount: -5 }, "INVALID_AMOUNT"],
    [{ orderId: "ORDER_A", amount: 0.99 }, "INVALID_AMOUNT"],
    [{ orderId: "ORDER_A", amount: "10.001" }, "INVALID_AMOUNT"],
    [{ orderId: "ORDER_A", amount: 100000.01 }, "AMOUNT_LIMIT_EXCEEDED"],
    [{ orderId: "ORDER_A", amount: 10, redirectUrl: "/relative" }, "INVALID_REDIRECT_URL"],
    [{ orderId: "ORDER_A", amount: 10, redirectUrl: "ftp://x.example/" }, "INVALID_REDIRECT_URL"],
    [{ orderId: "ORDER_A", amount: 10, meta: { email: "nope" } }, "VALIDATION_ERROR"],
    [{ orderId: "ORDER_A", amount: 10, meta: { phone: "12" } }, "VALIDATION_ERROR"],
    [{ orderId: "ORDER_A", amount: 10, lat: 91 }, "VALIDATION_ERROR"],
    [{ orderId: "ORDER_A", amount: 10, lng: -181 }, "VALIDATION_ERROR"],
    [{ orderId: "ORDER_A", amount: 10, expiresInMinutes: 4 }, "VALIDATION_ERROR"],
  ])("refuses %j with %s", async (body, code) => {
    const r = await create(body);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ success: false, error: { code } });
    expect(r.json.requestId).toBe(r.headers["x-request-id"]);
  });

  it("accepts the limits and numeric strings", async () => {
    expect((await create({ orderId: order(), amount: 100000 })).json.data.amount).toBe("100000.00");
    expect((await create({ orderId: order(), amount: "1.5" })).json.data.amount).toBe("1.50");
    expect((await create({ orderId: order(), amount: 1 })).json.data.amount).toBe("1.00");
  });

  it("returns the open payment for the same order and amount, 409 for another amount", async () => {
    const orderId = order();
    const a = await create({ orderId, amount: 250 });
    const b = await create({ orderId, amount: "250.00" });
    expect(b.status).toBe(200);
    expect(b.json.data.paymentId).toBe(a.json.data.paymentId);
    const c = await create({ orderId, amount: 251 });
    expect(c.status).toBe(409);
    expect(c.json.error.code).toBe("DUPLICATE_ORDER_ID");
  });

  it("allows a new payment after expiry, and refuses a paid order", async () => {
    const orderId = order();
    const first = (await create({ orderId, amount: 100 })).json.data.paymentId;
    await db.payment.update({ where: { id: first }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const second = await create({ orderId, amount: 120 });
    expect(second.status).toBe(200);
    expect(second.json.data.paymentId).not.toBe(first);
    expect((await status(first)).json.data.status).toBe("EXPIRED");
    await settle(second.json.data.paymentId, "SUCCESS");
    const third = await create({ orderId, amount: 120 });
    expect(third.status).toBe(409);
    expect(third.json.error.code).toBe("ORDER_ALREADY_PAID");
  });

  it("creates one payment when the same order races", async () => {
    const orderId = order();
    const results = await Promise.all(Array.from({ length: 8 }, () => create({ orderId, amount: 75 })));
    const ids = new Set(results.map((r) => r.json.data?.paymentId));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(ids.size).toBe(1);
    expect(await db.payment.count({ where: { orderId } })).toBe(1);
  });

  it("answers the status object, and 404 for unknown, other merchant's and other mode's payments", async () => {
    const orderId = order();
    const id = (await create({ orderId, amount: 42, description: "Masala chai", meta: { name: "Asha" } })).json.data.paymentId;
    const r = await status(id);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.data).sort()).toEqual(
      [
        "amount",
        "attempts",
        "bankReference",
        "createdAt",
        "currency",
        "customer",
        "description",
        "expiresAt",
        "isFinal",
        "merchantOrderId",
        "method",
        "mode",
        "paidAt",
        "paymentId",
        "redirectUrl",
        "status",
        // Refund fields, additive.
        "amountRefunded",
        "refundStatus",
      ].sort(),
    );
    expect(r.json.data).toMatchObject({
      amountRefunded: "0.00",
      refundStatus: "NONE",
      paymentId: id,
      merchantOrderId: orderId,
      status: "CREATED",
      isFinal: false,
      amount: "42.00",
      currency: "INR",
      description: "Masala chai",
      customer: { name: "Asha", email: null, phone: null },
      attempts: [],
      mode: "sandbox",
    });
    const other = await createMerchantViaCli(env.server.env, "Other");
    await cli(env.server.env, ["whitelist", "add", "--merchant", other.merchantId, "--ip", "127.0.0.1"]);
    // The new merchant's key and whitelist reach the server within a second.
    await waitFor("the other merchant's whitelist entry", async () => (await status("pay_0_missing", other)).status === 404);
    for (const res of [await status("pay_0_missing"), await status(id, other)]) {
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe("PAYMENT_NOT_FOUND");
    }
    await db.payment.update({ where: { id }, data: { mode: "live" } });
    expect((await status(id)).status).toBe(404);
    await db.payment.update({ where: { id }, data: { mode: "sandbox" } });
  });

  it("verifies signatures with the signing secret and reports the stored status", async () => {
    const orderId = order();
    const id = (await create({ orderId, amount: 99 })).json.data.paymentId;
    const sig = (s: string) => redirectSignature(m.sandbox.signingSecret, orderId, id, s);
    const unpaid = await verify({ paymentId: id, orderId, status: "CREATED", signature: sig("CREATED") });
    expect(unpaid.status).toBe(200);
    expect(unpaid.json.data).toMatchObject({ verified: false, status: "CREATED", paymentId: id, merchantOrderId: orderId, amount: "99.00", currency: "INR" });
    await settle(id, "SUCCESS");
    const ok = await verify({ paymentId: id, orderId, status: "SUCCESS", signature: sig("SUCCESS") });
    expect(ok.json.data).toMatchObject({ verified: true, status: "SUCCESS", method: "UPI", bankReference: "PRK123" });
    expect(ok.json.data.paidAt).toMatch(ISO_MS);
    const noSig = await verify({ paymentId: id });
    expect(noSig.json.data.verified).toBe(true);
    const lie = await verify({ paymentId: id, orderId, status: "SUCCESS", signature: sig("FAILED") });
    expect(lie.status).toBe(400);
    expect(lie.json.error.code).toBe("SIGNATURE_INVALID");
    const wrongKey = await verify({ paymentId: id, orderId, status: "SUCCESS", signature: redirectSignature(m.sandbox.secretKey, orderId, id, "SUCCESS") });
    expect(wrongKey.json.error.code).toBe("SIGNATURE_INVALID");
    const mismatch = await verify({ paymentId: id, orderId: "ORDER_other" });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error.code).toBe("ORDER_MISMATCH");
    const partial = await verify({ paymentId: id, signature: sig("SUCCESS") });
    expect(partial.status).toBe(400);
    expect(partial.json.error.code).toBe("VALIDATION_ERROR");
    expect((await verify({ paymentId: "pay_1_nope" })).json.error.code).toBe("PAYMENT_NOT_FOUND");
  });

  it("refuses other IPs, forged X-Forwarded-For included", async () => {
    const r = await create({ orderId: order(), amount: 10 }, { localAddress: "127.0.0.2", extra: { "X-Forwarded-For": "127.0.0.1" } });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe("IP_NOT_WHITELISTED");
  });

  it("answers 503 SERVICE_UNAVAILABLE in live mode until a processor is configured", async () => {
    expect((await cli(env.server.env, ["merchant", "go-live", "--merchant", m.merchantId])).code).toBe(0);
    const live = await cli(env.server.env, ["key", "create", "--merchant", m.merchantId, "--mode", "live", "--json"]);
    const r = await request(env.server.url, "/api/checkout", {
      method: "POST",
      body: { orderId: order(), amount: 10, redirectUrl: "https://shop.example/r" },
      headers: { "x-merchant-id": m.merchantId, "x-api-key": live.json.publicKey, "x-secret-key": live.json.secretKey },
    });
    expect(r.status).toBe(503);
    expect(r.json.error.code).toBe("SERVICE_UNAVAILABLE");
    const http = await request(env.server.url, "/api/checkout", {
      method: "POST",
      body: { orderId: order(), amount: 10, redirectUrl: "http://shop.example/r" },
      headers: { "x-merchant-id": m.merchantId, "x-api-key": live.json.publicKey, "x-secret-key": live.json.secretKey },
    });
    expect(http.json.error.code).toBe("INVALID_REDIRECT_URL");
  });
});
