import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { CHUNK_SIZES, LIVE_PAN_CHUNK_SIZE, WORKERS_PER_BATCH } from "@/server/services/batches/batches";
import { startFakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { request } from "../helpers/http";
import { approveLiveViaCli, createMerchantViaCli, startServer, type MerchantFixture, type TestServer, attestConsent } from "../helpers/server";
import { startPostgres, type PostgresCluster } from "../helpers/postgres";
import { DB_TARGETS, type DbTarget } from "../helpers/targets";
import { waitFor } from "../helpers/wait";

/** PANs that answer, except every 100th from `slowFrom` on: serial 9998, a 503 retried for the whole budget. */
function items(n: number, slowFrom = Infinity) {
  return Array.from({ length: n }, (_, i) => ({
    pan: i >= slowFrom && i % 100 === 50 ? "ABCPK9998F" : `ABCPK${String(1000 + (i % 8000)).padStart(4, "0")}F`,
    reference_id: `r${i}`,
  }));
}

const FAST = { JOB_LEASE_MS: "2000", BATCH_RETRY_BUDGET_MS: "4000" };

// Each case starts up to four server instances: on two busy cores that alone can take a minute.
vi.setConfig({ testTimeout: 240_000 });

describe.each(DB_TARGETS)("batches that outlive a process on %s", (target: DbTarget) => {
  let pg: PostgresCluster | undefined;
  let first: TestServer;
  let db: Db;
  let a: MerchantFixture;
  let b: MerchantFixture;
  const servers: TestServer[] = [];
  const bearer = (m: MerchantFixture) => ({ Authorization: `Bearer ${m.sandbox.secretKey}` });

  /** Another instance on the same database and data folder (same secrets). */
  async function instance(env: Record<string, string> = {}) {
    const s = await startServer({ databaseUrl: first.databaseUrl, env: { ...FAST, DATA_DIR: first.dataDir, ...env } });
    servers.push(s);
    return s;
  }

  async function submit(server: TestServer, m: MerchantFixture, body: unknown, auth = bearer(m)) {
    const r = await request(server.url, "/v1/identity/pan/batch", { method: "POST", body, headers: auth });
    expect(r.status).toBe(202);
    return r.json.data.batch_id as string;
  }

  /** Every item once, in order, with the outcome its PAN gives; and one verification per item. */
  async function expectExactlyOnce(server: TestServer, m: MerchantFixture, batchId: string, submitted: { pan: string }[]) {
    const status = await request(server.url, `/v1/identity/pan/batch/${batchId}`, { headers: bearer(m) });
    expect(status.json.data).toMatchObject({ status: "COMPLETED", total: submitted.length, processed: submitted.length });
    const seen: { index: number; error: { code: string } | null; result: { pan: string } | null }[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const page = await request(server.url, `/v1/identity/pan/batch/${batchId}/results?limit=1000${q}`, { headers: bearer(m) });
      seen.push(...page.json.data.items);
      cursor = page.json.data.next_cursor;
    } while (cursor);
    expect(seen.map((s) => s.index)).toEqual(submitted.map((_, i) => i));
    seen.forEach((s, i) => {
      if (submitted[i]!.pan.includes("9998")) expect(s.error?.code).toBe("SOURCE_UNAVAILABLE");
      else expect(s.result?.pan).toBe(submitted[i]!.pan);
    });
    expect(await db.verification.count({ where: { batchId } })).toBe(submitted.length);
    expect(await db.batchChunk.count({ where: { batchId, status: { not: "DONE" } } })).toBe(0);
  }

  beforeAll(async () => {
    pg = target === "postgresql" ? await startPostgres({ migrated: true }) : undefined;
    first = await startServer({ databaseUrl: pg?.url, env: FAST });
    servers.push(first);
    db = createPrismaClient(first.databaseUrl);
    a = await createMerchantViaCli(first.env, "Durable A");
    b = await createMerchantViaCli(first.env, "Durable B");
  });
  afterAll(async () => {
    await db?.$disconnect();
    for (const s of servers) await s.stop("SIGKILL").catch(() => undefined);
    await pg?.stop();
  });

  it("finishes a batch whose process was killed with SIGKILL mid-batch, every item exactly once", async () => {
    const victim = await instance();
    // The last chunks hold a 503 item each, so they wait out the retry budget: the kill lands mid-batch.
    const submitted = items(10_000, 7_000);
    const batchId = await submit(victim, a, { items: submitted });
    const fastChunks = Math.floor(7_000 / CHUNK_SIZES.sandbox);
    const someDone = Math.ceil(fastChunks * 0.7);
    await waitFor("some chunks done", async () => (await db.batchChunk.count({ where: { batchId, status: "DONE" } })) >= someDone, 30_000, 20);
    expect(await db.batchChunk.count({ where: { batchId, status: { not: "DONE" } } })).toBeGreaterThan(0);
    await victim.stop("SIGKILL");
    const survivor = await instance();
    await waitFor(
      "the batch to complete on the restarted instance",
      async () => (await request(survivor.url, `/v1/identity/pan/batch/${batchId}`, { headers: bearer(a) })).json.data.status === "COMPLETED",
      60_000,
      200,
    );
    await expectExactlyOnce(survivor, a, batchId, submitted);
  });

  it("lets two instances work one batch, and an instance without workers hand it to the other", async () => {
    const one = await instance();
    const two = await instance();
    const submitted = items(10_000);
    const shared = await submit(one, a, { items: submitted });
    const front = await instance({ JOBS_ENABLED: "false" });
    const handedOver = await submit(front, b, { items: items(300) });
    for (const [id, m] of [
      [shared, a],
      [handedOver, b],
    ] as const) {
      await waitFor(
        `batch ${id}`,
        async () => (await request(two.url, `/v1/identity/pan/batch/${id}`, { headers: bearer(m) })).json.data.status === "COMPLETED",
        60_000,
        200,
      );
    }
    await expectExactlyOnce(two, a, shared, submitted);
    await expectExactlyOnce(one, b, handedOver, items(300));
  });

  it("does not make another merchant wait: a 1-item batch finishes while every worker of a live batch waits on the vendor", async () => {
    // One instance, as a merchant would run it, whose live source keeps every PAN answer until released:
    // the live batch's workers hold their runner slots all that time (no timeout, no breaker, in 60 s).
    for (const s of servers) await s.stop("SIGKILL");
    const vendor = await startFakeCashfreeVerification({ clientId: "CF_DURABLE_CLIENT", clientSecret: "cfsk_ma_test_durable_4d5e" });
    try {
      const one = await instance({
        LIVE_VERIFICATION_PROVIDER: "cashfree",
        CASHFREE_VERIFICATION_BASE_URL: vendor.url,
        CASHFREE_VERIFICATION_CLIENT_ID: "CF_DURABLE_CLIENT",
        CASHFREE_VERIFICATION_CLIENT_SECRET: "cfsk_ma_test_durable_4d5e",
        UPSTREAM_TIMEOUT_MS: "60000",
      });
      const liveKey = await approveLiveViaCli(one.env, a.merchantId);
      await attestConsent(one.databaseUrl, a.merchantId);
      const live = { Authorization: `Bearer ${liveKey.secretKey}` };
      const pans = Array.from({ length: (WORKERS_PER_BATCH + 1) * LIVE_PAN_CHUNK_SIZE }, (_, i) => `ABCPD${String(i + 1).padStart(4, "0")}K`);
      const release = vendor.hold("pan");
      let big: string;
      try {
        big = await submit(one, a, { items: pans.map((pan) => ({ pan })) }, live);
        await waitFor(
          "every worker of the live batch to wait on the vendor",
          async () => (await db.batchChunk.count({ where: { batchId: big, status: "RUNNING" } })) === WORKERS_PER_BATCH,
          30_000,
          20,
        );
        // The vendor holds every live answer until release (below): a 1-item batch that waited behind
        // the live one would not finish at all. 30 s is for a busy machine; idle, it takes milliseconds.
        const small = await submit(one, b, { items: [{ pan: "ABCPK1234F" }] });
        await waitFor(
          "the 1-item batch",
          async () => (await request(one.url, `/v1/identity/pan/batch/${small}`, { headers: bearer(b) })).json.data.status === "COMPLETED",
          30_000,
          50,
        );
        // It went ahead of the live one, which still waits.
        expect((await request(one.url, `/v1/identity/pan/batch/${big}`, { headers: live })).json.data.status).toBe("PROCESSING");
      } finally {
        release();
      }
      const done = await waitFor(
        "the live batch",
        async () => {
          const r = (await request(one.url, `/v1/identity/pan/batch/${big}`, { headers: live })).json.data;
          return r.status === "COMPLETED" ? r : null;
        },
        60_000,
        100,
      );
      expect(done).toMatchObject({ total: pans.length, processed: pans.length, succeeded: pans.length });
      // Each PAN reached the vendor once, waiting or not: a chunk's bulk request each.
      const bulk = vendor.requests.filter((q) => q.method === "POST" && q.path === "/pan/bulk");
      expect(bulk).toHaveLength(WORKERS_PER_BATCH + 1);
      expect(
        [
          ...bulk.flatMap((q) => (q.body.entries as { pan: string }[]).map((e) => e.pan)),
          ...vendor.requests.filter((q) => q.path === "/pan").map((q) => q.body.pan),
        ].sort(),
      ).toEqual(pans);
      expect(vendor.problems).toEqual([]);
    } finally {
      await vendor.close();
    }
  });
});
