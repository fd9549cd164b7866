import http from "node:http";
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

// The door runs in-process here with operations declared as later capabilities declare theirs
// (`restProcedure`), so each credential scheme is proven before any payment or KYC route exists.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-auth-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
delete process.env.BASE_URL;

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getServices } = await import("@/server/services");
const { createRestDoor, isRestPath } = await import("@/server/http/rest-door");
const { restProcedure } = await import("@/server/rest/trpc");
const { restOperation } = await import("@/server/rest/operations");
type RestOperationMeta = import("@/server/rest/meta").RestOperationMeta;
const { apiOk, v1Ok, apiEnvelope, v1Envelope } = await import("@/server/rest/envelope");
const { createMerchant, setMerchantStatus, setWhitelistEnforcement } = await import("@/server/services/merchants/merchants");
const { addWhitelistEntry } = await import("@/server/services/merchants/whitelist");
const { resolveClientIp, IpMatcher } = await import("@/server/lib/ip");
const { beginIdempotent } = await import("@/server/services/idempotency/idempotency");
const { purgeExpiredAuditLogs } = await import("@/server/services/audit/audit-writer");
const { request } = await import("../helpers/http");

const echo = z.object({ merchantId: z.string(), mode: z.string() });
const metas = {
  pay: { openapi: { method: "POST", path: "/api/payments/echo" }, rest: { auth: "merchant", errors: [] } },
  kyc: { openapi: { method: "POST", path: "/api/kyc/echo" }, rest: { auth: "kyc", errors: [] } },
  v1: { openapi: { method: "POST", path: "/v1/echo" }, rest: { auth: "bearer", errors: [] } },
} satisfies Record<string, RestOperationMeta>;
const testProcedures = {
  pay: restProcedure(metas.pay, {
    input: z.object({ note: z.string().max(10).optional() }),
    output: apiEnvelope(echo),
    resolve: ({ ctx }) => apiOk({ merchantId: ctx.auth.merchantId, mode: ctx.auth.mode }),
  }),
  kyc: restProcedure(metas.kyc, {
    input: z.object({ merchantId: z.string() }),
    output: apiEnvelope(echo),
    resolve: ({ ctx }) => apiOk({ merchantId: ctx.auth.merchantId, mode: ctx.auth.mode }),
  }),
  v1: restProcedure(metas.v1, {
    input: z.object({}),
    output: v1Envelope(echo),
    resolve: ({ ctx }) => v1Ok({ merchantId: ctx.auth.merchantId, mode: ctx.auth.mode }),
  }),
};
const testOperations = Object.values(testProcedures).map(restOperation);

