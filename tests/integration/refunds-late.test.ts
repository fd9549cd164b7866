import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request } from "../helpers/http";
import { cli, createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";

type LeftHow = "abandoned" | "timed out";
type PaymentState = "not paid" | "paid by another attempt" | "EXPIRED" | "CANCELLED";

const MATRIX: [LeftHow, "SUCCESS" | "FAILED", PaymentState][] = [];
for (const left of ["abandoned", "timed out"] as const)
  for (const late of ["SUCCESS", "FAILED"] as const)
    for (const state of ["not paid", "paid by another attempt", "EXPIRED", "CANCELLED"] as const) MATRIX.push([left, late, state]);

describe.each(DB_TARGETS)("abandoned attempts, late results and the simulation API on %s", (target) => {
  let env: Started;
  let m: MerchantFixture;
  let db: Db;
  let lifecycle: typeof import("@/server/services/payments/lifecycle");
  let seq = 0;
  const headers = (x: MerchantFixture = m) => ({ "x-merchant-id": x.merchantId, "x-api-key": x.sandbox.publicKey, "x-secret-key": x.sandbox.secretKey });
  const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
    request(env.server.url, path, { method: "POST", body, headers: { ...headers(), ...extra } });
  const simulate = (paymentId: string, body: unknown, extra: Record<string, string> = {}) => post(`/api/sandbox/payments/${paymentId}/simulate`, body, extra);
  const status = async (paymentId: string) => (await request(env.server.url, `/api/payments/${paymentId}/status`, { headers: headers() })).json.data;
  async function newPayment(amount = 250): Promise<string> {
    const r = await post("/api/checkout", { orderId: `ORDER_late_${target}_${Date.now()}_${seq++}`, amount });
    expect(r.status).toBe(200);
    return r.json.data.paymentId;
  }
  async function pendingAttempt(paymentId: string, method = "upi"): Promise<string> {
    const r = await simulate(paymentId, { outcome: "PENDING", method });
    expect(r.status).toBe(200);
    expect(r.json.data.payment.status).toBe("PENDING");
    return r.json.data.attemptId;
  }

  /** The money rule of late results: every success that came in is the payment's or refunded in full, never counted as a merchant refund. */
  async function expectAccounted(paymentId: string) {
    const p = await db.payment.findUniqueOrThrow({ where: { id: paymentId }, include: { attempts: true, refunds: true } });
    const succeeded = p.attempts.filter((a) => a.status === "SUCCESS").map((a) => a.id);
    const autoRefunded = p.refunds.filter((r) => r.attemptId !== null);
    expect(succeeded.length).toBe((p.status === "SUCCESS" ? 1 : 0) + autoRefunded.length);
    expect(autoRefunded.every((r) => succeeded.includes(r.attemptId!) && r.amountPaise === p.amountPaise && r.reason === "AUTO_REFUND_LATE_ATTEMPT")).toBe(
      true,
    );
    expect(new Set(autoRefunded.map((r) => r.attemptId)).size).toBe(autoRefunded.length);
    expect(autoRefunded.every((r) => r.status !== "FAILED")).toBe(true);
    const merchantRefunds = p.refunds.filter((r) => r.attemptId === null && r.status !== "FAILED");
    expect(p.refundedPaise).toBe(merchantRefunds.reduce((sum, r) => sum + r.amountPaise, 0));
    return { payment: p, autoRefunded };
  }

  beforeAll(async () => {
    env = await startFor(target);
    m = await createMerchantViaCli(env.server.env);
    expect((await cli(env.server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    db = createPrismaClient(env.server.databaseUrl);
    process.env.DATA_DIR = env.server.dataDir;
    lifecycle = await import("@/server/services/payments/lifecycle");
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
  });

  it.each(MATRIX)("an attempt %s, then a late %s, on a payment %s", async (left, late, state) => {
    const paymentId = await newPayment();
    const attemptId = await pendingAttempt(paymentId);
    if (left === "abandoned") {
      const r = await simulate(paymentId, { outcome: "ABANDONED", attemptId });
      expect(r.status).toBe(200);
      expect(r.json.data.payment.attempts[0]).toMatchObject({ attemptId, status: "ABANDONED", errorCode: "ATTEMPT_ABANDONED" });
    } else {
      await db.paymentAttempt.update({ where: { id: attemptId }, data: { timeoutAt: new Date(Date.now() - 1) } });
      expect(await lifecycle.timeoutAttempt(db, attemptId)).toBe(true);
      expect((await status(paymentId)).attempts[0]).toMatchObject({ status: "FAILED", errorCode: "ATTEMPT_TIMEOUT" });
    }
    expect((await status(paymentId)).status).toBe("FAILED");

    if (state === "paid by another attempt")
      expect((await simulate(paymentId, { outcome: "SUCCESS", method: "card" })).json.data.payment.status).toBe("SUCCESS");
    if (state === "EXPIRED") {
      await db.payment.update({ where: { id: paymentId }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expect(await lifecycle.expirePayment(db, paymentId)).toBe(true);
    }
    if (state === "CANCELLED") await lifecycle.cancelPayment(db, paymentId);
    const before = await status(paymentId);
    const expectedBefore = state === "not paid" ? "FAILED" : state === "paid by another attempt" ? "SUCCESS" : state;
    expect(before.status).toBe(expectedBefore);

    // Late results are always accepted.
    const r = await simulate(paymentId, { outcome: late, attemptId });
    expect(r.status).toBe(200);
    expect(r.json.data.attemptId).toBe(attemptId);
    const after = await status(paymentId);
    const { autoRefunded } = await expectAccounted(paymentId);
    expect(after).toMatchObject({ amountRefunded: "0.00", refundStatus: "NONE" });

    if (late === "FAILED") {
      // A late failure changes nothing.
      expect(after.status).toBe(before.status);
      expect(after.attempts).toEqual(before.attempts);
      expect(autoRefunded).toHaveLength(0);
      return;
    }
    expect(after.attempts.find((a: { attemptId: string }) => a.attemptId === attemptId).status).toBe("SUCCESS");
    if (state === "not paid") {
      expect(after).toMatchObject({ status: "SUCCESS", method: "UPI" });
      expect(after.paidAt).not.toBeNull();
      expect(autoRefunded).toHaveLength(0);
      const timeline = await db.paymentEvent.findMany({ where: { paymentId }, orderBy: { createdAt: "asc" } });
      expect(timeline.at(-1)).toMatchObject({ fromStatus: "FAILED", toStatus: "SUCCESS", reason: "LATE_ATTEMPT_SUCCEEDED", attemptId });
      expect(await db.webhookEvent.count({ where: { subjectId: paymentId, type: "payment.success" } })).toBe(1);
      return;
    }
    // Paid by another attempt, EXPIRED or CANCELLED: the payment stays as it was and the late money goes back.
    expect(after.status).toBe(before.status);
    expect(after.paidAt).toBe(before.paidAt);
    expect(autoRefunded).toHaveLength(1);
    const refunds = (await request(env.server.url, `/api/payments/${paymentId}/refunds`, { headers: headers() })).json.data.items;
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: "250.00", reason: "AUTO_REFUND_LATE_ATTEMPT", automatic: true, merchantRefundId: null });
    expect(await db.paymentEvent.count({ where: { paymentId, reason: "AUTO_REFUND_LATE_ATTEMPT", attemptId, refundId: refunds[0].refundId } })).toBe(1);
    await waitFor(
      "the automatic refund processed",
      async () => (await request(env.server.url, `/api/refunds/${refunds[0].refundId}`, { headers: headers() })).json.data.status === "PROCESSED",
    );
    // An automatic refund leaves the merchant's refundable amount alone.
    if (state === "paid by another attempt") expect((await post(`/api/payments/${paymentId}/refunds`, {})).json.data.amount).toBe("250.00");
    // The same late result again is not a second payment.
    const again = await simulate(paymentId, { outcome: "SUCCESS", attemptId });
    expect(again.status).toBe(409);
    expect((await expectAccounted(paymentId)).autoRefunded).toHaveLength(1);
  });

  it("lets a late success pay while another attempt is pending, and refunds that one if it succeeds too", async () => {
    const paymentId = await newPayment();
    const first = await pendingAttempt(paymentId);
    await simulate(paymentId, { outcome: "ABANDONED", attemptId: first });
    const second = await pendingAttempt(paymentId, "netbanking");
    const paid = await simulate(paymentId, { outcome: "SUCCESS", attemptId: first });
    expect(paid.json.data.payment.status).toBe("SUCCESS");
    const byId = Object.fromEntries(paid.json.data.payment.attempts.map((a: { attemptId: string; status: string }) => [a.attemptId, a.status]));
    expect(byId).toEqual({ [first]: "SUCCESS", [second]: "ABANDONED" });
    expect((await simulate(paymentId, { outcome: "SUCCESS", attemptId: second })).status).toBe(200);
    const { autoRefunded } = await expectAccounted(paymentId);
    expect(autoRefunded.map((r) => r.attemptId)).toEqual([second]);
  });

  it("leaves a payment PENDING, with no payment.failed, on a late failure of an abandoned attempt while another is pending", async () => {
    const paymentId = await newPayment();
    const first = await pendingAttempt(paymentId);
    expect((await simulate(paymentId, { outcome: "ABANDONED", attemptId: first })).status).toBe(200);
    const second = await pendingAttempt(paymentId, "netbanking");
    const before = await status(paymentId);
    expect(before.status).toBe("PENDING");
    const failedEvents = () => db.webhookEvent.count({ where: { subjectId: paymentId, type: "payment.failed" } });
    // The abandon itself announced one failure.
    expect(await failedEvents()).toBe(1);
    const timeline = await db.paymentEvent.count({ where: { paymentId } });

    const late = await simulate(paymentId, { outcome: "FAILED", attemptId: first });
    expect(late.status).toBe(200);
    expect(late.json.data.payment.status).toBe("PENDING");
    const after = await status(paymentId);
    expect(after.status).toBe("PENDING");
    expect(after.attempts).toEqual(before.attempts);
    expect(await failedEvents()).toBe(1);
    expect(await db.paymentEvent.count({ where: { paymentId } })).toBe(timeline);

    // The pending attempt still decides the payment.
    const paid = await simulate(paymentId, { outcome: "SUCCESS", attemptId: second });
    expect(paid.json.data.payment.status).toBe("SUCCESS");
    expect(await db.webhookEvent.count({ where: { subjectId: paymentId, type: "payment.success" } })).toBe(1);
    expect(await failedEvents()).toBe(1);
    expect((await expectAccounted(paymentId)).autoRefunded).toHaveLength(0);
  });

  it("never charges twice when a late success races a new attempt's success", async () => {
    for (let round = 0; round < 6; round++) {
      const paymentId = await newPayment();
      const first = await pendingAttempt(paymentId);
      await simulate(paymentId, { outcome: "ABANDONED", attemptId: first });
      const second = await pendingAttempt(paymentId, "upi");
      const answers = await Promise.all([
        simulate(paymentId, { outcome: "SUCCESS", attemptId: first }),
        simulate(paymentId, { outcome: "SUCCESS", attemptId: second }),
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const { payment, autoRefunded } = await expectAccounted(paymentId);
      expect(payment.status).toBe("SUCCESS");
      expect(payment.attempts.filter((a) => a.status === "SUCCESS")).toHaveLength(2);
      expect(autoRefunded).toHaveLength(1);
      expect(await db.webhookEvent.count({ where: { subjectId: paymentId, type: "payment.success" } })).toBe(1);
    }
  });

  it("simulates new attempts per method and outcome", async () => {
    const failed = await newPayment();
    const f = await simulate(failed, { outcome: "FAILED", method: "card" });
    expect(f.status).toBe(200);
    expect(f.json.data.payment).toMatchObject({ status: "FAILED", method: "CARD" });
    expect(f.json.data.payment.attempts[0]).toMatchObject({ attemptId: f.json.data.attemptId, method: "CARD", status: "FAILED", errorCode: "CARD_DECLINED" });
    const ok = await simulate(failed, { outcome: "SUCCESS", method: "netbanking" });
    expect(ok.json.data.payment).toMatchObject({ status: "SUCCESS", method: "NETBANKING" });
    expect(ok.json.data.payment.isFinal).toBe(true);
    const pending = await newPayment();
    const attemptId = await pendingAttempt(pending);
    const done = await simulate(pending, { outcome: "FAILED", attemptId });
    expect(done.json.data.payment.status).toBe("FAILED");
    expect(done.json.data.payment.attempts[0]).toMatchObject({ status: "FAILED", errorCode: "PAYMENT_DECLINED" });
  });

  it("caps a payment at 25 attempts", async () => {
    const paymentId = await newPayment();
    for (let i = 0; i < 25; i++) expect((await simulate(paymentId, { outcome: "FAILED" })).status).toBe(200);
    const over = await simulate(paymentId, { outcome: "SUCCESS" });
    expect(over.status).toBe(409);
    expect(over.json.error).toMatchObject({ code: "PAYMENT_NOT_PAYABLE", message: expect.stringContaining("25 attempts") });
  });

  it("refuses what the state machine does not allow, with its code", async () => {
    const paid = await newPayment();
    await simulate(paid, { outcome: "SUCCESS" });
    const expectError = async (r: Promise<{ status: number; json: { error: { code: string } } }>, code: number, errorCode: string) => {
      const a = await r;
      expect(`${a.status} ${a.json.error?.code}`).toBe(`${code} ${errorCode}`);
    };
    await expectError(simulate(paid, { outcome: "SUCCESS" }), 409, "PAYMENT_NOT_PAYABLE");
    const open = await newPayment();
    const attemptId = await pendingAttempt(open);
    await expectError(simulate(open, { outcome: "PENDING" }), 409, "PAYMENT_NOT_PAYABLE");
    await expectError(simulate(open, { outcome: "ABANDONED" }), 400, "VALIDATION_ERROR");
    await expectError(simulate(open, { outcome: "PENDING", attemptId }), 400, "VALIDATION_ERROR");
    await expectError(simulate(open, { outcome: "MAYBE" }), 400, "VALIDATION_ERROR");
    await expectError(simulate(open, { outcome: "SUCCESS", method: "cash" }), 400, "VALIDATION_ERROR");
    await expectError(simulate(open, { outcome: "SUCCESS", attemptId: "att_unknown" }), 404, "ATTEMPT_NOT_FOUND");
    await expectError(simulate("pay_1700000000000_unknown", { outcome: "SUCCESS" }), 404, "PAYMENT_NOT_FOUND");
    await simulate(open, { outcome: "FAILED", attemptId });
    await expectError(simulate(open, { outcome: "SUCCESS", attemptId }), 409, "CONFLICT");
    await expectError(simulate(open, { outcome: "ABANDONED", attemptId }), 409, "CONFLICT");
    const expired = await newPayment();
    await db.payment.update({ where: { id: expired }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectError(simulate(expired, { outcome: "SUCCESS" }), 409, "PAYMENT_NOT_PAYABLE");
  });

  it("answers a live key 404 NOT_FOUND", async () => {
    // What `merchant go-live` and `key create --mode live` do, without two CLI start-ups.
    const { approveGoLive } = await import("@/server/services/merchants/merchants");
    const { createApiKey } = await import("@/server/services/auth/api-keys");
    await approveGoLive(db, m.merchantId);
    const live = await createApiKey(db, m.merchantId, "live", "Live");
    const paymentId = await newPayment();
    const r = await request(env.server.url, `/api/sandbox/payments/${paymentId}/simulate`, {
      method: "POST",
      body: { outcome: "SUCCESS" },
      headers: { "x-merchant-id": m.merchantId, "x-api-key": live.publicKey, "x-secret-key": live.secretKey },
    });
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("NOT_FOUND");
    expect((await status(paymentId)).status).toBe("CREATED");
  });
});
