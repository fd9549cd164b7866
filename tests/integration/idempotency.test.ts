import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request, type HttpResult } from "../helpers/http";
import { cli, createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { startFor, type Started } from "../helpers/targets";
import { sleep, waitFor } from "../helpers/wait";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Idempotency-Key over HTTP, beyond replay and mismatch (rest-door.test.ts): what is not stored,
 * the scope per mode, the 24 h life of a record, and a second request while the first still runs.
 * On PostgreSQL, where a table lock can hold the first request mid-way for certain.
 */
describe("Idempotency-Key on PostgreSQL", () => {
  let env: Started;
  let m: MerchantFixture;
  let live: { publicKey: string; secretKey: string };
  let db: Db;
  let seq = 0;

  const pan = (key: string, body: unknown, extra: Record<string, string> = {}) =>
    request(env.server.url, "/v1/identity/pan/verify", {
      method: "POST",
      body,
      headers: { Authorization: `Bearer ${m.sandbox.secretKey}`, "Idempotency-Key": key, ...extra },
    });
  const merchantHeaders = (mode: "sandbox" | "live") => {
    const k = mode === "sandbox" ? m.sandbox : live;
    return { "x-merchant-id": m.merchantId, "x-api-key": k.publicKey, "x-secret-key": k.secretKey };
  };
  const checkout = (body: unknown, key?: string) =>
    request(env.server.url, "/api/checkout", { method: "POST", body, headers: { ...merchantHeaders("sandbox"), ...(key ? { "Idempotency-Key": key } : {}) } });

  beforeAll(async () => {
    env = await startFor("postgresql");
    m = await createMerchantViaCli(env.server.env);
    const [wl, goLive] = await Promise.all([
      cli(env.server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"]),
      cli(env.server.env, ["merchant", "go-live", "--merchant", m.merchantId]),
    ]);
    expect([wl.code, goLive.code]).toEqual([0, 0]);
    const key = await cli(env.server.env, ["key", "create", "--merchant", m.merchantId, "--mode", "live", "--json"]);
    expect(key.code).toBe(0);
    live = { publicKey: key.json.publicKey, secretKey: key.json.secretKey };
    db = createPrismaClient(env.server.databaseUrl);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
  });

  it("does not store a 415: the same key then runs the JSON request", async () => {
    const key = `idem-415-${seq++}`;
    const bytes = JSON.stringify({ pan: "ABCPK1234F" });
    const refused = await request(env.server.url, "/v1/identity/pan/verify", {
      method: "POST",
      rawBody: bytes,
      headers: { Authorization: `Bearer ${m.sandbox.secretKey}`, "Idempotency-Key": key, "Content-Type": "text/plain" },
    });
    expect(refused.status).toBe(415);
    expect(refused.json.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const ran = await pan(key, { pan: "ABCPK1234F" });
    expect(ran.status).toBe(200);
    expect(ran.headers["idempotent-replayed"]).toBeUndefined();
    const replayed = await pan(key, { pan: "ABCPK1234F" });
    expect(replayed.headers["idempotent-replayed"]).toBe("true");
    expect(replayed.json).toEqual(ran.json);
  });

  it("does not store a 413: the same key then runs a request of the allowed size", async () => {
    const key = `idem-413-${seq++}`;
    const big = JSON.stringify({ pan: "ABCPK1234F", name: "x".repeat(1024 * 1024) });
    const refused = await request(env.server.url, "/v1/identity/pan/verify", {
      method: "POST",
      rawBody: big,
      headers: { Authorization: `Bearer ${m.sandbox.secretKey}`, "Idempotency-Key": key, "Content-Type": "application/json" },
    });
    expect(refused.status).toBe(413);
    expect(refused.json.error.code).toBe("PAYLOAD_TOO_LARGE");
    const ran = await pan(key, { pan: "ABCPK1234F" });
    expect(ran.status).toBe(200);
    expect(ran.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("scopes keys per mode: the same key under the sandbox and the live key are two records", async () => {
    const paymentId = (await checkout({ orderId: `ORDER_idem_mode_${seq++}`, amount: "10" })).json.data.paymentId as string;
    // The live key reaches the server's key cache within a second of its creation.
    await waitFor("the live key to be accepted", async () => {
      const r = await request(env.server.url, "/api/payments/pay_0_missing/status", { headers: merchantHeaders("live") });
      return r.status === 404;
    });
    const key = `idem-mode-${seq++}`;
    const body = { paymentId };
    const call = (mode: "sandbox" | "live") =>
      request(env.server.url, "/api/payments/verify", { method: "POST", body, headers: { ...merchantHeaders(mode), "Idempotency-Key": key } });

    const sandbox = await call("sandbox");
    expect(sandbox.status).toBe(200);
    expect(sandbox.json.data).toMatchObject({ paymentId, verified: false, status: "CREATED" });
    // Live cannot see the sandbox payment; it runs its own request instead of replaying sandbox's.
    const liveFirst = await call("live");
    expect(liveFirst.headers["idempotent-replayed"]).toBeUndefined();
    expect(liveFirst.status).toBe(404);
    expect(liveFirst.json.error.code).toBe("PAYMENT_NOT_FOUND");
    // Each mode now replays its own answer.
    const liveAgain = await call("live");
    expect([liveAgain.status, liveAgain.headers["idempotent-replayed"], liveAgain.json.error.code]).toEqual([404, "true", "PAYMENT_NOT_FOUND"]);
    const sandboxAgain = await call("sandbox");
    expect([sandboxAgain.status, sandboxAgain.headers["idempotent-replayed"]]).toEqual([200, "true"]);
    expect(sandboxAgain.json).toEqual(sandbox.json);
  });

  it("keeps a record 24 hours, then runs the key again (an expired record is replaced)", async () => {
    const key = `idem-ttl-${seq++}`;
    const before = Date.now();
    const first = await pan(key, { pan: "ABCPK1234F" });
    const after = Date.now();
    expect(first.status).toBe(200);
    const where = { merchantId: m.merchantId, key };
    const record = await db.idempotencyRecord.findFirstOrThrow({ where });
    expect(record.expiresAt.getTime()).toBeGreaterThanOrEqual(before + DAY_MS - 1000);
    expect(record.expiresAt.getTime()).toBeLessThanOrEqual(after + DAY_MS + 1000);

    // A minute before expiry it still replays.
    await db.idempotencyRecord.updateMany({ where, data: { expiresAt: new Date(Date.now() + 60_000) } });
    expect((await pan(key, { pan: "ABCPK1234F" })).headers["idempotent-replayed"]).toBe("true");

    // Once expired, the key is free: a different body runs instead of IDEMPOTENCY_KEY_MISMATCH.
    await db.idempotencyRecord.updateMany({ where, data: { expiresAt: new Date(Date.now() - 1000) } });
    const fresh = await pan(key, { pan: "ABCPK1234F", name: "Arjun Kapoor" });
    expect(fresh.status).toBe(200);
    expect(fresh.headers["idempotent-replayed"]).toBeUndefined();
    expect(fresh.json.data.name_match).not.toBeNull();
    // ... and the new answer is the one kept from now on.
    const replayed = await pan(key, { pan: "ABCPK1234F", name: "Arjun Kapoor" });
    expect(replayed.headers["idempotent-replayed"]).toBe("true");
    expect(replayed.json).toEqual(fresh.json);
    expect((await pan(key, { pan: "ABCPK1234F" })).json.error.code).toBe("IDEMPOTENCY_KEY_MISMATCH");
  });

  it("answers 409 IDEMPOTENCY_KEY_IN_USE to a second request while the first still runs, then replays the first", async () => {
    const key = `idem-race-${seq++}`;
    const body = { orderId: `ORDER_idem_race_${seq++}`, amount: "25" };
    // Hold every payment insert: the first request claims the key, then waits on the lock.
    const lock = new pg.Client({ connectionString: env.server.databaseUrl });
    await lock.connect();
    let first: ReturnType<typeof checkout> | undefined;
    try {
      await lock.query("BEGIN");
      await lock.query('LOCK TABLE "Payment" IN ACCESS EXCLUSIVE MODE');
      first = checkout(body, key);
      await waitFor("the first request to claim the key", () => db.idempotencyRecord.findFirst({ where: { merchantId: m.merchantId, key } }));
      // Bounded: a second request that waited on the lock too would otherwise wait for ever.
      const second = await Promise.race([
        checkout(body, key),
        sleep(15_000).then((): HttpResult => ({ status: 0, json: "no answer within 15 s", text: "", headers: {} })),
      ]);
      expect(second.status, "the second request's status (0: it ran and waited on the lock too)").toBe(409);
      expect(second.json).toMatchObject({ success: false, error: { code: "IDEMPOTENCY_KEY_IN_USE" } });
      expect(second.headers["idempotent-replayed"]).toBeUndefined();
    } finally {
      await lock.query("ROLLBACK");
      await lock.end();
    }
    const done = await first!;
    expect(done.status).toBe(200);
    const third = await checkout(body, key);
    expect(third.headers["idempotent-replayed"]).toBe("true");
    expect(third.json.data.paymentId).toBe(done.json.data.paymentId);
    expect(await db.payment.count({ where: { orderId: body.orderId } })).toBe(1);
  });
});
