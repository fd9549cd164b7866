import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAtomicWriter, type AtomicWriter } from "@/server/db/atomic-write";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request } from "../helpers/http";
import { cli, createMerchantViaCli, startServer, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";

describe.each(DB_TARGETS)("refunds REST API on %s", (target) => {
  let env: Started;
  let m: MerchantFixture;
  let other: MerchantFixture;
  let db: Db;
  let writer: AtomicWriter;
  let seq = 0;
  const headers = (x: MerchantFixture = m) => ({ "x-merchant-id": x.merchantId, "x-api-key": x.sandbox.publicKey, "x-secret-key": x.sandbox.secretKey });
  const post = (path: string, body: unknown, extra: Record<string, string> = {}, who: MerchantFixture = m) =>
    request(env.server.url, path, { method: "POST", body, headers: { ...headers(who), ...extra } });
  const get = (path: string, who: MerchantFixture = m) => request(env.server.url, path, { headers: headers(who) });
  const refund = (paymentId: string, body: unknown, extra: Record<string, string> = {}) => post(`/api/payments/${paymentId}/refunds`, body, extra);
  const status = async (paymentId: string) => (await get(`/api/payments/${paymentId}/status`)).json.data;

  async function paidPayment(amount: number | string = 500, who: MerchantFixture = m): Promise<string> {
    const created = await post("/api/checkout", { orderId: `ORDER_rf_${target}_${Date.now()}_${seq++}`, amount }, {}, who);
    expect(created.status).toBe(200);
    const paymentId = created.json.data.paymentId as string;
    const paid = await post(`/api/sandbox/payments/${paymentId}/simulate`, { outcome: "SUCCESS" }, {}, who);
    expect(paid.status).toBe(200);
    expect(paid.json.data.payment.status).toBe("SUCCESS");
    return paymentId;
  }
  const processed = (refundId: string, want: "PROCESSED" | "FAILED" = "PROCESSED") =>
    waitFor(`refund ${refundId} ${want}`, async () => {
      const r = await get(`/api/refunds/${refundId}`);
      return r.json.data.status === want ? r.json.data : null;
    });

  beforeAll(async () => {
    env = await startFor(target);
    m = await createMerchantViaCli(env.server.env);
    other = await createMerchantViaCli(env.server.env, "Other Store");
    for (const x of [m, other]) expect((await cli(env.server.env, ["whitelist", "add", "--merchant", x.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    db = createPrismaClient(env.server.databaseUrl);
    writer = createAtomicWriter(db, env.server.databaseUrl);
  });
  afterAll(async () => {
    writer?.close();
    await db?.$disconnect();
    await env?.server.stop(); // the server restarted by the last test, when it ran
    await env?.stop();
  });

  it("takes only an absent amount as the rest: null and non-numbers are INVALID_AMOUNT naming the refund minimum", async () => {
    const paymentId = await paidPayment(500);
    for (const amount of [null, true, "abc", 0, [5], "x".repeat(40)]) {
      const r = await refund(paymentId, { amount, reason: "Returned" });
      expect(r.status, JSON.stringify(amount)).toBe(400);
      expect(r.json.error.code).toBe("INVALID_AMOUNT");
      expect(r.json.error.message).toMatch(/at least 0\.01\b/);
      expect(r.json.error.message).not.toMatch(/1\.00/);
      expect(r.json.error.details).toEqual([{ field: "amount", message: expect.stringMatching(/^amount must be a number of at least 0\.01 /) }]);
    }
    expect(await db.refund.count({ where: { paymentId } })).toBe(0);
    expect(await status(paymentId)).toMatchObject({ amountRefunded: "0.00", refundStatus: "NONE" });
  });

  it("refunds in part several times, then the rest by default, and reports it on the payment", async () => {
    const paymentId = await paidPayment("500.00");
    const first = await refund(paymentId, { amount: "120.50", reason: "Returned one item", merchantRefundId: `R_${seq++}` });
    expect(first.status).toBe(200);
    expect(Object.keys(first.json).sort()).toEqual(["data", "success"]);
    const r1 = first.json.data;
    expect(r1).toMatchObject({
      paymentId,
      amount: "120.50",
      currency: "INR",
      status: "PENDING",
      reason: "Returned one item",
      processedAt: null,
      failureReason: null,
    });
    expect(r1.refundId).toMatch(/^rfnd_[A-Za-z0-9]{16}$/);
    expect(r1.merchantOrderId).toMatch(/^ORDER_rf_/);
    expect(Object.keys(r1)).toEqual(
      expect.arrayContaining([
        "refundId",
        "paymentId",
        "merchantOrderId",
        "merchantRefundId",
        "amount",
        "currency",
        "status",
        "reason",
        "createdAt",
        "processedAt",
        "failureReason",
      ]),
    );
    expect(await status(paymentId)).toMatchObject({ status: "SUCCESS", amountRefunded: "120.50", refundStatus: "PARTIAL" });

    const second = await refund(paymentId, { amount: 79.5 });
    expect(second.json.data.amount).toBe("79.50");
    const rest = await refund(paymentId, {});
    expect(rest.status).toBe(200);
    expect(rest.json.data.amount).toBe("300.00");
    expect(await status(paymentId)).toMatchObject({ amountRefunded: "500.00", refundStatus: "FULL" });

    for (const body of [{}, { amount: "0.01" }]) {
      const none = await refund(paymentId, body);
      expect(none.status).toBe(400);
      expect(none.json).toMatchObject({ success: false, error: { code: "REFUND_EXCEEDS_AMOUNT" } });
    }
    const done = await processed(r1.refundId);
    expect(done.processedAt).not.toBeNull();
    await processed(rest.json.data.refundId);

    const list = await get(`/api/payments/${paymentId}/refunds`);
    expect(list.status).toBe(200);
    expect(list.json.data.items.map((r: { refundId: string }) => r.refundId)).toEqual([rest.json.data.refundId, second.json.data.refundId, r1.refundId]);
    // Each PROCESSED refund is announced once with the refund and the payment's status object.
    const events = await waitFor("refund.processed events", async () => {
      const rows = await db.webhookEvent.findMany({ where: { type: "refund.processed", subjectId: { in: [r1.refundId, rest.json.data.refundId] } } });
      return rows.length === 2 ? rows : null;
    });
    const payload = JSON.parse(events.find((e) => e.subjectId === r1.refundId)!.body);
    expect(payload.data.refund).toMatchObject({ refundId: r1.refundId, status: "PROCESSED", amount: "120.50" });
    expect(payload.data.payment).toMatchObject({ paymentId, status: "SUCCESS" });
    // Exactly the objects the API's own reads give for that refund and, in the last refund's event (sent once
    // every refund existed: the first may be processed before the others are made), the payment.
    const listed = (await get(`/api/payments/${paymentId}/refunds`)).json.data.items.find((r: { refundId: string }) => r.refundId === r1.refundId);
    expect(payload.data.refund).toEqual(listed);
    const last = JSON.parse(events.find((e) => e.subjectId === rest.json.data.refundId)!.body);
    expect(last.data.payment).toEqual(await status(paymentId));
    // The refund's timeline: created, then processed, on the payment's timeline.
    const timeline = await db.paymentEvent.findMany({ where: { refundId: r1.refundId }, orderBy: { createdAt: "asc" } });
    expect(timeline.map((e) => [e.reason, e.fromStatus, e.toStatus])).toEqual([
      ["REFUND_CREATED", "SUCCESS", "SUCCESS"],
      ["REFUND_PROCESSED", "SUCCESS", "SUCCESS"],
    ]);
  });

  it("fails a sandbox refund whose reason says fail_refund, and frees its amount", async () => {
    const paymentId = await paidPayment(300);
    const failing = await refund(paymentId, { reason: "test fail_refund please" });
    expect(failing.json.data.amount).toBe("300.00");
    const failed = await processed(failing.json.data.refundId, "FAILED");
    expect(failed.failureReason).toMatch(/fail_refund/);
    expect(await status(paymentId)).toMatchObject({ amountRefunded: "0.00", refundStatus: "NONE" });
    const event = await waitFor("refund.failed event", () =>
      db.webhookEvent.findFirst({ where: { type: "refund.failed", subjectId: failing.json.data.refundId } }),
    );
    const body = JSON.parse(event.body);
    expect(body).toMatchObject({ type: "refund.failed", mode: "sandbox", data: { refund: { refundId: failing.json.data.refundId, status: "FAILED" } } });
    expect(body.data.payment).toMatchObject({ paymentId, amountRefunded: "0.00", refundStatus: "NONE" });
    expect((await db.paymentEvent.findMany({ where: { refundId: failing.json.data.refundId } })).map((e) => e.reason).sort()).toEqual([
      "REFUND_CREATED",
      "REFUND_FAILED",
    ]);
    const again = await refund(paymentId, { amount: 300 });
    expect(again.status).toBe(200);
    await processed(again.json.data.refundId);
    expect(await status(paymentId)).toMatchObject({ amountRefunded: "300.00", refundStatus: "FULL" });
  });

  it.each([
    [{ amount: "abc" }, 400, "INVALID_AMOUNT"],
    [{ amount: 0 }, 400, "INVALID_AMOUNT"],
    [{ amount: -5 }, 400, "INVALID_AMOUNT"],
    [{ amount: "1.001" }, 400, "INVALID_AMOUNT"],
    [{ amount: true }, 400, "INVALID_AMOUNT"],
    [{ amount: null }, 400, "INVALID_AMOUNT"],
    [{ amount: {} }, 400, "INVALID_AMOUNT"],
    [{ amount: "500.01" }, 400, "REFUND_EXCEEDS_AMOUNT"],
    [{ amount: "100000.01" }, 400, "REFUND_EXCEEDS_AMOUNT"],
    [{ amount: 1e15 }, 400, "INVALID_AMOUNT"],
    [{ reason: "x".repeat(256) }, 400, "VALIDATION_ERROR"],
    [{ merchantRefundId: "bad id" }, 400, "VALIDATION_ERROR"],
    [{ merchantRefundId: "R".repeat(65) }, 400, "VALIDATION_ERROR"],
  ])("refuses %j with %s %s", async (body, code, errorCode) => {
    const paymentId = await paidPayment(500);
    const r = await refund(paymentId, body);
    expect(r.json.error, JSON.stringify(r.json)).toBeDefined();
    expect(r.status).toBe(code);
    expect(r.json).toMatchObject({ success: false, error: { code: errorCode } });
    expect(r.json.requestId).toBe(r.headers["x-request-id"]);
    expect(await db.refund.count({ where: { paymentId } })).toBe(0);
  });

  it("refunds only a SUCCESS payment of this merchant and mode, within 180 days", async () => {
    const open = await post("/api/checkout", { orderId: `ORDER_rf_open_${target}_${seq++}`, amount: 100 });
    const notPaid = await refund(open.json.data.paymentId, {});
    expect(notPaid.status).toBe(409);
    expect(notPaid.json.error.code).toBe("PAYMENT_NOT_REFUNDABLE");

    const unknown = await refund("pay_1700000000000_nope", {});
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe("PAYMENT_NOT_FOUND");
    const theirs = await paidPayment(100, other);
    expect((await refund(theirs, {})).json.error.code).toBe("PAYMENT_NOT_FOUND");
    expect((await get(`/api/payments/${theirs}/refunds`)).json.error.code).toBe("PAYMENT_NOT_FOUND");

    const old = await paidPayment(100);
    await db.payment.update({ where: { id: old }, data: { paidAt: new Date(Date.now() - 181 * 86_400_000) } });
    const tooLate = await refund(old, {});
    expect(tooLate.status).toBe(409);
    expect(tooLate.json.error.code).toBe("PAYMENT_NOT_REFUNDABLE");

    const mine = await refund(await paidPayment(100), {});
    const notYours = await get(`/api/refunds/${mine.json.data.refundId}`, other);
    expect(notYours.status).toBe(404);
    expect(notYours.json.error.code).toBe("REFUND_NOT_FOUND");
    expect((await get("/api/refunds/rfnd_unknown")).json.error.code).toBe("REFUND_NOT_FOUND");
  });

  it("lets exactly one of 20 parallel full refunds through", async () => {
    const paymentId = await paidPayment(750);
    const answers = await Promise.all(Array.from({ length: 20 }, () => refund(paymentId, {})));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.map((a) => `${a.status} ${a.json.error.code}`)).toEqual(Array(19).fill("400 REFUND_EXCEEDS_AMOUNT"));
    expect(await db.refund.count({ where: { paymentId } })).toBe(1);
    expect((await db.payment.findUniqueOrThrow({ where: { id: paymentId } })).refundedPaise).toBe(75_000);
  });

  it("never lets racing partial refunds add up to more than the payment", async () => {
    const paymentId = await paidPayment(100);
    const answers = await Promise.all(Array.from({ length: 15 }, () => refund(paymentId, { amount: 30 })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status !== 200).every((a) => a.json.error.code === "REFUND_EXCEEDS_AMOUNT")).toBe(true);
    expect(await status(paymentId)).toMatchObject({ amountRefunded: "90.00", refundStatus: "PARTIAL" });
  });

  it("returns the same refund for a retried merchantRefundId, also when the retries race, and refuses it for another request", async () => {
    const paymentId = await paidPayment(400);
    const id = `RFND_${target}_${seq++}`;
    const racing = await Promise.all(Array.from({ length: 8 }, () => refund(paymentId, { amount: 100, merchantRefundId: id, reason: "Damaged" })));
    expect(racing.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(racing.map((r) => r.json.data.refundId)).size).toBe(1);
    expect(racing[0]!.json.data.merchantRefundId).toBe(id);
    expect(await db.refund.count({ where: { paymentId } })).toBe(1);

    for (const body of [
      { amount: 150, merchantRefundId: id, reason: "Damaged" },
      { amount: 100, merchantRefundId: id },
      { merchantRefundId: id, reason: "Damaged" },
    ]) {
      const r = await refund(paymentId, body);
      expect(r.status).toBe(409);
      expect(r.json.error.code).toBe("DUPLICATE_REFUND_ID");
    }
    const elsewhere = await refund(await paidPayment(400), { amount: 100, merchantRefundId: id, reason: "Damaged" });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.json.error.code).toBe("DUPLICATE_REFUND_ID");
    // Another merchant may use the same id.
    expect((await post(`/api/payments/${await paidPayment(400, other)}/refunds`, { merchantRefundId: id }, {}, other)).status).toBe(200);
    expect(await status(paymentId)).toMatchObject({ amountRefunded: "100.00" });
  });

  it("returns one refund to racing retries of a merchantRefundId that take the whole amount", async () => {
    const paymentId = await paidPayment(500);
    const id = `FULL_${target}_${seq++}`;
    const racing = await Promise.all(Array.from({ length: 8 }, () => refund(paymentId, { merchantRefundId: id })));
    expect(racing.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(racing.map((r) => r.json.data.refundId)).size).toBe(1);
    expect(racing[0]!.json.data.amount).toBe("500.00");
  });

  it("caps a payment at 100 refunds, FAILED ones included", async () => {
    const paymentId = await paidPayment(5);
    for (let i = 0; i < 10; i++) {
      const wave = await Promise.all(Array.from({ length: 10 }, () => refund(paymentId, { amount: "0.01", reason: "fail_refund" })));
      expect(wave.map((r) => r.status)).toEqual(Array(10).fill(200));
    }
    const over = await refund(paymentId, { amount: "0.01" });
    expect(over.status).toBe(409);
    expect(over.json.error).toMatchObject({ code: "PAYMENT_NOT_REFUNDABLE", message: expect.stringContaining("100 refunds") });
    expect((await get(`/api/payments/${paymentId}/refunds`)).json.data.items).toHaveLength(100);
  });

  it("replays a refund by Idempotency-Key and refuses the key with another body", async () => {
    const paymentId = await paidPayment(200);
    const key = `idem-refund-${target}-${seq++}`;
    const a = await refund(paymentId, { amount: 50 }, { "Idempotency-Key": key });
    const b = await refund(paymentId, { amount: 50 }, { "Idempotency-Key": key });
    expect(b.status).toBe(200);
    expect(b.headers["idempotent-replayed"]).toBe("true");
    expect(b.json.data.refundId).toBe(a.json.data.refundId);
    const c = await refund(paymentId, { amount: 60 }, { "Idempotency-Key": key });
    expect(c.status).toBe(422);
    expect(c.json.error.code).toBe("IDEMPOTENCY_KEY_MISMATCH");
    expect(await status(paymentId)).toMatchObject({ amountRefunded: "50.00" });
  });

  it("answers 503 SERVICE_UNAVAILABLE for a live refund until a processor is configured", async () => {
    // What `merchant go-live` and `key create --mode live` do, without two CLI start-ups.
    process.env.DATA_DIR = env.server.dataDir;
    const { approveGoLive } = await import("@/server/services/merchants/merchants");
    const { createApiKey } = await import("@/server/services/auth/api-keys");
    await approveGoLive(db, other.merchantId);
    const keys = await createApiKey(db, other.merchantId, "live", "Live");
    const paymentId = await paidPayment(100, other);
    await db.payment.update({ where: { id: paymentId }, data: { mode: "live" } });
    const r = await request(env.server.url, `/api/payments/${paymentId}/refunds`, {
      method: "POST",
      body: {},
      headers: { "x-merchant-id": other.merchantId, "x-api-key": keys.publicKey, "x-secret-key": keys.secretKey },
    });
    expect(r.status).toBe(503);
    expect(r.json.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(await db.refund.count({ where: { paymentId } })).toBe(0);
  });

  it("processes a refund created while no server runs once one starts (durable queue)", async () => {
    const paymentId = await paidPayment(250);
    await env.server.stop();
    // Counted once the server is gone: it finishes the refunds in hand while it stops.
    const pending = await db.refund.count({ where: { status: "PENDING" } });
    // Created straight into the database with its job, as a crash right after the 200 would leave it.
    process.env.DATA_DIR = env.server.dataDir;
    const { createRefund } = await import("@/server/services/refunds/refunds");
    const { sandboxProcessor } = await import("@/server/providers/payments/sandbox");
    const r = await createRefund({ db, atomicWriter: writer }, sandboxProcessor, { merchantId: m.merchantId, mode: "sandbox" }, paymentId, { amount: 2_500 });
    expect(await db.refund.count({ where: { status: "PENDING" } })).toBe(pending + 1);
    // And one whose job went DEAD unrun (its worker was lost on the last try): the sweep gives it a new job.
    const { requeueStalledRefunds, giveUpRefund, processRefund } = await import("@/server/services/refunds/refunds");
    const stalled = await createRefund({ db, atomicWriter: writer }, sandboxProcessor, { merchantId: m.merchantId, mode: "sandbox" }, paymentId, {
      amount: 500,
    });
    await db.job.updateMany({ where: { type: "refund.process", payload: { contains: stalled.refundId } }, data: { status: "DEAD" } });
    expect(await requeueStalledRefunds(db)).toBe(0); // too young to call stalled
    await db.refund.update({ where: { id: stalled.refundId }, data: { createdAt: new Date(Date.now() - 20 * 60_000) } });
    expect(await requeueStalledRefunds(db)).toBe(1);
    expect(await requeueStalledRefunds(db)).toBe(0);

    // A merchant refund whose retries ran out fails and frees its amount; an automatic one fails too
    // (the merchant gets refund.failed and operators see it), and a refusal fails it at once.
    const given = await createRefund({ db, atomicWriter: writer }, sandboxProcessor, { merchantId: m.merchantId, mode: "sandbox" }, paymentId, { amount: 100 });
    await db.job.deleteMany({ where: { type: "refund.process", payload: { contains: given.refundId } } });
    await giveUpRefund(db, writer, given.refundId);
    expect(await db.refund.findUniqueOrThrow({ where: { id: given.refundId } })).toMatchObject({ status: "FAILED" });
    const autoRefund = (suffix: string) =>
      db.refund.create({
        data: {
          id: `rfnd_auto${target}${suffix}${seq++}`,
          paymentId,
          merchantId: m.merchantId,
          mode: "sandbox",
          amountPaise: 25_000,
          status: "PENDING",
          reason: "AUTO_REFUND_LATE_ATTEMPT",
          attemptId: `att_t${target}${seq++}`,
        },
      });
    const unreachable = await autoRefund("u");
    await giveUpRefund(db, writer, unreachable.id);
    expect(await db.refund.findUniqueOrThrow({ where: { id: unreachable.id } })).toMatchObject({
      status: "FAILED",
      failureReason: expect.stringContaining("could not be reached"),
    });
    const refused = await autoRefund("r");
    const refusing = { ...sandboxProcessor, refund: async () => ({ outcome: "FAILED" as const, failureReason: "bank said no" }) };
    await processRefund(writer, { sandbox: refusing, live: refusing }, refused.id);
    expect(await db.refund.findUniqueOrThrow({ where: { id: refused.id } })).toMatchObject({ status: "FAILED", failureReason: "bank said no" });
    for (const id of [unreachable.id, refused.id]) expect(await db.webhookEvent.count({ where: { type: "refund.failed", subjectId: id } })).toBe(1);
    // And one the server processes once it starts.
    const auto = await autoRefund("p");
    const { refundJob } = await import("@/server/jobs/registry");
    await refundJob.enqueue(db, { refundId: auto.id });

    env.server = await startServer({ databaseUrl: env.server.databaseUrl, env: { DATA_DIR: env.server.dataDir } });
    expect((await processed(r.refundId)).amount).toBe("25.00");
    expect((await processed(stalled.refundId)).amount).toBe("5.00");
    expect((await processed(auto.id)).automatic).toBe(true);
    expect(await status(paymentId)).toMatchObject({ amountRefunded: "30.00" });
  });
});
