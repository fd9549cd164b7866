import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_TARGETS } from "../helpers/db-targets";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-paystate-"));
process.env.DATA_DIR = dataDir;
process.env.LOG_LEVEL = "silent";
delete process.env.BASE_URL;

const { migrateTestDatabase } = await import("../helpers/test-db");
const { createPrismaClient } = await import("@/server/db/client");
const { createBulkInserter } = await import("@/server/db/bulk-insert");
const { startPostgres } = await import("../helpers/postgres");
const { createMerchant } = await import("@/server/services/merchants/merchants");
const { createPayment } = await import("@/server/services/payments/payments");
const { startAttempt, completeAttempt, expirePayment, cancelPayment, timeoutAttempt, redirectTarget } = await import("@/server/services/payments/lifecycle");
const { sandboxProcessor } = await import("@/server/providers/payments/sandbox");
const { redirectSignature } = await import("@/server/services/payments/signature");
const { TRANSITIONS } = await import("@/server/services/payments/state-machine");
const { AppError } = await import("@/server/errors");

type Db = ReturnType<typeof createPrismaClient>;

describe.each(DB_TARGETS)("payment state machine on %s", (target) => {
  let db: Db;
  let bulk: ReturnType<typeof createBulkInserter>;
  let merchantId: string;
  let signingSecret: string;
  let stopPg: (() => Promise<void>) | undefined;
  let n = 0;

  async function newPayment(opts: { minutes?: number } = {}) {
    const { payment } = await createPayment(
      db,
      bulk,
      merchantId,
      "sandbox",
      { orderId: `ORDER_${target}_${n++}`, amount: 49_900, redirectUrl: "https://shop.example/return", expiresInMinutes: opts.minutes ?? 30 },
      30,
    );
    return payment;
  }
  const upi = (vpa = "pending@parakh") => ({ method: "UPI" as const, flow: "collect" as const, vpa });
  const events = (paymentId: string) => db.webhookEvent.findMany({ where: { subjectId: paymentId }, orderBy: { createdAt: "asc" } });

  beforeAll(async () => {
    let url = `file:${path.join(dataDir, `${target}.db`)}`;
    if (target === "postgresql") {
      const pg = await startPostgres({ migrated: true });
      url = pg.url;
      stopPg = pg.stop;
    }
    await migrateTestDatabase(url);
    db = createPrismaClient(url);
    bulk = createBulkInserter(db, url);
    const m = await createMerchant(db, { name: "Race Shop", email: `race-${target}@example.com`, password: "a-long-password" });
    merchantId = m.merchantId;
    signingSecret = m.sandbox.signingSecret;
  });
  afterAll(async () => {
    await db?.$disconnect();
    await stopPg?.();
  });

  it("declares SUCCESS, EXPIRED and CANCELLED final; SUCCESS is reached from PENDING or, by a late attempt, FAILED", () => {
    expect(TRANSITIONS.SUCCESS).toEqual([]);
    expect(TRANSITIONS.EXPIRED).toEqual([]);
    expect(TRANSITIONS.CANCELLED).toEqual([]);
    expect(TRANSITIONS.CREATED).not.toContain("SUCCESS");
    expect(
      Object.entries(TRANSITIONS)
        .filter(([, to]) => to.includes("SUCCESS"))
        .map(([from]) => from),
    ).toEqual(["PENDING", "FAILED"]);
  });

  it("starts one attempt when two tabs pay at once", async () => {
    const p = await newPayment();
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => startAttempt(db, sandboxProcessor, p.id, upi())));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await db.paymentAttempt.count({ where: { paymentId: p.id } })).toBe(1);
    expect((await db.payment.findUniqueOrThrow({ where: { id: p.id } })).status).toBe("PENDING");
  });

  it("claims the attempt before calling the processor: concurrent starts reach it once", async () => {
    const p = await newPayment();
    let calls = 0;
    const slow = {
      ...sandboxProcessor,
      configured: true,
      async startAttempt() {
        calls++;
        await new Promise((r) => setTimeout(r, 50));
        return { plan: { kind: "await-processor" as const } };
      },
    };
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => startAttempt(db, slow, p.id, upi())));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(calls).toBe(1);
  });

  it("fails the claimed attempt when the processor refuses, so the customer can pay again", async () => {
    const p = await newPayment();
    const refusing = {
      ...sandboxProcessor,
      configured: true,
      async startAttempt(): Promise<never> {
        throw new AppError("UPSTREAM_ERROR", "The bank is down.");
      },
    };
    await expect(startAttempt(db, refusing, p.id, upi())).rejects.toMatchObject({ code: "UPSTREAM_ERROR" });
    const attempt = await db.paymentAttempt.findFirstOrThrow({ where: { paymentId: p.id } });
    expect(attempt).toMatchObject({ status: "FAILED", errorCode: "UPSTREAM_ERROR" });
    expect((await db.payment.findUniqueOrThrow({ where: { id: p.id } })).status).toBe("FAILED");
    await startAttempt(db, sandboxProcessor, p.id, upi("pending@parakh"));
    expect((await db.payment.findUniqueOrThrow({ where: { id: p.id } })).status).toBe("PENDING");
  });

  it("refuses before any attempt when no processor is configured or the card number is not one", async () => {
    const p = await newPayment();
    const unconfigured = {
      ...sandboxProcessor,
      configured: false,
      startAttempt: async (): Promise<never> => {
        throw new Error("must not be called");
      },
    };
    await expect(startAttempt(db, unconfigured, p.id, upi())).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    await expect(
      startAttempt(db, sandboxProcessor, p.id, { method: "CARD", number: "4111 1111 1111 1112", expiryMonth: 12, expiryYear: 2035, cvv: "123" }),
    ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    expect(await db.paymentAttempt.count({ where: { paymentId: p.id } })).toBe(0);
    expect((await db.payment.findUniqueOrThrow({ where: { id: p.id } })).status).toBe("CREATED");
  });

  it("applies a result once when the processor, a retry and the timeout race", async () => {
    const p = await newPayment();
    const { attemptId } = await startAttempt(db, sandboxProcessor, p.id, upi());
    await db.paymentAttempt.update({ where: { id: attemptId }, data: { timeoutAt: new Date(Date.now() - 1) } });
    const outcomes = await Promise.all([
      completeAttempt(db, attemptId, { outcome: "SUCCESS" }),
      completeAttempt(db, attemptId, { outcome: "SUCCESS" }),
      completeAttempt(db, attemptId, { outcome: "FAILED", errorCode: "X", errorMessage: "x" }),
      timeoutAttempt(db, attemptId),
    ]);
    // One result applies; only a timeout may be followed by the late success it allows.
    const types = (await events(p.id)).map((e) => e.type);
    expect([["payment.success"], ["payment.failed"], ["payment.failed", "payment.success"]]).toContainEqual(types);
    expect(outcomes.filter(Boolean)).toHaveLength(types.length);
    expect(await db.refund.count({ where: { paymentId: p.id } })).toBe(0);
  });

  it("charges at most once: retries after a failure, then success; later results change nothing", async () => {
    const p = await newPayment();
    const a1 = await startAttempt(db, sandboxProcessor, p.id, { method: "CARD", number: "4000 0000 0000 0002", expiryMonth: 12, expiryYear: 2035, cvv: "123" });
    expect((await db.payment.findUniqueOrThrow({ where: { id: p.id } })).status).toBe("FAILED");
    const attempt1 = await db.paymentAttempt.findUniqueOrThrow({ where: { id: a1.attemptId } });
    expect(attempt1).toMatchObject({ status: "FAILED", errorCode: "CARD_DECLINED", cardNetwork: "VISA", cardLast4: "0002" });
    expect(JSON.stringify(attempt1)).not.toContain("4000000000000002");
    await startAttempt(db, sandboxProcessor, p.id, { method: "CARD", number: "4111111111111111", expiryMonth: 12, expiryYear: 2035, cvv: "123" });
    const paid = await db.payment.findUniqueOrThrow({ where: { id: p.id } });
    expect(paid).toMatchObject({ status: "SUCCESS", method: "CARD" });
    expect(paid.paidOrderKey).toBe(paid.openOrderKey);
    expect(paid.paidAt).not.toBeNull();
    await expect(startAttempt(db, sandboxProcessor, p.id, upi())).rejects.toMatchObject({ code: "PAYMENT_NOT_PAYABLE" });
    await expect(cancelPayment(db, p.id)).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await expirePayment(db, p.id)).toBe(false);
    const timeline = await db.paymentEvent.findMany({ where: { paymentId: p.id }, orderBy: { createdAt: "asc" } });
    expect(timeline.map((e) => e.toStatus)).toEqual(["CREATED", "PENDING", "FAILED", "PENDING", "SUCCESS"]);
    expect((await events(p.id)).map((e) => e.type)).toEqual(["payment.failed", "payment.success"]);
  });

  it("expires open payments at expiresAt, and never one that is not due", async () => {
    const p = await newPayment();
    expect(await expirePayment(db, p.id)).toBe(false);
    await db.payment.update({ where: { id: p.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const raced = await Promise.all([expirePayment(db, p.id), expirePayment(db, p.id), startAttempt(db, sandboxProcessor, p.id, upi()).catch(() => null)]);
    expect(raced.filter((r) => r === true)).toHaveLength(1);
    expect((await db.payment.findUniqueOrThrow({ where: { id: p.id } })).status).toBe("EXPIRED");
    expect((await events(p.id)).map((e) => e.type)).toEqual(["payment.expired"]);
    expect(await db.job.count({ where: { type: "payment.expire", payload: { contains: p.id } } })).toBe(1);
  });

  it("lets an attempt in flight at expiry finish, and expires a late failure at once", async () => {
    const ok = await newPayment();
    const a = await startAttempt(db, sandboxProcessor, ok.id, upi());
    await db.payment.update({ where: { id: ok.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await expirePayment(db, ok.id)).toBe(false);
    expect(await completeAttempt(db, a.attemptId, { outcome: "SUCCESS" })).toBe("SUCCESS");
    expect((await db.payment.findUniqueOrThrow({ where: { id: ok.id } })).status).toBe("SUCCESS");

    const late = await newPayment();
    const b = await startAttempt(db, sandboxProcessor, late.id, upi());
    await db.payment.update({ where: { id: late.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await completeAttempt(db, b.attemptId, { outcome: "FAILED", errorCode: "PAYMENT_DECLINED", errorMessage: "declined" });
    expect((await db.payment.findUniqueOrThrow({ where: { id: late.id } })).status).toBe("EXPIRED");
  });

  it("times out an attempt with no result so the order is never blocked", async () => {
    const p = await newPayment();
    const { attemptId } = await startAttempt(db, sandboxProcessor, p.id, upi("pending@parakh"));
    expect(await timeoutAttempt(db, attemptId)).toBe(false);
    await db.paymentAttempt.update({ where: { id: attemptId }, data: { timeoutAt: new Date(Date.now() - 1) } });
    expect(await timeoutAttempt(db, attemptId)).toBe(true);
    expect(await db.paymentAttempt.findUniqueOrThrow({ where: { id: attemptId } })).toMatchObject({ status: "FAILED", errorCode: "ATTEMPT_TIMEOUT" });
    expect((await db.payment.findUniqueOrThrow({ where: { id: p.id } })).status).toBe("FAILED");
    expect(await db.job.count({ where: { type: "payment.attempt_timeout" } })).toBeGreaterThan(0);
  });

  it("cancels CREATED and FAILED payments only, and signs the redirect with the signing secret", async () => {
    const p = await newPayment();
    await cancelPayment(db, p.id);
    await expect(cancelPayment(db, p.id)).rejects.toMatchObject({ code: "CONFLICT" });
    const target = await redirectTarget(db, p.id);
    const url = new URL(target!);
    expect(url.origin + url.pathname).toBe("https://shop.example/return");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      paymentId: p.id,
      orderId: p.orderId,
      status: "CANCELLED",
      signature: redirectSignature(signingSecret, p.orderId, p.id, "CANCELLED"),
    });
    const open = await newPayment();
    expect(await redirectTarget(db, open.id)).toBeNull();
  });
});
