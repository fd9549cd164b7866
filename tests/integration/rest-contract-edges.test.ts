import net from "node:net";
import Ajv2020 from "ajv/dist/2020";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "@/server/db/client";
import { request, type HttpResult } from "../helpers/http";
import { cli, createMerchantViaCli, startServer, type MerchantFixture, type TestServer } from "../helpers/server";

/** Sends raw bytes and reads the whole answer (the server closes the connection after it). */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let out = "";
    socket.on("data", (c) => (out += c.toString("latin1")));
    socket.on("close", () => resolve(out));
    socket.on("error", (err) => (out ? resolve(out) : reject(err)));
    socket.write(bytes);
  });
}

/** What the API document promises at its edges: extra error fields, headers, refusals in the envelope, and no 429 for a valid key's 404. */
describe("the REST door at the document's edges", () => {
  let server: TestServer;
  let m: MerchantFixture;
  let doc: any;

  const bearer = () => ({ Authorization: `Bearer ${m.sandbox.secretKey}` });
  const payHeaders = () => ({ "x-merchant-id": m.merchantId, "x-api-key": m.sandbox.publicKey, "x-secret-key": m.sandbox.secretKey });
  const kycHeaders = () => ({ "x-api-key": m.sandbox.publicKey, "x-api-secret": m.sandbox.secretKey });

  beforeAll(async () => {
    server = await startServer({ env: { AUTH_FAILURES_PER_MINUTE: "3" } });
    m = await createMerchantViaCli(server.env);
    expect((await cli(server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    doc = (await request(server.url, "/api/openapi.json")).json;
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** The answer validated against the document's response for its status: body schema and declared headers. */
  function expectDocumented(method: string, path: string, r: HttpResult) {
    const response = doc.paths[path][method].responses[String(r.status)];
    expect(response, `${method} ${path} documents ${r.status}`).toBeDefined();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: "doc", components: doc.components });
    const schema = JSON.parse(JSON.stringify(response.content["application/json"].schema).replaceAll('"#/components/', '"doc#/components/'));
    const valid = ajv.validate(schema, r.json);
    expect(valid, `${r.text}\n${JSON.stringify(ajv.errors)}`).toBe(true);
    for (const name of Object.keys(response.headers ?? {})) {
      if (name === "Idempotent-Replayed" || name === "Retry-After") continue; // present only on replays / some codes
      expect(r.headers[name.toLowerCase()], `${name} on ${r.status}`).toBeDefined();
    }
  }

  it("documents the extra field of INVALID_OTP, so a strict client accepts the answer", async () => {
    const body = { merchantId: m.merchantId, aadhaarNumber: "234567890009" };
    const generated = await request(server.url, "/api/kyc/aadhaar/generate-otp", { method: "POST", body, headers: kycHeaders() });
    expect(generated.status, generated.text).toBe(200);
    const wrong = await request(server.url, "/api/kyc/aadhaar/verify-otp", { method: "POST", body: { ...body, otp: "000001" }, headers: kycHeaders() });
    expect(wrong.status, wrong.text).toBe(422);
    expect(wrong.json.error).toMatchObject({ code: "INVALID_OTP", attemptsRemaining: 2 });
    expectDocumented("post", "/api/kyc/aadhaar/verify-otp", wrong);
  });

  it("documents the headers it sends: X-Request-Id everywhere, Retry-After with a rate limit, Idempotent-Replayed on a replay", async () => {
    const first = await request(server.url, "/v1/identity/pan/verify", {
      method: "POST",
      body: { pan: "ABCPK1234F" },
      headers: { ...bearer(), "Idempotency-Key": "doc-1" },
    });
    expectDocumented("post", "/v1/identity/pan/verify", first);
    const replay = await request(server.url, "/v1/identity/pan/verify", {
      method: "POST",
      body: { pan: "ABCPK1234F" },
      headers: { ...bearer(), "Idempotency-Key": "doc-1" },
    });
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(doc.paths["/v1/identity/pan/verify"].post.responses["200"].headers["Idempotent-Replayed"]).toBeDefined();
    const timeout = await request(server.url, "/v1/identity/pan/verify", { method: "POST", body: { pan: "ABCPK9997F" }, headers: bearer() });
    expect(timeout.status).toBe(504);
    expect(timeout.headers["retry-after"]).toMatch(/^\d+$/);
    expectDocumented("post", "/v1/identity/pan/verify", timeout);
    expect(doc.paths["/v1/identity/pan/verify"].post.responses["504"].headers["Retry-After"]).toBeDefined();
    expect(doc.components.headers["Retry-After"].description).toContain("SOURCE_TIMEOUT");
  });

  it("declares every tag its operations use", () => {
    const declared = new Set((doc.tags as { name: string }[]).map((t) => t.name));
    for (const item of Object.values(doc.paths) as Record<string, { tags?: string[] }>[])
      for (const op of Object.values(item)) for (const tag of op.tags ?? []) expect(declared).toContain(tag);
  });

  it("never turns a valid key's 404 or 405 into the per-address 429, and records them in the merchant's log", async () => {
    // A stranger from this address uses up its refused requests.
    let limited = 0;
    for (let i = 0; i < 6; i++) if ((await request(server.url, "/v1/nope", { headers: { Authorization: "Bearer sk_test_nope" } })).status === 429) limited++;
    expect(limited).toBeGreaterThan(0);
    // The merchant's own mistakes from the same address are answered as they are, whatever the scheme.
    for (let i = 0; i < 5; i++) {
      const notFound = await request(server.url, "/v1/identity/pan/verfy", { method: "POST", body: {}, headers: bearer() });
      expect(notFound.status, notFound.text).toBe(404);
      expect(notFound.json.error.code).toBe("NOT_FOUND");
      const wrongMethod = await request(server.url, "/v1/identity/pan/verify", { headers: bearer() });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.allow).toBe("POST");
      expectDocumented("post", "/v1/identity/pan/verify", wrongMethod);
      expect((await request(server.url, "/api/nope", { headers: payHeaders() })).status).toBe(404);
      expect((await request(server.url, "/api/kyc/nope", { method: "POST", body: {}, headers: kycHeaders() })).status).toBe(404);
    }
    const db = createPrismaClient(server.databaseUrl);
    try {
      expect(await db.auditLog.count({ where: { merchantId: m.merchantId, status: { in: [404, 405] } } })).toBe(20);
    } finally {
      await db.$disconnect();
    }
    // A wrong key is still a stranger.
    expect((await request(server.url, "/v1/nope", { headers: { Authorization: `Bearer ${m.sandbox.secretKey}x` } })).status).toBe(429);
  });

  it("answers a URL past 16 KiB on a REST path with 431 in the envelope of its family", async () => {
    const long = "a".repeat(17 * 1024);
    const v1 = await rawExchange(server.port, `GET /v1/identity/pan/batch/${long} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(v1).toMatch(/^HTTP\/1\.1 431 /);
    const v1Body = JSON.parse(v1.slice(v1.indexOf("\r\n\r\n") + 4));
    expect(v1Body).toMatchObject({ status: "error", error: { code: "REQUEST_HEADERS_TOO_LARGE" }, request_id: expect.stringMatching(/^req_/) });
    expect(v1).toContain(`X-Request-Id: ${v1Body.request_id}`);
    const api = await rawExchange(server.port, `GET /api/payments/${long}/status HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(JSON.parse(api.slice(api.indexOf("\r\n\r\n") + 4))).toMatchObject({ success: false, error: { code: "REQUEST_HEADERS_TOO_LARGE" } });
  });

  it("answers a path that resolves into the API through dot segments in the API's envelope", async () => {
    // Sent as written (an http client would resolve the segments itself).
    const raw = await rawExchange(
      server.port,
      `GET /%2e%2e/v1/identity/pan/verify HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${m.sandbox.secretKey}\r\nConnection: close\r\n\r\n`,
    );
    expect(raw).toMatch(/^HTTP\/1\.1 404 /);
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toMatchObject({ status: "error", error: { code: "NOT_FOUND" } });
  });

  it("names a bad batch webhook_url in details, and an unknown attempt with its own code", async () => {
    const batch = await request(server.url, "/v1/identity/pan/batch", {
      method: "POST",
      body: { items: [{ pan: "ABCPK1234F" }], webhook_url: "ftp://example.com/hook" },
      headers: bearer(),
    });
    expect(batch.status).toBe(400);
    expect(batch.json.error).toMatchObject({ code: "VALIDATION_ERROR", details: [{ field: "webhook_url", message: expect.stringContaining("webhook_url") }] });
    expectDocumented("post", "/v1/identity/pan/batch", batch);

    const created = await request(server.url, "/api/checkout", { method: "POST", body: { orderId: "ORDER_edges_1", amount: 10 }, headers: payHeaders() });
    const simulate = await request(server.url, `/api/sandbox/payments/${created.json.data.paymentId}/simulate`, {
      method: "POST",
      body: { outcome: "SUCCESS", attemptId: "att_unknown" },
      headers: payHeaders(),
    });
    expect(simulate.status).toBe(404);
    expect(simulate.json.error).toMatchObject({ code: "ATTEMPT_NOT_FOUND", field: "attemptId" });
    expectDocumented("post", "/api/sandbox/payments/{paymentId}/simulate", simulate);
  });
});
