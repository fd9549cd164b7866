import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeCashfreeVerification, type FakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { request, type HttpResult } from "../helpers/http";
import { parseScrape, valueOf } from "../helpers/prometheus";
import { approveLiveViaCli, createMerchantViaCli, type TestServer, attestConsent } from "../helpers/server";
import { startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";

// Live calls on a server of two workers (WEB_CONCURRENCY=2): the bulkhead and the circuit breaker
// of a family hold for the server, not per worker (contract C2). Each request opens its own
// connection, which the primary hands to the workers in turn, so every burst below reaches both.
// The gate does not depend on the database: SQLite only.
const CLIENT_ID = "CF_TEST_CLIENT_2424";
const CLIENT_SECRET = "cfsk_ma_test_cluster_gate_5e6f7a8b";
const CONCURRENCY = 4;
const METRICS_TOKEN = "live-cluster-metrics-token-0123456789abcdef";
const EPFO = "/advance-employment";

/** Pids of the workers that logged "listening". */
function workerPids(server: TestServer): number[] {
  return [...new Set([...server.logs().matchAll(/"msg":"listening"[^\n]*"pid":(\d+)/g)].map((m) => Number(m[1])))];
}

describe("live upstream calls on two workers", () => {
  let vendor: FakeCashfreeVerification;
  let env: Started;
  let auth: Record<string, string>;
  const epfo = () => request(env.server.url, "/v1/employment/epfo/verify", { method: "POST", body: { uan: "100200300400" }, headers: auth });

  beforeAll(async () => {
    vendor = await startFakeCashfreeVerification({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    env = await startFor("sqlite", {
      WEB_CONCURRENCY: "2",
      LIVE_VERIFICATION_PROVIDER: "cashfree",
      CASHFREE_VERIFICATION_BASE_URL: vendor.url,
      CASHFREE_VERIFICATION_CLIENT_ID: CLIENT_ID,
      CASHFREE_VERIFICATION_CLIENT_SECRET: CLIENT_SECRET,
      UPSTREAM_TIMEOUT_MS: "5000",
      UPSTREAM_MAX_CONCURRENCY: String(CONCURRENCY),
      METRICS_TOKEN,
    });
    const m = await createMerchantViaCli(env.server.env, "Cluster Live");
    const key = await approveLiveViaCli(env.server.env, m.merchantId);
    await attestConsent(env.server.databaseUrl, m.merchantId);
    auth = { Authorization: `Bearer ${key.secretKey}` };
    await waitFor("both workers listening", () => workerPids(env.server).length === 2, 30_000);
  }, 90_000);
  afterEach(() => {
    vendor.clear();
    expect(vendor.problems).toEqual([]);
  });
  afterAll(async () => {
    await env?.stop();
    await vendor?.close();
  });

  /** Starts `n` calls at once; `answered` lists the statuses of those that came back. */
  function burst(n: number) {
    const answered: HttpResult[] = [];
    const all = Promise.all(Array.from({ length: n }, () => epfo().then((r) => (answered.push(r), r))));
    return { answered, all };
  }

  it("lets UPSTREAM_MAX_CONCURRENCY calls be at the vendor at once from both workers together, and refuses the rest at once", async () => {
    const before = vendor.count(EPFO);
    const release = vendor.hold("epfo");
    const { answered, all } = burst(10);
    // Every call is either at the vendor (held there) or answered: none waits in a queue.
    await waitFor("each call held at the vendor or answered", () => vendor.count(EPFO) - before + answered.length === 10, 10_000, 10);
    expect(vendor.count(EPFO) - before).toBe(CONCURRENCY);
    for (const r of answered) {
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe("SOURCE_UNAVAILABLE");
      expect(Number(r.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    }
    release();
    const statuses = (await all).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(CONCURRENCY);
    expect(statuses.filter((s) => s === 503)).toHaveLength(10 - CONCURRENCY);
  });

  it("gives back the slots of a worker that dies with calls in flight", async () => {
    const before = vendor.count(EPFO);
    const release = vendor.hold("epfo");
    const held = burst(CONCURRENCY);
    const settled = held.all.catch(() => null);
    await waitFor("the held calls at the vendor", () => vendor.count(EPFO) - before === CONCURRENCY, 10_000, 10);
    const [victim] = workerPids(env.server);
    const exits = () => (env.server.logs().match(/worker exited; restarting it/g) ?? []).length;
    const exitsBefore = exits();
    process.kill(victim!, "SIGKILL");
    await waitFor("the primary saw the worker go", () => exits() > exitsBefore, 10_000, 10);
    // The other worker still holds its calls; the dead one's slots are free again.
    const after = burst(CONCURRENCY);
    await waitFor(
      "each new call held at the vendor or answered",
      () => vendor.count(EPFO) - before - CONCURRENCY + after.answered.length === CONCURRENCY,
      10_000,
      10,
    );
    // As many as the dead worker held (the primary hands connections in turn, so some); the live one's still count.
    const freed = vendor.count(EPFO) - before - CONCURRENCY;
    expect(freed).toBeGreaterThanOrEqual(1);
    expect(after.answered.every((r) => r.status === 503)).toBe(true);
    release();
    await settled;
    await after.all;
    await waitFor("the worker restarted", () => workerPids(env.server).length === 3, 30_000);
  });

  it("opens one breaker after five failures in a row from both workers: the next call reaches no vendor, and the scrape shows it open once", async () => {
    vendor.fail("epfo", "500");
    const before = vendor.count(EPFO);
    for (let i = 0; i < 5; i++) expect((await epfo()).status).toBe(503);
    expect(vendor.count(EPFO) - before).toBe(5);
    for (let i = 0; i < 2; i++) {
      const refused = await epfo();
      expect(refused.status).toBe(503);
      expect(refused.json.error.code).toBe("SOURCE_UNAVAILABLE");
      expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(25);
    }
    expect(vendor.count(EPFO) - before).toBe(5);
    expect(env.server.logs().match(/"msg":"upstream circuit opened"[^\n]*"family":"epfo"/g)).toHaveLength(1);
    for (let i = 0; i < 2; i++) {
      const scrape = await request(env.server.url, "/metrics", { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
      const f = parseScrape(scrape.text);
      expect(valueOf(f, "parakh_upstream_breaker_state", { family: "epfo", vendor: "cashfree", state: "open" })).toBe(1);
      expect(valueOf(f, "parakh_upstream_breaker_state", { family: "epfo", vendor: "cashfree", state: "closed" })).toBe(0);
      expect(valueOf(f, "parakh_upstream_breaker_state", { family: "pan", vendor: "cashfree", state: "closed" })).toBe(1);
      expect(valueOf(f, "parakh_upstream_calls_total", { family: "epfo", vendor: "cashfree", outcome: "failed" })).toBe(5);
    }
  });
});
