import fs from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeCashfreeVerification, type FakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { request, type HttpResult } from "../helpers/http";
import { cli, createMerchantViaCli } from "../helpers/server";
import { waitFor } from "../helpers/wait";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";

// Live PAN and EPFO checks over HTTP, against a loopback fake of the vendor that validates every
// request and answer against the vendor's published schemas. A merchant approved for go-live calls
// with a live key; the server is configured exactly as an operator would configure it.
const CLIENT_ID = "CF_TEST_CLIENT_7731";
const CLIENT_SECRET = "cfsk_ma_test_0d4c8e1f9a7b6c5d4e3f2a1b";
const TIMEOUT_MS = 1_500;
const CONCURRENCY = 4;

describe.each(DB_TARGETS)("live verification through the vendor on %s", (target) => {
  let vendor: FakeCashfreeVerification;
  let env: Started;
  let liveAuth: Record<string, string>;
  let sandboxAuth: Record<string, string>;
  const post = (path: string, body: unknown, auth = liveAuth) => request(env.server.url, path, { method: "POST", body, headers: auth });
  const timed = async (call: Promise<HttpResult>) => {
    const started = performance.now();
    const r = await call;
    return { r, ms: performance.now() - started };
  };
  const expectError = (r: HttpResult, status: number, code: string) => {
    expect(r.status, JSON.stringify(r.json)).toBe(status);
    expect(r.json.error.code).toBe(code);
  };

  beforeAll(async () => {
    vendor = await startFakeCashfreeVerification({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    env = await startFor(target, {
      LIVE_VERIFICATION_PROVIDER: "cashfree",
      CASHFREE_VERIFICATION_BASE_URL: vendor.url,
      CASHFREE_VERIFICATION_CLIENT_ID: CLIENT_ID,
      CASHFREE_VERIFICATION_CLIENT_SECRET: CLIENT_SECRET,
      UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
      UPSTREAM_MAX_CONCURRENCY: String(CONCURRENCY),
      BATCH_RETRY_BUDGET_MS: "2000",
    });
    const m = await createMerchantViaCli(env.server.env, "Live Verifier");
    expect((await cli(env.server.env, ["merchant", "go-live", "--merchant", m.merchantId])).code).toBe(0);
    const key = await cli(env.server.env, ["key", "create", "--merchant", m.merchantId, "--mode", "live", "--json"]);
    expect(key.code, key.stderr).toBe(0);
    liveAuth = { Authorization: `Bearer ${key.json.secretKey}` };
    sandboxAuth = { Authorization: `Bearer ${m.sandbox.secretKey}` };
  }, 90_000);
  afterEach(() => {
    vendor.clear();
    expect(vendor.problems).toEqual([]);
  });
  afterAll(async () => {
    await env?.stop();
    await vendor?.close();
  });

  describe("PAN", () => {
    it("answers the vendor's record in Parakh's shape, scoring the name itself", async () => {
      vendor.panRecords.set("ABCPV1234D", { name: "JOHN RONALD DOE", dob: "1985-02-11" });
      const before = vendor.count("/pan");
      const r = await post("/v1/identity/pan/verify", { pan: "abcpv1234d", name: "John Doe" });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.data).toEqual({
        pan: "ABCPV1234D",
        name: "JOHN RONALD DOE",
        status: "VALID",
        category: "INDIVIDUAL",
        name_match: r.json.data.name_match,
        aadhaar_linked: true,
        aadhaar_seeding_status: "LINKED",
        name_match_result: r.json.data.name_match_result,
        remarks: null,
      });
      // Parakh's own score, not the vendor's "100.00" for this name.
      expect(r.json.data.name_match).toBeGreaterThan(0);
      expect(r.json.data.name_match).toBeLessThan(100);
      expect(vendor.count("/pan")).toBe(before + 1);
      const sent = vendor.requests.at(-1)!;
      expect(sent.body).toEqual({ pan: "ABCPV1234D", name: "John Doe" });
      expect(sent.headers["x-client-id"]).toBe(CLIENT_ID);
      expect(JSON.stringify(r.json)).not.toMatch(/reference_id|21\d{6}/);
    });

    it.each([
      ["INVALID", { status: "INVALID", name: null, aadhaar_seeding_status: "NOT_APPLICABLE", aadhaar_linked: false }],
      ["DEACTIVATED", { status: "DEACTIVATED", name: "ASHA DEVI" }],
      ["DELETED", { status: "DELETED", name: "ASHA DEVI" }],
    ])("maps the vendor's %s status", async (status, expected) => {
      vendor.panRecords.set("BBBPD5678K", { name: "ASHA DEVI", dob: "1970-01-01", status });
      const r = await post("/v1/identity/pan/verify", { pan: "BBBPD5678K" });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.data).toMatchObject(expected);
    });

    it("gives a company's PAN NOT_APPLICABLE seeding, and an individual's unseeded PAN NOT_LINKED", async () => {
      vendor.panRecords.set("AAACR5055K", { name: "RELIANCE RETAIL LIMITED", dob: "1999-01-01", seeding: "NA" });
      vendor.panRecords.set("CCCPR9999Q", { name: "RAVI RAO", dob: "1990-01-01", seeding: "N" });
      expect((await post("/v1/identity/pan/verify", { pan: "AAACR5055K" })).json.data).toMatchObject({
        category: "COMPANY",
        aadhaar_seeding_status: "NOT_APPLICABLE",
      });
      expect((await post("/v1/identity/pan/verify", { pan: "CCCPR9999Q" })).json.data).toMatchObject({
        category: "INDIVIDUAL",
        aadhaar_seeding_status: "NOT_LINKED",
        aadhaar_linked: false,
      });
    });

    it("answers the vendor's rate limit with 503 SOURCE_UNAVAILABLE and the vendor's Retry-After, after retrying", async () => {
      vendor.fail("pan", "429", { retryAfter: "7" });
      const before = vendor.count("/pan");
      const r = await post("/v1/identity/pan/verify", { pan: "ABCPV1234D" });
      expectError(r, 503, "SOURCE_UNAVAILABLE");
      expect(r.headers["retry-after"]).toBe("7");
      // The first try and two retries: a 429 provably did not take effect.
      expect(vendor.count("/pan") - before).toBe(3);
    });

    it("never answers the merchant 401 for Parakh's own credentials at the vendor", async () => {
      vendor.fail("pan", "401");
      const r = await post("/v1/identity/pan/verify", { pan: "ABCPV1234D" });
      expectError(r, 503, "SOURCE_UNAVAILABLE");
      expect(env.server.logs()).toMatch(/"level":"error"[^\n]*(credentials|misconfigured|401)/i);
    });

    it("keeps sandbox calls answering from fixtures while the vendor is down", async () => {
      vendor.fail("pan", "reset");
      const before = vendor.count();
      const r = await post("/v1/identity/pan/verify", { pan: "ABCPK1234F" }, sandboxAuth);
      expect(r.status).toBe(200);
      expect(r.json.data.status).toBe("VALID");
      expect(vendor.count()).toBe(before);
    });

    it("opens the breaker after 5 failures: the next call fails at once without reaching the vendor", async () => {
      vendor.fail("pan", "500");
      for (let i = 0; i < 5; i++) expectError(await post("/v1/identity/pan/verify", { pan: "ABCPV1234D" }), 503, "SOURCE_UNAVAILABLE");
      const before = vendor.count("/pan");
      const { r, ms } = await timed(post("/v1/identity/pan/verify", { pan: "ABCPV1234D" }));
      expectError(r, 503, "SOURCE_UNAVAILABLE");
      expect(Number(r.headers["retry-after"])).toBeGreaterThan(0);
      expect(ms).toBeLessThan(300);
      expect(vendor.count("/pan")).toBe(before);
      // A 500 on a POST may have been processed: never retried, so 5 calls were 5 requests.
      expect(before).toBeGreaterThan(0);
    });
  });

  describe("EPFO", () => {
    it("answers a member by UAN with the latest employment and history newest first", async () => {
      const r = await post("/v1/employment/epfo/verify", { uan: "100200300400" });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const d = r.json.data;
      expect(d).toMatchObject({ uan: "100200300400", member_name: "RAHUL KUMAR SHARMA", member_status: "ACTIVE", date_of_exit: null });
      expect(d.pf_number).toBe("MH/BAN/0006423/000/0054321");
      expect(d.employer).toBe("Cashfree India Private Ltd");
      expect(d.employment_history.map((e: { pf_number: string }) => e.pf_number)).toEqual(["MH/BAN/0006423/000/0054321", "KN/BNG/0012345/000/0012345"]);
      expect(vendor.requests.at(-1)!.body).toMatchObject({ uan: "100200300400" });
    });

    it("answers a UAN the vendor does not know with 404 UAN_NOT_FOUND", async () => {
      vendor.fail("epfo", "not-on-record", { times: 1 });
      expectError(await post("/v1/employment/epfo/verify", { uan: "100200300401" }), 404, "UAN_NOT_FOUND");
    });

    it("refuses a lookup by PF number with 422 LOOKUP_NOT_SUPPORTED, without calling the vendor", async () => {
      const before = vendor.count();
      expectError(await post("/v1/employment/epfo/verify", { pf_number: "MH/BAN/0000064/000/0000123" }), 422, "LOOKUP_NOT_SUPPORTED");
      expect(vendor.count()).toBe(before);
    });

    it.each([
      ["hang", 504, "SOURCE_TIMEOUT"],
      ["trickle", 504, "SOURCE_TIMEOUT"],
      ["huge-body", 502, "UPSTREAM_ERROR"],
      ["malformed-json", 502, "UPSTREAM_ERROR"],
    ] as const)("answers a vendor that %s with %i %s within the deadline", async (fault, status, code) => {
      vendor.fail("epfo", fault);
      const { r, ms } = await timed(post("/v1/employment/epfo/verify", { uan: "100200300400" }));
      expectError(r, status, code);
      expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
      // A success in between keeps the breaker closed for the next fault.
      vendor.clear();
      expect((await post("/v1/employment/epfo/verify", { uan: "100200300400" })).status).toBe(200);
    });

    it("refuses calls past the bulkhead at once with 503, never queueing them", async () => {
      vendor.fail("epfo", "hang");
      const held = Array.from({ length: CONCURRENCY }, () => post("/v1/employment/epfo/verify", { uan: "100200300400" }));
      await new Promise((r) => setTimeout(r, 300));
      const { r, ms } = await timed(post("/v1/employment/epfo/verify", { uan: "100200300400" }));
      expectError(r, 503, "SOURCE_UNAVAILABLE");
      expect(r.headers["retry-after"]).toBeDefined();
      expect(ms).toBeLessThan(300);
      for (const h of await Promise.all(held)) expectError(h, 504, "SOURCE_TIMEOUT");
    });
  });

  describe("batches", () => {
    const pans = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(4, "0")}K`);
    const get = (path: string) => request(env.server.url, path, { headers: liveAuth });
    async function finished(batchId: string) {
      return waitFor(
        `batch ${batchId} to complete`,
        async () => {
          const r = await get(`/v1/identity/pan/batch/${batchId}`);
          return r.json.data.status === "COMPLETED" ? r.json.data : null;
        },
        60_000,
        100,
      );
    }
    async function results(batchId: string) {
      const items: { index: number; result: { pan: string } | null; error: { code: string } | null }[] = [];
      let cursor: string | null = null;
      do {
        const r = await get(`/v1/identity/pan/batch/${batchId}/results?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        expect(r.status).toBe(200);
        items.push(...r.json.data.items);
        cursor = r.json.data.next_cursor;
      } while (cursor);
      return items;
    }

    it("runs a 1,000-PAN live batch through the vendor, every item once", async () => {
      const items = pans("ABCPB", 1000);
      const before = vendor.count("/pan");
      const r = await post("/v1/identity/pan/batch", { items: items.map((pan) => ({ pan })) });
      expect(r.status, JSON.stringify(r.json)).toBe(202);
      const done = await finished(r.json.data.batch_id);
      const got = await results(r.json.data.batch_id);
      expect(done).toMatchObject({ total: 1000, processed: 1000, succeeded: 1000, failed: 0 });
      expect(got.map((i) => i.result?.pan)).toEqual(items);
      // Each PAN reached the vendor once: bulkhead refusals are retried by the batch, never sent twice.
      const sent = vendor.requests.slice(before).map((q) => q.body.pan as string);
      expect(sent.length).toBe(1000);
      expect(new Set(sent).size).toBe(1000);
    });

    it("ends the items a vendor outage catches with SOURCE_UNAVAILABLE after the retry budget, losing none", async () => {
      const items = pans("ABCPC", 1000);
      const before = vendor.count("/pan");
      const r = await post("/v1/identity/pan/batch", { items: items.map((pan) => ({ pan })) });
      expect(r.status).toBe(202);
      // The outage begins once the vendor has answered 200 of them.
      await waitFor("the batch to be under way", async () => (vendor.count("/pan") - before >= 200 ? true : null), 30_000, 1);
      vendor.fail("pan", "503");
      const done = await finished(r.json.data.batch_id);
      const got = await results(r.json.data.batch_id);
      expect(got.map((i) => i.index)).toEqual(items.map((_, i) => i));
      const failed = got.filter((i) => i.error !== null);
      expect(failed.length).toBeGreaterThan(0);
      for (const i of failed) expect(i.error!.code).toBe("SOURCE_UNAVAILABLE");
      expect(done.succeeded + done.failed).toBe(1000);
      expect(done.failed).toBe(failed.length);
      expect(done.succeeded).toBeGreaterThanOrEqual(200);
    });
  });

  it("keeps the vendor's client secret out of the log and the database", async () => {
    expect(env.server.logs()).not.toContain(CLIENT_SECRET);
    if (target === "sqlite") {
      const file = env.server.databaseUrl.replace(/^file:/, "");
      for (const f of [file, `${file}-wal`]) if (fs.existsSync(f)) expect(fs.readFileSync(f).includes(CLIENT_SECRET)).toBe(false);
    }
  });
});
