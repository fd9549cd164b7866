import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request } from "../helpers/http";
import { cli, createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(DB_TARGETS)("REST door on %s", (target) => {
  let env: Started;
  let m: MerchantFixture;
  let db: Db;
  let url: string;
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const verify = (headers: Record<string, string>, body: unknown = { pan: "ABCPK1234F" }, localAddress?: string) =>
    request(url, "/v1/identity/pan/verify", { method: "POST", body, headers, localAddress });

  beforeAll(async () => {
    env = await startFor(target);
    url = env.server.url;
    m = await createMerchantViaCli(env.server.env);
    db = createPrismaClient(env.server.databaseUrl);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
  });

  describe("routes and bodies", () => {
    it("answers unknown routes with 404 NOT_FOUND in the right envelope", async () => {
      const v1 = await request(url, "/v1/nope", { method: "POST", body: {} });
      expect(v1.status).toBe(404);
      expect(v1.json).toMatchObject({ status: "error", error: { code: "NOT_FOUND" } });
      const api = await request(url, "/api/payments/nope/chargebacks");
      expect(api.status).toBe(404);
      expect(api.json).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
      expect(api.json.requestId).toBe(api.headers["x-request-id"]);
    });

    it("answers a wrong method with 405 and Allow", async () => {
      const r = await request(url, "/v1/identity/pan/verify", { headers: bearer(m.sandbox.secretKey) });
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe("POST");
      expect(r.json.error.code).toBe("METHOD_NOT_ALLOWED");
    });

    it("refuses non-JSON bodies with 415, malformed JSON with 400 INVALID_JSON", async () => {
      const text = await request(url, "/v1/identity/pan/verify", {
        method: "POST",
        rawBody: "pan=ABCPK1234F",
        headers: { ...bearer(m.sandbox.secretKey), "Content-Type": "application/x-www-form-urlencoded" },
      });
      expect(text.status).toBe(415);
      expect(text.json.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
      const none = await request(url, "/v1/identity/pan/verify", { method: "POST", rawBody: "{}", headers: bearer(m.sandbox.secretKey) });
      expect(none.status).toBe(415);
      const bad = await request(url, "/v1/identity/pan/verify", {
        method: "POST",
        rawBody: '{"pan": "ABC',
        headers: { ...bearer(m.sandbox.secretKey), "Content-Type": "application/json; charset=utf-8" },
      });
      expect(bad.status).toBe(400);
      expect(bad.json.error.code).toBe("INVALID_JSON");
      const arr = await request(url, "/v1/identity/pan/verify", {
        method: "POST",
        rawBody: "[1,2]",
        headers: { ...bearer(m.sandbox.secretKey), "Content-Type": "application/json" },
      });
      expect(arr.status).toBe(400);
      expect(arr.json.error.code).toBe("VALIDATION_ERROR");
    });

    it("refuses bodies over 1 MiB with 413 PAYLOAD_TOO_LARGE", async () => {
      const big = JSON.stringify({ pan: "ABCPK1234F", name: "x".repeat(1024 * 1024) });
      const r = await request(url, "/v1/identity/pan/verify", {
        method: "POST",
        rawBody: big,
        headers: { ...bearer(m.sandbox.secretKey), "Content-Type": "application/json" },
      });
      expect(r.status).toBe(413);
      expect(r.json.error.code).toBe("PAYLOAD_TOO_LARGE");
    });

    it("echoes a sane X-Request-Id and replaces an unsafe one", async () => {
      const ok = await verify({ ...bearer(m.sandbox.secretKey), "X-Request-Id": "client-abc_123" });
      expect(ok.headers["x-request-id"]).toBe("client-abc_123");
      const unsafe = await verify({ ...bearer(m.sandbox.secretKey), "X-Request-Id": "bad id<script>" });
      expect(unsafe.headers["x-request-id"]).toMatch(/^req_/);
      const err = await request(url, "/v1/identity/pan/verify", {
        method: "POST",
        body: { pan: "bad" },
        headers: { ...bearer(m.sandbox.secretKey), "X-Request-Id": "err-1" },
      });
      expect(err.json.request_id).toBe("err-1");
    });
  });

  describe("path parameters", () => {
    let own: MerchantFixture;
    const pay = () => ({ "x-merchant-id": own.merchantId, "x-api-key": own.sandbox.publicKey, "x-secret-key": own.sandbox.secretKey });
    /** Every character as %XX: three times as long as the id it names. */
    const encodeAll = (id: string) => [...Buffer.from(id)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");

    beforeAll(async () => {
      own = await createMerchantViaCli(env.server.env, "Path Params");
      expect((await cli(env.server.env, ["whitelist", "add", "--merchant", own.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    });

    it("an id too long to exist is not found, with the operation's own code and no validation details", async () => {
      const long = "x".repeat(100);
      const cases: [string, string, Record<string, string>, unknown, string][] = [
        ["GET", `/v1/identity/pan/batch/batch_${long}`, bearer(own.sandbox.secretKey), undefined, "BATCH_NOT_FOUND"],
        ["GET", `/v1/identity/pan/batch/batch_${long}/results?limit=10`, bearer(own.sandbox.secretKey), undefined, "BATCH_NOT_FOUND"],
        ["GET", `/v1/employment/epfo/batch/batch_${long}`, bearer(own.sandbox.secretKey), undefined, "BATCH_NOT_FOUND"],
        ["GET", `/v1/employment/epfo/batch/batch_${long}/results`, bearer(own.sandbox.secretKey), undefined, "BATCH_NOT_FOUND"],
        ["GET", `/api/payments/pay_${long}/status`, pay(), undefined, "PAYMENT_NOT_FOUND"],
        ["GET", `/api/payments/pay_${long}/refunds`, pay(), undefined, "PAYMENT_NOT_FOUND"],
        ["POST", `/api/payments/pay_${long}/refunds`, pay(), { reason: "too long" }, "PAYMENT_NOT_FOUND"],
        ["GET", `/api/refunds/rfnd_${long}`, pay(), undefined, "REFUND_NOT_FOUND"],
        ["POST", `/api/sandbox/payments/pay_${long}/simulate`, pay(), { outcome: "SUCCESS" }, "PAYMENT_NOT_FOUND"],
      ];
      for (const [method, path, headers, body, code] of cases) {
        const r = await request(url, path, { method, headers, body });
        expect(r.status, path).toBe(404);
        expect(r.json.error, path).toEqual({ code, message: expect.any(String) });
        // The same answer as for an id of a plausible length that is not there.
        const short = await request(url, path.replace(long, "nothere"), { method, headers, body });
        expect(short.status, path).toBe(404);
        expect(short.json.error, path).toEqual(r.json.error);
      }
    });

    it("decodes path parameters once before matching and validation", async () => {
      const created = await request(url, "/v1/identity/pan/batch", { body: { items: [{ pan: "ABCPK1234F" }] }, headers: bearer(own.sandbox.secretKey) });
      expect(created.status).toBe(202);
      const batchId: string = created.json.data.batch_id;
      // Fully encoded, the id is longer than the 64 characters a batch id may have; decoded it is the id.
      expect(encodeAll(batchId).length).toBeGreaterThan(64);
      for (const path of [batchId.replace("_", "%5F"), batchId.replace("_", "%5f"), encodeAll(batchId)]) {
        const status = await request(url, `/v1/identity/pan/batch/${path}`, { headers: bearer(own.sandbox.secretKey) });
        expect(status.status, path).toBe(200);
        expect(status.json.data.batch_id).toBe(batchId);
        const results = await request(url, `/v1/identity/pan/batch/${path}/results?limit=5`, { headers: bearer(own.sandbox.secretKey) });
        expect(results.status, path).toBe(200);
      }
      // Decoded once only: %255F is the text "%5F", not "_".
      const twice = await request(url, `/v1/identity/pan/batch/${batchId.replace("_", "%255F")}`, { headers: bearer(own.sandbox.secretKey) });
      expect(twice.status).toBe(404);
      expect(twice.json.error.code).toBe("BATCH_NOT_FOUND");

      const checkout = await request(url, "/api/checkout", { body: { orderId: `ORDER_pp_${target}`, amount: "100" }, headers: pay() });
      expect(checkout.status).toBe(200);
      const paymentId: string = checkout.json.data.paymentId;
      const encoded = encodeAll(paymentId);
      const paid = await request(url, `/api/sandbox/payments/${encoded}/simulate`, { body: { outcome: "SUCCESS" }, headers: pay() });
      expect(paid.status).toBe(200);
      expect(paid.json.data.payment).toMatchObject({ paymentId, status: "SUCCESS" });
      const refund = await request(url, `/api/payments/${encoded}/refunds`, { body: { amount: "1.00" }, headers: pay() });
      expect(refund.status).toBe(200);
      const refundId: string = refund.json.data.refundId;
      expect((await request(url, `/api/payments/${encoded}/status`, { headers: pay() })).json.data).toMatchObject({ paymentId, status: "SUCCESS" });
      expect((await request(url, `/api/payments/${encoded}/refunds`, { headers: pay() })).json.data.items).toHaveLength(1);
      const got = await request(url, `/api/refunds/${encodeAll(refundId)}`, { headers: pay() });
      expect(got.status).toBe(200);
      expect(got.json.data.refundId).toBe(refundId);
    });

    it("answers 404 NOT_FOUND in the envelope for a path parameter that is not valid percent-encoding", async () => {
      for (const bad of ["%E0%A4%A", "batch_%zz", "%C0%AF"]) {
        const r = await request(url, `/v1/identity/pan/batch/${bad}`, { headers: bearer(own.sandbox.secretKey) });
        expect(r.status, bad).toBe(404);
        expect(r.json, bad).toMatchObject({ status: "error", error: { code: "NOT_FOUND" }, request_id: r.headers["x-request-id"] });
        const api = await request(url, `/api/payments/${bad}/status`, { headers: pay() });
        expect(api.status, bad).toBe(404);
        expect(api.json, bad).toMatchObject({ success: false, error: { code: "NOT_FOUND" }, requestId: api.headers["x-request-id"] });
      }
    });
  });

  describe("authentication", () => {
    it("needs a valid secret key as bearer token", async () => {
      for (const headers of [{}, bearer("sk_test_nope"), bearer(m.sandbox.publicKey), { Authorization: m.sandbox.secretKey }]) {
        const r = await verify(headers);
        expect(r.status).toBe(401);
        expect(r.json.error.code).toBe("UNAUTHORIZED");
      }
    });

    it("applies suspension, revocation and rotation within one second", async () => {
      const own = await createMerchantViaCli(env.server.env, "Suspend Me");
      expect((await verify(bearer(own.sandbox.secretKey))).status).toBe(200);
      expect((await cli(env.server.env, ["merchant", "suspend", "--merchant", own.merchantId])).code).toBe(0);
      await sleep(1000);
      const suspended = await verify(bearer(own.sandbox.secretKey));
      expect(suspended.status).toBe(403);
      expect(suspended.json.error.code).toBe("MERCHANT_SUSPENDED");
      expect((await cli(env.server.env, ["merchant", "reinstate", "--merchant", own.merchantId])).code).toBe(0);
      await sleep(1000);
      expect((await verify(bearer(own.sandbox.secretKey))).status).toBe(200);

      const list = await cli(env.server.env, ["key", "list", "--merchant", own.merchantId, "--json"]);
      const keyId = list.json.keys[0].keyId;
      const rotated = await cli(env.server.env, ["key", "rotate", "--merchant", own.merchantId, "--key", keyId, "--json"]);
      expect(rotated.code).toBe(0);
      await sleep(1000);
      expect((await verify(bearer(own.sandbox.secretKey))).status).toBe(401);
      expect((await verify(bearer(rotated.json.secretKey))).status).toBe(200);
      expect((await cli(env.server.env, ["key", "revoke", "--merchant", own.merchantId, "--key", rotated.json.keyId])).code).toBe(0);
      await sleep(1000);
      expect((await verify(bearer(rotated.json.secretKey))).status).toBe(401);
    });

    it("keeps a rotated key working during its grace period", async () => {
      const own = await createMerchantViaCli(env.server.env, "Grace");
      const list = await cli(env.server.env, ["key", "list", "--merchant", own.merchantId, "--json"]);
      const rotated = await cli(env.server.env, [
        "key",
        "rotate",
        "--merchant",
        own.merchantId,
        "--key",
        list.json.keys[0].keyId,
        "--grace-seconds",
        "2",
        "--json",
      ]);
      expect(rotated.code).toBe(0);
      await sleep(300);
      expect((await verify(bearer(own.sandbox.secretKey))).status).toBe(200);
      expect((await verify(bearer(rotated.json.secretKey))).status).toBe(200);
      await sleep(2200);
      expect((await verify(bearer(own.sandbox.secretKey))).status).toBe(401);
    });

    it("locks live keys until go-live, then answers live calls with SOURCE_UNAVAILABLE", async () => {
      const own = await createMerchantViaCli(env.server.env, "Live");
      const early = await cli(env.server.env, ["key", "create", "--merchant", own.merchantId, "--mode", "live", "--json"]);
      expect(early.code).toBe(1);
      expect(early.json.error.code).toBe("LIVE_MODE_NOT_ENABLED");
      expect((await cli(env.server.env, ["merchant", "go-live", "--merchant", own.merchantId])).code).toBe(0);
      const live = await cli(env.server.env, ["key", "create", "--merchant", own.merchantId, "--mode", "live", "--json"]);
      expect(live.json.secretKey).toMatch(/^sk_live_/);
      const r = await verify(bearer(live.json.secretKey), { pan: "ABCPK1234F", consent: true, purpose: "Vendor onboarding: PAN check before first invoice" });
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe("SOURCE_UNAVAILABLE");
    });

    it("enforces the IP whitelist on /v1 when the merchant switches it on; forged X-Forwarded-For changes nothing", async () => {
      const own = await createMerchantViaCli(env.server.env, "Whitelist");
      const key = bearer(own.sandbox.secretKey);
      expect((await verify(key, undefined, "127.0.0.2")).status).toBe(200);
      expect((await cli(env.server.env, ["whitelist", "add", "--merchant", own.merchantId, "--ip", "127.0.0.1", "--label", "local"])).code).toBe(0);
      expect((await cli(env.server.env, ["whitelist", "enforce", "--merchant", own.merchantId, "--all", "on"])).code).toBe(0);
      await sleep(1000);
      expect((await verify(key, undefined, "127.0.0.1")).status).toBe(200);
      const denied = await verify({ ...key, "X-Forwarded-For": "127.0.0.1" }, undefined, "127.0.0.2");
      expect(denied.status).toBe(403);
      expect(denied.json.error.code).toBe("IP_NOT_WHITELISTED");
      expect((await cli(env.server.env, ["whitelist", "add", "--merchant", own.merchantId, "--ip", "127.0.0.0/30"])).code).toBe(0);
      await sleep(1000);
      expect((await verify(key, undefined, "127.0.0.2")).status).toBe(200);
    });
  });

  describe("idempotency", () => {
    it("replays the same key and body, refuses a different body", async () => {
      const headers = { ...bearer(m.sandbox.secretKey), "Idempotency-Key": `idem-${target}-1` };
      const first = await verify(headers, { pan: "ABCPK1234F", name: "A B" });
      expect(first.status).toBe(200);
      expect(first.headers["idempotent-replayed"]).toBeUndefined();
      const again = await verify(headers, { pan: "ABCPK1234F", name: "A B" });
      expect(again.status).toBe(200);
      expect(again.headers["idempotent-replayed"]).toBe("true");
      expect(again.json).toEqual(first.json);
      const other = await verify(headers, { pan: "ABCPK1234F", name: "C D" });
      expect(other.status).toBe(422);
      expect(other.json.error.code).toBe("IDEMPOTENCY_KEY_MISMATCH");
    });

    it("does not store validation failures or source failures", async () => {
      const headers = { ...bearer(m.sandbox.secretKey), "Idempotency-Key": `idem-${target}-2` };
      expect((await verify(headers, { pan: "bad" })).status).toBe(400);
      expect((await verify(headers, { pan: "ABCPK9998F" })).status).toBe(503);
      const ok = await verify(headers, { pan: "ABCPK1234F" });
      expect(ok.status).toBe(200);
      expect(ok.headers["idempotent-replayed"]).toBeUndefined();
    });

    it("is scoped per merchant", async () => {
      const other = await createMerchantViaCli(env.server.env, "Other");
      const key = `idem-${target}-shared`;
      expect((await verify({ ...bearer(m.sandbox.secretKey), "Idempotency-Key": key }, { pan: "ABCPK1234F" })).status).toBe(200);
      const r = await verify({ ...bearer(other.sandbox.secretKey), "Idempotency-Key": key }, { pan: "ABCPK1234G" });
      expect(r.status).toBe(200);
      expect(r.headers["idempotent-replayed"]).toBeUndefined();
    });

    it("refuses keys longer than 255 characters", async () => {
      const r = await verify({ ...bearer(m.sandbox.secretKey), "Idempotency-Key": "k".repeat(256) });
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe("VALIDATION_ERROR");
    });
  });

  describe("audit log", () => {
    it("holds a redacted record before the response leaves", async () => {
      const r = await verify(
        { ...bearer(m.sandbox.secretKey), "X-Request-Id": `audit-${target}`, "User-Agent": "audit-test" },
        { pan: "ABCPK1234F", name: "Rakesh" },
      );
      expect(r.status).toBe(200);
      const rows = await db.auditLog.findMany({ where: { requestId: `audit-${target}` } });
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row).toMatchObject({
        merchantId: m.merchantId,
        mode: "sandbox",
        method: "POST",
        path: "/v1/identity/pan/verify",
        status: 200,
        clientIp: "127.0.0.1",
        userAgent: "audit-test",
      });
      expect(row.apiKeyId).toMatch(/^key_/);
      expect(JSON.parse(row.requestBody!)).toEqual({ pan: "ABCPK1234F", name: "Rakesh" });
      expect(JSON.parse(row.responseBody!).data.pan).toBe("ABCPK1234F");
      expect(row.latencyMs).toBeGreaterThan(0);
      const v = await db.verification.findMany({ where: { requestId: `audit-${target}` } });
      expect(v).toMatchObject([{ kind: "PAN", subject: "ABCPK1234F", outcome: "VALID", merchantId: m.merchantId }]);
    });

    it("records errors too, and never stores the secret key", async () => {
      const r = await request(url, "/v1/identity/pan/verify", {
        method: "POST",
        body: { pan: "X" },
        headers: { ...bearer(m.sandbox.secretKey), "X-Request-Id": `audit-err-${target}` },
      });
      expect(r.status).toBe(400);
      const row = await db.auditLog.findFirst({ where: { requestId: `audit-err-${target}` } });
      expect(row).toMatchObject({ status: 400, errorCode: "INVALID_PAN" });
      const all = await db.auditLog.findMany({ select: { requestBody: true, responseBody: true } });
      for (const a of all) {
        expect(a.requestBody ?? "").not.toContain(m.sandbox.secretKey);
        expect(a.responseBody ?? "").not.toContain(m.sandbox.secretKey);
      }
    });

    it("records unauthenticated and unrouted requests", async () => {
      await request(url, "/v1/unknown-route", { headers: { "X-Request-Id": `audit-404-${target}` } });
      const row = await db.auditLog.findFirst({ where: { requestId: `audit-404-${target}` } });
      expect(row).toMatchObject({ status: 404, errorCode: "NOT_FOUND", merchantId: null });
    });
  });

  describe("operations", () => {
    it("serves health, readiness and the OpenAPI document", async () => {
      const h = await request(url, "/api/health");
      expect(h.status).toBe(200);
      expect(h.headers["x-request-id"]).toMatch(/^req_/);
      const ready = await request(url, "/api/ready");
      expect(ready.status).toBe(200);
      expect(ready.json.status).toBe("ready");
      // The instance this start is (a rolling restart waits for another one): the same on every call.
      expect(ready.json.instance).toMatch(/^[a-z0-9]+-\d+-[a-z0-9]+$/);
      expect((await request(url, "/api/ready")).json.instance).toBe(ready.json.instance);
      const doc = await request(url, "/api/openapi.json");
      expect(doc.status).toBe(200);
      const op = doc.json.paths["/v1/identity/pan/verify"].post;
      expect(op.security).toEqual([{ BearerSecretKey: [] }]);
      expect(op["x-error-codes"]).toEqual(expect.arrayContaining(["INVALID_PAN", "UNAUTHORIZED", "SOURCE_TIMEOUT", "VALIDATION_ERROR"]));
      expect(op.responses["400"]["x-error-codes"]).toContain("INVALID_PAN");
      expect(op.requestBody.content["application/json"].schema.properties.pan.pattern).toBeDefined();
      expect(doc.json.paths["/v1/employment/epfo/verify"].post.responses["404"]["x-error-codes"]).toEqual(["UAN_NOT_FOUND", "PF_NUMBER_NOT_FOUND"]);
    });
  });
});
