import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { CHUNK_SIZES } from "@/server/services/batches/batches";
import { request } from "../helpers/http";
import { createMerchantViaCli, startServer, type MerchantFixture, type TestServer } from "../helpers/server";
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

  async function submit(server: TestServer, m: MerchantFixture, body: unknown) {
    const r = await request(server.url, "/v1/identity/pan/batch", { method: "POST", body, headers: bearer(m) });
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

  it("does not make another merchant wait: a 1-item batch finishes within 5 s while a 10,000-item one runs", async () => {
    // One instance, as a merchant would run it: the earlier tests' instances stop first.
    for (const s of servers.filter((s) => s !== first)) await s.stop("SIGKILL");
    const big = await submit(first, a, { items: items(10_000) });
    const started = Date.now();
    const small = await submit(first, b, { items: [{ pan: "ABCPK1234F" }] });
    await waitFor(
      "the 1-item batch",
      async () => (await request(first.url, `/v1/identity/pan/batch/${small}`, { headers: bearer(b) })).json.data.status === "COMPLETED",
      5_000,
      50,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    // It went ahead of the big one rather than after it.
    const smallDone = (await request(first.url, `/v1/identity/pan/batch/${small}`, { headers: bearer(b) })).json.data;
    const bigDone = await waitFor(
      "the 10,000-item batch",
      async () => {
        const r = (await request(first.url, `/v1/identity/pan/batch/${big}`, { headers: bearer(a) })).json.data;
        return r.status === "COMPLETED" ? r : null;
      },
      60_000,
      200,
    );
    expect(Date.parse(smallDone.completed_at)).toBeLessThan(Date.parse(bigDone.completed_at));
    await expectExactlyOnce(first, a, big, items(10_000));
  });
});
