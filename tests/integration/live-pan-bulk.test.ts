import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { startFakeCashfreeVerification, type FakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { request } from "../helpers/http";
import { startPostgres, type PostgresCluster } from "../helpers/postgres";
import { approveLiveViaCli, createMerchantViaCli, startServer, type TestServer, attestConsent } from "../helpers/server";
import { DB_TARGETS, type DbTarget } from "../helpers/targets";
import { waitFor } from "../helpers/wait";

// Live PAN batches through the vendor's bulk PAN verification, against the loopback fake of the
// vendor (which checks every request and answer against the vendor's OpenAPI description and takes
// each bulk request once). Items the bulk answer does not give run as single calls.
const CLIENT_ID = "CF_BULK_CLIENT_5520";
const CLIENT_SECRET = "cfsk_ma_test_bulk_9e8d7c6b5a";
const LIVE = {
  LIVE_VERIFICATION_PROVIDER: "cashfree",
  CASHFREE_VERIFICATION_CLIENT_ID: CLIENT_ID,
  CASHFREE_VERIFICATION_CLIENT_SECRET: CLIENT_SECRET,
  UPSTREAM_TIMEOUT_MS: "2000",
  BATCH_RETRY_BUDGET_MS: "2000",
  JOB_LEASE_MS: "2000",
  // A bulk request unanswered this long sends its items to single calls.
  BATCH_BULK_POLL_LIMIT_MS: "6000",
};

vi.setConfig({ testTimeout: 180_000 });

type Item = { pan: string; name?: string };
type ResultItem = { index: number; result: Record<string, unknown> | null; error: { code: string } | null };

describe.each(DB_TARGETS)("live PAN batches through the vendor's bulk verification on %s", (target: DbTarget) => {
  let pg: PostgresCluster | undefined;
  let vendor: FakeCashfreeVerification;
  let server: TestServer;
  let db: Db;
  let merchantId: string;
  let live: Record<string, string>;
  const servers: TestServer[] = [];

  async function instance(env: Record<string, string> = {}) {
    const s = await startServer({
      databaseUrl: pg?.url ?? server?.databaseUrl,
      env: { ...LIVE, CASHFREE_VERIFICATION_BASE_URL: vendor.url, ...(server ? { DATA_DIR: server.dataDir } : {}), ...env },
    });
    servers.push(s);
    return s;
  }

  const bulkPosts = (since = 0) => vendor.requests.slice(since).filter((q) => q.method === "POST" && q.path === "/pan/bulk");
  const singles = (since = 0) =>
    vendor.requests
      .slice(since)
      .filter((q) => q.path === "/pan")
      .map((q) => q.body.pan as string);

  async function submit(items: Item[], on = server) {
    const r = await request(on.url, "/v1/identity/pan/batch", { method: "POST", body: { items }, headers: live });
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    return r.json.data.batch_id as string;
  }

  async function finished(batchId: string, on = server) {
    return waitFor(
      `batch ${batchId} to complete`,
      async () => {
        const r = await request(on.url, `/v1/identity/pan/batch/${batchId}`, { headers: live });
        return r.json.data.status === "COMPLETED" ? r.json.data : null;
      },
      90_000,
      100,
    );
  }

  async function results(batchId: string, on = server): Promise<ResultItem[]> {
    const items: ResultItem[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const r = await request(on.url, `/v1/identity/pan/batch/${batchId}/results?limit=1000${q}`, { headers: live });
      expect(r.status).toBe(200);
      items.push(...r.json.data.items);
      cursor = r.json.data.next_cursor;
    } while (cursor);
    return items;
  }

  /** Every item once, in order, answered (no error), and one verification row per item. */
  async function expectAnswered(batchId: string, items: Item[], on = server) {
    const done = await finished(batchId, on);
    expect(done).toMatchObject({ total: items.length, processed: items.length, succeeded: items.length, failed: 0 });
    const got = await results(batchId, on);
    expect(got.map((i) => i.index)).toEqual(items.map((_, i) => i));
    got.forEach((g, i) => {
      expect(g.error).toBeNull();
      expect(g.result?.pan).toBe(items[i]!.pan);
    });
    expect(await db.verification.count({ where: { batchId } })).toBe(items.length);
    return got;
  }

  const pans = (prefix: string, n: number): Item[] => Array.from({ length: n }, (_, i) => ({ pan: `${prefix}${String(i + 1).padStart(4, "0")}K` }));

  beforeAll(async () => {
    vendor = await startFakeCashfreeVerification({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    pg = target === "postgresql" ? await startPostgres({ migrated: true }) : undefined;
    server = await instance();
    db = createPrismaClient(server.databaseUrl);
    const m = await createMerchantViaCli(server.env, "Bulk Verifier");
    merchantId = m.merchantId;
    live = { Authorization: `Bearer ${(await approveLiveViaCli(server.env, m.merchantId)).secretKey}` };
    await attestConsent(server.databaseUrl, m.merchantId);
  }, 120_000);
  afterEach(() => {
    vendor.bulkDelayMs = 0;
    vendor.bulkHeld = false;
    vendor.bulkLeftOut.clear();
    vendor.bulkFailed.clear();
    vendor.clear();
    expect(vendor.problems).toEqual([]);
  });
  afterAll(async () => {
    await db?.$disconnect();
    for (const s of servers) await s.stop("SIGKILL").catch(() => undefined);
    await pg?.stop();
    await vendor?.close();
  });

  it("answers a few hundred PANs with one bulk request, read back until done, every result what a single call gives (EPFO: single calls)", async () => {
    // Outcomes of every kind, names or none: the vendor's records as its single call answers them.
    const items: Item[] = Array.from({ length: 300 }, (_, i) => {
      const pan = `${["ABCP", "AAAC", "AABF"][i % 3]}${"QRSTU"[i % 5]}${String(i + 1).padStart(4, "0")}${"KLM"[i % 3]}`;
      return i % 4 === 0 ? { pan } : { pan, name: ["Rahul Sharma", "R K Sharma", "Meera Nair", "Acme Traders"][i % 4]! };
    });
    items.forEach(({ pan }, i) => {
      if (i % 7 === 0) vendor.panRecords.set(pan, { name: "X", dob: "1990-01-01", status: "INVALID" });
      else if (i % 11 === 0) vendor.panRecords.set(pan, { name: "OLD HOLDINGS", dob: "1990-01-01", status: "DEACTIVATED", seeding: "R" });
      else if (i % 13 === 0) vendor.panRecords.set(pan, { name: "RAHUL KUMAR SHARMA", dob: "1990-01-01", seeding: "NA" });
    });
    vendor.bulkDelayMs = 2_500;
    const before = vendor.requests.length;
    const batchId = await submit(items);
    const got = await expectAnswered(batchId, items);
    // One request for the batch, read back while "being processed", and no single call.
    expect(bulkPosts(before)).toHaveLength(1);
    expect(bulkPosts(before)[0]!.body.entries).toHaveLength(300);
    expect([...vendor.bulks.values()].at(-1)!.reads).toBeGreaterThanOrEqual(2);
    expect(singles(before)).toEqual([]);

    // The same items as single calls: the same answers, and the same history rows.
    const batchRows = await db.verification.findMany({ where: { batchId }, orderBy: { subject: "asc" } });
    const requestIds: string[] = [];
    for (const [i, item] of items.entries()) {
      const requestId = `req_bulk_single_${target}_${i}`;
      requestIds.push(requestId);
      const r = await request(server.url, "/v1/identity/pan/verify", { method: "POST", body: item, headers: { ...live, "x-request-id": requestId } });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(got[i]!.result, item.pan).toEqual(r.json.data);
    }
    expect(singles(before)).toHaveLength(300);
    const singleRows = await db.verification.findMany({ where: { requestId: { in: requestIds } }, orderBy: { subject: "asc" } });
    const shape = (v: (typeof batchRows)[number]) => [v.subject, v.nameQueried, v.outcome, v.nameMatch, v.sourceNameMatch, v.vendor, v.errorCode];
    expect(batchRows.map(shape)).toEqual(singleRows.map(shape));
    // Every row names the vendor that answered it (the bulk answer's, C6).
    expect(new Set(batchRows.map((v) => v.vendor))).toEqual(new Set(["cashfree"]));
    // Some outcomes of each kind were met.
    expect(new Set(got.map((g) => g.result!.status))).toEqual(new Set(["VALID", "INVALID", "DEACTIVATED"]));
    // PAN checks are not charged to the wallet, in bulk or not.
    const wallet = await db.wallet.findFirst({ where: { merchantId, mode: "live" } });
    expect(wallet?.balancePaise ?? 0).toBe(0);

    // An EPFO batch stays on single calls: the vendor has no bulk employment lookup.
    const epfoFrom = vendor.requests.length;
    const r = await request(server.url, "/v1/employment/epfo/batch", {
      method: "POST",
      body: { items: [{ uan: "100200300400" }, { uan: "100200300401" }, { uan: "100200300402" }] },
      headers: live,
    });
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    await waitFor(
      "the EPFO batch",
      async () => (await request(server.url, `/v1/employment/epfo/batch/${r.json.data.batch_id}`, { headers: live })).json.data.status === "COMPLETED",
      60_000,
      100,
    );
    expect(vendor.requests.slice(epfoFrom).map((q) => q.path)).toEqual(Array(3).fill("/advance-employment"));
  });

  it("runs the entries the bulk answer leaves out or fails as single calls, each once", async () => {
    const items = pans("ABCPL", 200);
    const leftOut = items.filter((_, i) => i % 40 === 3).map((i) => i.pan);
    const failed = items.filter((_, i) => i % 40 === 17).map((i) => i.pan);
    for (const pan of leftOut) vendor.bulkLeftOut.add(pan);
    for (const pan of failed) vendor.bulkFailed.add(pan);
    const before = vendor.requests.length;
    await expectAnswered(await submit(items), items);
    expect(bulkPosts(before)).toHaveLength(1);
    expect(singles(before).sort()).toEqual([...leftOut, ...failed].sort());
  });

  it("a 500 on the submission: reads the request back, and sends its items as single calls only when the vendor does not hold it", async () => {
    // The vendor failed before taking it.
    let items = pans("ABCPM", 150);
    let before = vendor.requests.length;
    vendor.fail("pan", "500", { times: 1 });
    await expectAnswered(await submit(items), items);
    expect(bulkPosts(before)).toHaveLength(1);
    expect(singles(before).sort()).toEqual(items.map((i) => i.pan).sort());
    // The vendor took it, and its answer was lost: read back, it answers; nothing is sent twice.
    items = pans("ABCPN", 150);
    before = vendor.requests.length;
    vendor.fail("pan", "lost-answer", { times: 1 });
    await expectAnswered(await submit(items), items);
    expect(bulkPosts(before)).toHaveLength(1);
    expect(singles(before)).toEqual([]);
  });

  it("sends the items of a bulk request unanswered past the limit as single calls", async () => {
    const items = pans("ABCPW", 100);
    vendor.bulkHeld = true;
    const before = vendor.requests.length;
    await expectAnswered(await submit(items), items);
    expect(bulkPosts(before)).toHaveLength(1);
    expect(singles(before).sort()).toEqual(items.map((i) => i.pan).sort());
  });

  it("completes a 10,000-PAN batch in ten bulk requests (the time is printed, not asserted)", async () => {
    const items: Item[] = Array.from({ length: 10_000 }, (_, i) => ({ pan: `ABCP${i < 5_000 ? "T" : "V"}${String((i % 5_000) + 1).padStart(4, "0")}K` }));
    vendor.bulkDelayMs = 3_000;
    const before = vendor.requests.length;
    const started = performance.now();
    const batchId = await submit(items);
    const stored = performance.now() - started;
    await finished(batchId);
    const ms = performance.now() - started;
    const posts = bulkPosts(before).map((q) => q.at - started);
    console.log(
      `[measure] ${target}: a 10,000-PAN live batch, vendor's bulk time ${vendor.bulkDelayMs} ms: completed ${Math.round(ms)} ms after submission ` +
        `(its 202 after ${Math.round(stored)} ms, the bulk requests sent ${Math.round(Math.min(...posts))}–${Math.round(Math.max(...posts))} ms after it)`,
    );
    await expectAnswered(batchId, items);
    expect(bulkPosts(before)).toHaveLength(10);
    expect(singles(before)).toEqual([]);
  });

  // Last: it replaces the server.
  it("resumes reading the same bulk request after a restart mid-poll, never sending it again", async () => {
    // A limit no busy machine reaches: the restart, not the limit, is what this test is about.
    const patient = { BATCH_BULK_POLL_LIMIT_MS: "120000" };
    await server.stop();
    server = await instance(patient);
    const items = pans("ABCPR", 2_500);
    vendor.bulkHeld = true;
    const before = vendor.requests.length;
    const batchId = await submit(items);
    // Three chunks, each one bulk request, read back while the vendor works on them.
    await waitFor(
      "every chunk's bulk request to be read back",
      async () => bulkPosts(before).length === 3 && [...vendor.bulks.values()].slice(-3).every((b) => b.reads >= 1),
      60_000,
      50,
    );
    const stored = await db.batchChunk.findMany({ where: { batchId }, select: { bulk: true }, orderBy: { seq: "asc" } });
    const ids = stored.map((c) => (JSON.parse(c.bulk!) as { id: string }).id);
    expect(ids.sort()).toEqual(
      bulkPosts(before)
        .map((q) => q.body.bulk_verification_id as string)
        .sort(),
    );
    await server.stop("SIGKILL");
    server = await instance(patient);
    vendor.bulkHeld = false;
    await expectAnswered(batchId, items);
    // The restarted server read the same requests back: none sent again, no item sent singly.
    expect(bulkPosts(before)).toHaveLength(3);
    expect(singles(before)).toEqual([]);
  });
});