describe("the three credential schemes through the REST door", () => {
  let server: http.Server;
  let url: string;
  let m: Awaited<ReturnType<typeof createMerchant>>;
  let other: Awaited<ReturnType<typeof createMerchant>>;
  const services = () => getServices();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const payHeaders = (x = m) => ({ "x-merchant-id": x.merchantId, "x-api-key": x.sandbox.key.publicKey, "x-secret-key": x.sandbox.key.secretKey });
  const kycHeaders = (x = m) => ({ "x-api-key": x.sandbox.key.publicKey, "x-api-secret": x.sandbox.key.secretKey });

  beforeAll(async () => {
    await migrateTestDatabase(process.env.DATABASE_URL!);
    services().authCache.start();
    const door = createRestDoor(services(), testOperations);
    const trusted = new IpMatcher(["127.0.0.3"]);
    server = http.createServer((req, res) => {
      const pathname = (req.url ?? "/").split("?")[0]!;
      if (!isRestPath(pathname)) return res.end();
      void door.handle(req, res, pathname, resolveClientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"], trusted));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    m = await createMerchant(services().db, { name: "Shop", email: "shop@example.com", password: "a-long-password" });
    other = await createMerchant(services().db, { name: "Other", email: "other@example.com", password: "a-long-password" });
    await addWhitelistEntry(services().db, m.merchantId, "127.0.0.1");
  });
  afterAll(async () => {
    server?.close();
    await services().authCache.stop();
  });

  describe("merchant headers + IP whitelist (payments)", () => {
    it("accepts the key pair from a whitelisted IP", async () => {
      const r = await request(url, "/api/payments/echo", { body: {}, headers: payHeaders() });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ success: true, data: { merchantId: m.merchantId, mode: "sandbox" } });
    });

    it("refuses missing or mismatched credentials with 401 before looking at the IP", async () => {
      const cases = [
        {},
        { ...payHeaders(), "x-secret-key": "sk_test_wrong" },
        { ...payHeaders(), "x-api-key": other.sandbox.key.publicKey },
        { ...payHeaders(), "x-merchant-id": other.merchantId },
        { ...payHeaders(), "x-api-key": m.sandbox.key.secretKey },
      ];
      for (const headers of cases) {
        const r = await request(url, "/api/payments/echo", { body: {}, headers, localAddress: "127.0.0.2" });
        expect(r.status).toBe(401);
        expect(r.json).toMatchObject({ success: false, error: { code: "UNAUTHORIZED" } });
        expect(r.json.requestId).toBe(r.headers["x-request-id"]);
      }
    });

    it("refuses another IP with 403 IP_NOT_WHITELISTED, also with a forged X-Forwarded-For", async () => {
      const plain = await request(url, "/api/payments/echo", { body: {}, headers: payHeaders(), localAddress: "127.0.0.2" });
      expect(plain.status).toBe(403);
      expect(plain.json.error.code).toBe("IP_NOT_WHITELISTED");
      const forged = await request(url, "/api/payments/echo", {
        body: {},
        headers: { ...payHeaders(), "X-Forwarded-For": "127.0.0.1" },
        localAddress: "127.0.0.2",
      });
      expect(forged.status).toBe(403);
    });

    it("believes X-Forwarded-For only from a trusted proxy", async () => {
      const viaProxy = await request(url, "/api/payments/echo", {
        body: {},
        headers: { ...payHeaders(), "X-Forwarded-For": "127.0.0.1" },
        localAddress: "127.0.0.3",
      });
      expect(viaProxy.status).toBe(200);
      const proxyForOther = await request(url, "/api/payments/echo", {
        body: {},
        headers: { ...payHeaders(), "X-Forwarded-For": "127.0.0.1, 10.9.9.9" },
        localAddress: "127.0.0.3",
      });
      expect(proxyForOther.status).toBe(403);
    });

    it("refuses a merchant with an empty whitelist", async () => {
      const r = await request(url, "/api/payments/echo", { body: {}, headers: payHeaders(other) });
      expect(r.status).toBe(403);
      expect(r.json.error.code).toBe("IP_NOT_WHITELISTED");
    });

    it("maps validation errors into the /api envelope with field", async () => {
      const r = await request(url, "/api/payments/echo", { body: { note: "far too long a note" }, headers: payHeaders() });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR", field: "note" } });
    });
  });

  describe("KYC headers", () => {
    it("accepts the key pair with the key's own merchantId", async () => {
      const r = await request(url, "/api/kyc/echo", { body: { merchantId: m.merchantId }, headers: kycHeaders(), localAddress: "127.0.0.2" });
      expect(r.status).toBe(200);
      expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    });

    it("refuses another merchant's id with 403 MERCHANT_MISMATCH", async () => {
      const r = await request(url, "/api/kyc/echo", { body: { merchantId: other.merchantId }, headers: kycHeaders() });
      expect(r.status).toBe(403);
      expect(r.json.error.code).toBe("MERCHANT_MISMATCH");
    });

    it("refuses browsers (an Origin header) with 403 BROWSER_REQUEST_FORBIDDEN", async () => {
      const r = await request(url, "/api/kyc/echo", { body: { merchantId: m.merchantId }, headers: { ...kycHeaders(), Origin: "https://shop.example" } });
      expect(r.status).toBe(403);
      expect(r.json.error.code).toBe("BROWSER_REQUEST_FORBIDDEN");
    });

    it("refuses bad keys with 401 and missing merchantId with VALIDATION_ERROR", async () => {
      const bad = await request(url, "/api/kyc/echo", { body: { merchantId: m.merchantId }, headers: { ...kycHeaders(), "x-api-secret": "sk_test_nope" } });
      expect(bad.status).toBe(401);
      const missing = await request(url, "/api/kyc/echo", { body: {}, headers: kycHeaders() });
      expect(missing.status).toBe(400);
      expect(missing.json.error.code).toBe("VALIDATION_ERROR");
    });

    it("applies the whitelist to KYC and /v1 only when the merchant switches it on", async () => {
      await setWhitelistEnforcement(services().db, m.merchantId, true);
      const kyc = await request(url, "/api/kyc/echo", { body: { merchantId: m.merchantId }, headers: kycHeaders(), localAddress: "127.0.0.2" });
      expect(kyc.status).toBe(403);
      expect(kyc.json.error.code).toBe("IP_NOT_WHITELISTED");
      const v1 = await request(url, "/v1/echo", { body: {}, headers: { Authorization: `Bearer ${m.sandbox.key.secretKey}` }, localAddress: "127.0.0.2" });
      expect(v1.status).toBe(403);
      expect(v1.json.status).toBe("error");
      await setWhitelistEnforcement(services().db, m.merchantId, false);
    });
  });

  it("answers every scheme with 403 MERCHANT_SUSPENDED for a suspended merchant", async () => {
    await setMerchantStatus(services().db, m.merchantId, "SUSPENDED");
    const pay = await request(url, "/api/payments/echo", { body: {}, headers: payHeaders() });
    const kyc = await request(url, "/api/kyc/echo", { body: { merchantId: m.merchantId }, headers: kycHeaders() });
    const v1 = await request(url, "/v1/echo", { body: {}, headers: { Authorization: `Bearer ${m.sandbox.key.secretKey}` } });
    for (const r of [pay, kyc, v1]) expect(r.status).toBe(403);
    expect(pay.json.error.code).toBe("MERCHANT_SUSPENDED");
    expect(v1.json.error.code).toBe("MERCHANT_SUSPENDED");
    await setMerchantStatus(services().db, m.merchantId, "ACTIVE");
    await sleep(10);
    expect((await request(url, "/api/payments/echo", { body: {}, headers: payHeaders() })).status).toBe(200);
  });

  it("answers 409 IDEMPOTENCY_KEY_IN_USE while the first request with a key is still running", async () => {
    const scope = { merchantId: m.merchantId, mode: "sandbox" as const, key: "in-flight", method: "POST", path: "/v1/echo", body: Buffer.from("{}") };
    expect((await beginIdempotent(services().db, scope)).kind).toBe("new");
    await expect(beginIdempotent(services().db, scope)).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_IN_USE" });
    await expect(beginIdempotent(services().db, { ...scope, body: Buffer.from('{"a":1}') })).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_MISMATCH" });
    const r = await request(url, "/v1/echo", { body: {}, headers: { Authorization: `Bearer ${m.sandbox.key.secretKey}`, "Idempotency-Key": "in-flight" } });
    expect(r.status).toBe(409);
    expect(r.json.error.code).toBe("IDEMPOTENCY_KEY_IN_USE");
  });

  it("purges audit records past retention and keeps newer ones", async () => {
    const db = services().db;
    const old = new Date(Date.now() - 8 * 365 * 86_400_000);
    await db.auditLog.create({
      data: { id: "aud_old", requestId: "req_old", method: "POST", path: "/v1/echo", status: 200, latencyMs: 1, clientIp: "127.0.0.1", createdAt: old },
    });
    const before = await db.auditLog.count();
    expect(await purgeExpiredAuditLogs(db, 2557)).toBe(1);
    expect(await db.auditLog.count()).toBe(before - 1);
    expect(await db.auditLog.findUnique({ where: { id: "aud_old" } })).toBeNull();
  });
});
