import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { startFakeCashfreeVerification, type FakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { request } from "../helpers/http";
import { parseScrape, sampleOf, valueOf } from "../helpers/prometheus";
import { approveLiveViaCli, createMerchantViaCli, startServer, type MerchantFixture, type TestServer, attestConsent } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";

// GET /metrics scraped after known traffic, read with a Prometheus text parser Parakh did not write:
// every figure is compared with the requests this test made and the rows it wrote itself.
const TOKEN = crypto.randomBytes(32).toString("hex");
const CLIENT_ID = "CF_TEST_CLIENT_4410";
const CLIENT_SECRET = "cfsk_ma_test_9a8b7c6d5e4f3a2b1c0d";
const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
const PAYMENT_ID = "pay_1763806530123_Xk2PqRsTuVwXyZ01";

describe.each(DB_TARGETS)("GET /metrics on %s", (target) => {
  let vendor: FakeCashfreeVerification;
  let env: Started;
  let db: Db;
  let m: MerchantFixture;
  let live: { secretKey: string; publicKey: string; keyId: string };
  const scrape = (token = TOKEN, localAddress?: string) => request(env.server.url, "/metrics", { headers: { Authorization: `Bearer ${token}` }, localAddress });
  const panVerify = (secretKey: string, pan: string) =>
    request(env.server.url, "/v1/identity/pan/verify", { method: "POST", body: { pan }, headers: { Authorization: `Bearer ${secretKey}` } });

  beforeAll(async () => {
    vendor = await startFakeCashfreeVerification({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    env = await startFor(target, {
      METRICS_TOKEN: TOKEN,
      // The job rows this test writes stay queued: no worker takes them.
      JOBS_ENABLED: "false",
      AUTH_FAILURES_PER_MINUTE: "5",
      LIVE_VERIFICATION_PROVIDER: "cashfree",
      CASHFREE_VERIFICATION_BASE_URL: vendor.url,
      CASHFREE_VERIFICATION_CLIENT_ID: CLIENT_ID,
      CASHFREE_VERIFICATION_CLIENT_SECRET: CLIENT_SECRET,
    });
    m = await createMerchantViaCli(env.server.env, "Metrics Shop");
    live = await approveLiveViaCli(env.server.env, m.merchantId);
    await attestConsent(env.server.databaseUrl, m.merchantId);
    db = createPrismaClient(env.server.databaseUrl);
  }, 120_000);
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
    await vendor?.close();
  });

  it("refuses a missing or wrong token with 401 in the API's error envelope", async () => {
    const missing = await request(env.server.url, "/metrics");
    const wrong = await scrape(TOKEN.slice(0, -1) + (TOKEN.endsWith("0") ? "1" : "0"));
    for (const r of [missing, wrong]) {
      expect(r.status).toBe(401);
      expect(r.headers["content-type"]).toMatch(/^application\/json/);
      expect(r.json).toEqual({ success: false, error: { code: "UNAUTHORIZED", message: expect.any(String) }, requestId: expect.stringMatching(/^req_/) });
      expect(r.text).not.toContain("parakh_");
    }
  });

  it("counts every request by route template, method and status class, and the queues, holds and upstream calls", async () => {
    for (let i = 0; i < 3; i++) expect((await panVerify(m.sandbox.secretKey, "ABCPK1234F")).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await panVerify(m.sandbox.secretKey, "ABCPK9998F")).status).toBe(503);
    for (let i = 0; i < 2; i++) expect((await panVerify(live.secretKey, "ABCPV1234D")).status).toBe(200);
    vendor.fail("pan", "401", { times: 1 });
    expect((await panVerify(live.secretKey, "ABCPV1234D")).status).toBe(503);
    const paymentHeaders = { "x-merchant-id": m.merchantId, "x-api-key": m.sandbox.publicKey, "x-secret-key": m.sandbox.secretKey };
    const status = await request(env.server.url, `/api/payments/${PAYMENT_ID}/status`, { headers: paymentHeaders });
    expect(status.status).toBeGreaterThanOrEqual(400);
    expect(status.status).toBeLessThan(500);
    expect((await request(env.server.url, "/v1/no/such/route")).status).toBe(404);
    expect((await request(env.server.url, "/v1/identity/pan/verify", { method: "PUT" })).status).toBe(405);
    for (let i = 0; i < 2; i++) expect((await request(env.server.url, "/api/health")).status).toBe(200);

    // Two jobs waiting two minutes, one booked for later; one wallet hold in flight.
    const due = new Date(Date.now() - 120_000);
    for (const runAt of [due, due, new Date(Date.now() + 3_600_000)]) {
      await db.job.create({ data: { id: `job_${crypto.randomUUID()}`, type: "webhook.deliver", payload: "{}", runAt } });
    }
    const wallet = await db.wallet.findFirstOrThrow({ where: { merchantId: m.merchantId, mode: "sandbox" } });
    await db.walletHold.create({
      data: { id: `hold_${crypto.randomUUID()}`, walletId: wallet.id, merchantId: m.merchantId, mode: "sandbox", amountPaise: 100, reason: "test" },
    });

    // The scheme in any letter case, as the API reads its own keys.
    expect((await request(env.server.url, "/metrics", { headers: { Authorization: `bearer  ${TOKEN}` } })).status).toBe(200);
    const r = await scrape();
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe(PROMETHEUS_TEXT);
    const f = parseScrape(r.text);
    const requests = (method: string, route: string, statusClass: string) =>
      valueOf(f, "parakh_http_requests_total", { method, route, status_class: statusClass });

    expect(requests("POST", "/v1/identity/pan/verify", "2xx")).toBe(5);
    expect(requests("POST", "/v1/identity/pan/verify", "5xx")).toBe(3);
    expect(requests("GET", "/api/payments/{paymentId}/status", "4xx")).toBe(1);
    expect(requests("GET", "unmatched", "4xx")).toBe(1);
    expect(requests("PUT", "/v1/identity/pan/verify", "4xx")).toBe(1);
    expect(requests("GET", "/api/health", "2xx")).toBe(2);
    expect(requests("GET", "/metrics", "4xx")).toBe(2);
    // The histogram holds the same requests. (The parser folds labelled histograms together, so
    // their lines are read as Prometheus's text format writes them.)
    const series = '{method="POST",route="/v1/identity/pan/verify",status_class="2xx"}';
    expect(r.text).toContain(`\nparakh_http_request_duration_seconds_count${series} 5\n`);
    expect(r.text).toContain(`\nparakh_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/v1/identity/pan/verify",status_class="2xx"} 5\n`);
    const sumLine = r.text.split("\n").find((l) => l.startsWith(`parakh_http_request_duration_seconds_sum${series} `));
    expect(Number(sumLine?.split(" ")[1])).toBeGreaterThan(0);

    // Every REST request above has its audit record, committed.
    const audited = await db.auditLog.count();
    expect(audited).toBe(11);
    expect(valueOf(f, "parakh_audit_records_total", { result: "committed" })).toBe(audited);
    expect(Number(sampleOf(f, "parakh_audit_commit_duration_seconds")?.count)).toBeGreaterThanOrEqual(1);
    expect(valueOf(f, "parakh_audit_queue_depth")).toBe(0);

    expect(valueOf(f, "parakh_job_queue_depth", { job: "webhook.deliver" })).toBe(2);
    const waited = valueOf(f, "parakh_job_oldest_pending_age_seconds", { job: "webhook.deliver" });
    expect(waited).toBeGreaterThanOrEqual(120);
    expect(waited).toBeLessThan(600);
    expect(valueOf(f, "parakh_wallet_holds_open")).toBe(1);

    expect(vendor.requests.filter((q) => q.family === "pan")).toHaveLength(3);
    expect(valueOf(f, "parakh_upstream_calls_total", { family: "pan", vendor: "cashfree", outcome: "ok" })).toBe(2);
    expect(valueOf(f, "parakh_upstream_calls_total", { family: "pan", vendor: "cashfree", outcome: "misconfigured" })).toBe(1);
    expect(valueOf(f, "parakh_upstream_breaker_state", { family: "pan", vendor: "cashfree", state: "closed" })).toBe(1);
    expect(valueOf(f, "parakh_upstream_breaker_state", { family: "pan", vendor: "cashfree", state: "open" })).toBe(0);
    expect(valueOf(f, "parakh_upstream_misconfigured", { family: "pan", vendor: "cashfree" })).toBe(1);
    // Node's own figures stay, the event loop's delay among them.
    expect(f.get("nodejs_eventloop_lag_p99_seconds")?.type).toBe("GAUGE");

    // No merchant, key, payment or PAN reaches a label.
    const keyIds = (await db.apiKey.findMany({ where: { merchantId: m.merchantId }, select: { id: true } })).map((k) => k.id);
    expect(keyIds.length).toBeGreaterThan(0);
    for (const secret of [m.merchantId, m.sandbox.secretKey, m.sandbox.publicKey, live.secretKey, live.publicKey, ...keyIds, PAYMENT_ID, "ABCPK", "ABCPV"]) {
      expect(r.text).not.toContain(secret);
    }
  });

  it("counts refusals against the address like refused credentials: 429 past the limit, the right token still answered", async () => {
    const from = "127.0.0.3";
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await scrape("x".repeat(64), from)).status);
    expect(codes).toEqual([401, 401, 401, 401, 401, 429]);
    const limited = await scrape("x".repeat(64), from);
    expect(limited.json.error.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect((await scrape(TOKEN, from)).status).toBe(200);
  });
});

describe("GET /metrics without METRICS_TOKEN", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { METRICS_TOKEN: undefined } });
  }, 60_000);
  afterAll(async () => server?.stop());

  it("does not exist: answered exactly like an unknown path, whatever the token", async () => {
    const unknown = await request(server.url, "/no-such-endpoint");
    const metrics = await request(server.url, "/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(metrics.status).toBe(404);
    expect(metrics.status).toBe(unknown.status);
    expect({ ...metrics.json, requestId: null }).toEqual({ ...unknown.json, requestId: null });
  });
});
