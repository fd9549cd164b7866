import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { sqliteFilePath } from "@/server/db/provider";
import { sqliteWriteTurns, type WriteTurns } from "@/server/db/sqlite-hot";
import { AppError } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { CHUNK_SIZES, createBatch, getBatch, listBatches, listBatchResults, purgeExpiredBatches, type SubmittedItem } from "@/server/services/batches/batches";
import { getDashboardBatch } from "@/server/services/batches/dashboard";
import { openTestDatabase } from "../helpers/test-db";
import { DB_TARGETS } from "../helpers/targets";

// On SQLite a new batch is stored in pieces, each committed when another writer waits for the one
// write lock. Here another writer asks for it at every round of the event loop: at each of its
// turns it looks at the database through its own connection and through the services.

const ITEMS = 10_000;
/** Sandbox chunks at the store's size for sandbox. */
const CHUNKS = ITEMS / CHUNK_SIZES.sandbox;
const items = (n: number): SubmittedItem[] =>
  Array.from({ length: n }, (_, i) => ({
    reference_id: `r${i}`,
    input: { pan: `ABCPK${String(1000 + (i % 8000)).padStart(4, "0")}F`, name: null },
    error: null,
  }));

interface Look {
  status: string;
  chunks: number;
  /** What the API's status call answers: the batch's status, or the error code. */
  api: string;
  dashboard: string;
  listed: number;
}

describe.each(DB_TARGETS.filter((t) => t === "sqlite"))("storing a big batch in pieces on %s", (target) => {
  let db: Db;
  let raw: Database.Database;
  let turns: WriteTurns;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const database = await openTestDatabase(target, "parakh-pieces-");
    const { createPrismaClient } = await import("@/server/db/client");
    db = createPrismaClient(database.url);
    raw = new Database(sqliteFilePath(database.url));
    turns = sqliteWriteTurns(sqliteFilePath(database.url));
    stop = database.stop;
  });
  afterAll(async () => {
    raw?.close();
    await db?.$disconnect();
    await stop?.();
  });

  async function newMerchant() {
    const id = newId("mer");
    await db.merchant.create({ data: { id, name: "Pieces", email: `${id}@example.com`, passwordHash: "x" } });
    return id;
  }

  const submit = (merchantId: string, perDay = 10_000_000) =>
    createBatch(
      db,
      { merchantId, mode: "sandbox", kind: "PAN", requestId: newId("req"), apiKeyId: null, webhookUrl: null, clientBatchId: null, items: items(ITEMS) },
      { sandboxItemsPerDay: perDay },
    );
  const code = (err: unknown) => (err instanceof AppError ? err.code : String(err));

  /**
   * Runs `creating` while another writer comes back for the write lock at every round of the event
   * loop, as a single call's audit record would; at each of its turns, `look` sees the database as
   * it is between two pieces.
   */
  async function alongside<T>(creating: Promise<T>, look: () => Promise<void>): Promise<PromiseSettledResult<T>> {
    let settled: PromiseSettledResult<T> | null = null;
    const done = creating.then(
      (value) => (settled = { status: "fulfilled", value }),
      (reason: unknown) => (settled = { status: "rejected", reason }),
    );
    while (!settled) {
      const release = (await turns.take())!;
      try {
        await look();
      } finally {
        release();
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
    return settled;
  }

  it("commits a 10,000-item batch a few chunks at a time, and no reader finds it before it is whole", async () => {
    const merchantId = await newMerchant();
    const looks: Look[] = [];
    const look = async () => {
      const row = raw.prepare(`SELECT "id", "status" FROM "Batch" WHERE "merchantId" = ?`).get(merchantId) as { id: string; status: string } | undefined;
      if (!row) return;
      const { n } = raw.prepare(`SELECT count(*) AS n FROM "BatchChunk" WHERE "batchId" = ?`).get(row.id) as { n: number };
      looks.push({
        status: row.status,
        chunks: n,
        api: await getBatch(db, merchantId, "sandbox", "PAN", row.id).then((b) => b.status, code),
        dashboard: await getDashboardBatch(db, merchantId, "sandbox", row.id, 30_000).then((d) => d.batch.status, code),
        listed: (await listBatches(db, merchantId, "sandbox", { limit: 10 })).length,
      });
    };
    const result = await alongside(submit(merchantId), look);
    expect(result.status).toBe("fulfilled");
    const view = (result as PromiseFulfilledResult<Awaited<ReturnType<typeof submit>>>).value;
    await look();

    // Stored in many pieces, each committed on its own (the other connection saw the chunks grow).
    const partial = looks.filter((l) => l.chunks < CHUNKS);
    const counts = partial.map((l) => l.chunks);
    expect(new Set(counts).size).toBeGreaterThanOrEqual(Math.min(10, CHUNKS / 2));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    // Until whole, nobody finds it: not the API, not the dashboard, not the list.
    for (const l of partial) expect(l).toMatchObject({ api: "BATCH_NOT_FOUND", dashboard: "BATCH_NOT_FOUND", listed: 0 });
    // Whenever anyone finds it, it is whole and queued.
    for (const l of looks.filter((l) => l.api !== "BATCH_NOT_FOUND" || l.listed > 0)) expect(l).toMatchObject({ status: "QUEUED", chunks: CHUNKS });
    expect(looks.at(-1)).toEqual({ status: "QUEUED", chunks: CHUNKS, api: "QUEUED", dashboard: "QUEUED", listed: 1 });
    expect(view).toMatchObject({ batch_id: expect.any(String), status: "QUEUED", total: ITEMS, accepted: ITEMS, rejected: 0 });
    // Its workers' jobs came with its last piece, and every item is there to page through.
    expect(await db.job.count({ where: { payload: { contains: view.batch_id } } })).toBe(3);
    const page = await listBatchResults(db, { merchantId, mode: "sandbox", kind: "PAN", batchId: view.batch_id }, ITEMS - 3, 10);
    expect(page.items.map((i) => i.reference_id)).toEqual([`r${ITEMS - 3}`, `r${ITEMS - 2}`, `r${ITEMS - 1}`]);
  });

  it("leaves nothing behind when a later piece fails, and the failed batch does not count against the day's allowance", async () => {
    const merchantId = await newMerchant();
    let planted = false;
    const result = await alongside(submit(merchantId, ITEMS), async () => {
      const row = raw.prepare(`SELECT "id" FROM "Batch" WHERE "merchantId" = ?`).get(merchantId) as { id: string } | undefined;
      if (!row || planted) return;
      // Halfway, a row in the place of the batch's next chunk: that piece's insert fails.
      const { n } = raw.prepare(`SELECT count(*) AS n FROM "BatchChunk" WHERE "batchId" = ?`).get(row.id) as { n: number };
      if (n < CHUNKS / 2) return;
      raw
        .prepare(`INSERT INTO "BatchChunk" ("id", "batchId", "seq", "status", "availableAt") VALUES (?, ?, ?, 'DONE', '1970-01-01T00:00:00.000+00:00')`)
        .run(`${row.id}_${n}`, row.id, n);
      planted = true;
    });
    expect(planted).toBe(true);
    expect(result.status).toBe("rejected");
    expect(raw.prepare(`SELECT count(*) AS n FROM "Batch" WHERE "merchantId" = ?`).get(merchantId)).toEqual({ n: 0 });
    expect(raw.prepare(`SELECT count(*) AS n FROM "BatchChunk" WHERE "batchId" LIKE 'batch_%' AND "batchId" NOT IN (SELECT "id" FROM "Batch")`).get()).toEqual({
      n: 0,
    });
    expect(raw.prepare(`SELECT count(*) AS n FROM "BatchChunkItems" WHERE "chunkId" NOT IN (SELECT "id" FROM "BatchChunk")`).get()).toEqual({ n: 0 });
    // The whole allowance is still there for the next batch.
    await expect(submit(merchantId, ITEMS)).resolves.toMatchObject({ status: "QUEUED", total: ITEMS });
  });
});

describe.each(DB_TARGETS.filter((t) => t === "postgresql"))("storing a batch on %s", (target) => {
  let db: Db;
  let raw: pg.Client;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const database = await openTestDatabase(target, "parakh-pieces-pg-");
    const { createPrismaClient } = await import("@/server/db/client");
    db = createPrismaClient(database.url);
    raw = new pg.Client({ connectionString: database.url });
    await raw.connect();
    stop = database.stop;
  });
  afterAll(async () => {
    await raw?.end();
    await db?.$disconnect();
    await stop?.();
  });

  async function newMerchant() {
    const id = newId("mer");
    await db.merchant.create({ data: { id, name: "Pieces PG", email: `${id}@example.com`, passwordHash: "x" } });
    return id;
  }
  const submit = (merchantId: string, submitted: SubmittedItem[], perDay = 10_000_000) =>
    createBatch(
      db,
      { merchantId, mode: "sandbox", kind: "PAN", requestId: newId("req"), apiKeyId: null, webhookUrl: null, clientBatchId: null, items: submitted },
      { sandboxItemsPerDay: perDay },
    );

  it("stores each chunk's row and items as submitted, read back with plain SQL", async () => {
    const merchantId = await newMerchant();
    // Two chunks to run, and a third of rejected items only, done from the start.
    const rejected = { code: "INVALID_PAN" as const, message: "pan: bad" };
    const submitted: SubmittedItem[] = [
      ...items(2000),
      ...Array.from({ length: 500 }, (_, i) => ({ reference_id: `x${i}`, input: { pan: "NOPE" }, error: rejected })),
    ];
    const view = await submit(merchantId, submitted);
    const { rows: batches } = await raw.query(`SELECT "status", "createdAt" FROM "Batch" WHERE "id" = $1`, [view.batch_id]);
    expect(batches).toEqual([{ status: "QUEUED", createdAt: expect.any(Date) }]);
    const { rows: chunks } = await raw.query(
      `SELECT c."id", c."seq", c."status", c."results", c."availableAt", c."completedAt", c."leaseToken", c."passes", i."items"
       FROM "BatchChunk" c JOIN "BatchChunkItems" i ON i."chunkId" = c."id" WHERE c."batchId" = $1 ORDER BY c."seq"`,
      [view.batch_id],
    );
    const createdAt = batches[0].createdAt as Date;
    expect(chunks.map((c) => [c.id, c.seq, c.status, c.availableAt, c.completedAt, c.leaseToken, c.passes])).toEqual([
      [`${view.batch_id}_0`, 0, "PENDING", createdAt, null, null, 0],
      [`${view.batch_id}_1`, 1, "PENDING", createdAt, null, null, 0],
      [`${view.batch_id}_2`, 2, "DONE", createdAt, createdAt, null, 0],
    ]);
    // Every item once, in order, with its index; outcomes only for the rejected ones.
    expect(chunks.flatMap((c) => JSON.parse(c.items as string))).toEqual(submitted.map((item, index) => ({ index, ...item })));
    expect(chunks.flatMap((c) => JSON.parse(c.results as string))).toEqual(submitted.map((item) => (item.error ? { result: null, error: rejected } : null)));
    // Its two workers' jobs, due now, and the answer is the batch as stored.
    const { rows: jobs } = await raw.query(
      `SELECT "type", "payload", "status", "runAt", "attempts", "maxAttempts", "subjectId", "createdAt" = "updatedAt" AS "fresh" FROM "Job" WHERE "subjectId" = $1`,
      [view.batch_id],
    );
    const job = { type: "batch.work", payload: JSON.stringify({ batchId: view.batch_id }), status: "QUEUED", runAt: createdAt, attempts: 0, maxAttempts: 20 };
    expect(jobs).toEqual([0, 1, 2].map(() => ({ ...job, subjectId: view.batch_id, fresh: true })));
    expect(view).toEqual(await getBatch(db, merchantId, "sandbox", "PAN", view.batch_id));
  });

  it("counts racing submissions one after the other: each waits for the merchant's row before it looks at the allowance", async () => {
    const merchantId = await newMerchant();
    // Another transaction holds the merchant's row: both submissions must wait for it, not look meanwhile.
    await raw.query("BEGIN");
    let answers: Promise<PromiseSettledResult<unknown>[]>;
    try {
      await raw.query(`UPDATE "Merchant" SET "id" = "id" WHERE "id" = $1`, [merchantId]);
      answers = Promise.allSettled([submit(merchantId, items(600), 1000), submit(merchantId, items(600), 1000)]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await db.batch.count({ where: { merchantId } })).toBe(0);
    } finally {
      await raw.query("COMMIT");
    }
    const settled = await answers;
    expect(settled.map((a) => a.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refusal = settled.find((a) => a.status === "rejected") as PromiseRejectedResult;
    expect(refusal.reason).toMatchObject({ code: "RATE_LIMITED" });
    expect(await db.batch.count({ where: { merchantId } })).toBe(1);
  });

  it("leaves nothing behind when its chunks cannot be stored, and the failed batch does not count against the day's allowance", async () => {
    const merchantId = await newMerchant();
    // The items' insert fails for a batch holding this reference id.
    await raw.query(`CREATE FUNCTION refuse_marked_items() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW."items" LIKE '%refuse-me%' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`);
    await raw.query(`CREATE TRIGGER refuse_marked BEFORE INSERT ON "BatchChunkItems" FOR EACH ROW EXECUTE FUNCTION refuse_marked_items()`);
    try {
      const marked = items(ITEMS);
      marked[ITEMS - 1] = { ...marked[ITEMS - 1]!, reference_id: "refuse-me" };
      await expect(submit(merchantId, marked, ITEMS)).rejects.toThrow("refused by the test");
      const count = async (sql: string) => Number((await raw.query(sql, [merchantId])).rows[0].n);
      expect(await count(`SELECT count(*) AS n FROM "Batch" WHERE "merchantId" = $1`)).toBe(0);
      expect(
        await count(`SELECT count(*) AS n FROM "BatchChunk" c WHERE NOT EXISTS (SELECT 1 FROM "Batch" b WHERE b."id" = c."batchId") AND $1::text IS NOT NULL`),
      ).toBe(0);
      // The whole allowance is still there for the next batch.
      await expect(submit(merchantId, items(ITEMS), ITEMS)).resolves.toMatchObject({ status: "QUEUED", total: ITEMS });
    } finally {
      await raw.query(`DROP TRIGGER refuse_marked ON "BatchChunkItems"; DROP FUNCTION refuse_marked_items()`);
    }
  });
});

describe.each(DB_TARGETS)("batches left CREATING on %s", (target) => {
  let db: Db;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const database = await openTestDatabase(target, "parakh-pieces-purge-");
    const { createPrismaClient } = await import("@/server/db/client");
    db = createPrismaClient(database.url);
    stop = database.stop;
  });
  afterAll(async () => {
    await db?.$disconnect();
    await stop?.();
  });

  it("are never shown, and the retention purge deletes those a creation left behind an hour ago, with their chunks", async () => {
    const merchantId = newId("mer");
    await db.merchant.create({ data: { id: merchantId, name: "Left behind", email: `${merchantId}@example.com`, passwordHash: "x" } });
    const row = (id: string, status: string, createdAt: Date) => ({
      id,
      merchantId,
      mode: "sandbox",
      kind: "PAN",
      status,
      total: 250,
      accepted: 250,
      rejected: 0,
      processed: 0,
      succeeded: 0,
      failed: 0,
      chunkSize: 250,
      chunkCount: 1,
      requestId: newId("req"),
      createdAt,
    });
    const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
    const left = newId("batch");
    const fresh = newId("batch");
    const done = newId("batch");
    await db.batch.createMany({ data: [row(left, "CREATING", twoHoursAgo), row(fresh, "CREATING", new Date()), row(done, "QUEUED", twoHoursAgo)] });
    await db.batchChunk.createMany({
      data: [left, fresh, done].map((batchId) => ({ id: `${batchId}_0`, batchId, seq: 0, availableAt: new Date() })),
    });
    await db.batchChunkItems.createMany({ data: [left, fresh, done].map((batchId) => ({ chunkId: `${batchId}_0`, items: "[]" })) });

    // Neither the one left behind nor the one still being stored is shown.
    expect((await listBatches(db, merchantId, "sandbox", { limit: 10 })).map((b) => b.id)).toEqual([done]);
    for (const id of [left, fresh]) await expect(getBatch(db, merchantId, "sandbox", "PAN", id)).rejects.toMatchObject({ code: "BATCH_NOT_FOUND" });

    expect(await purgeExpiredBatches(db, 30)).toBe(1);
    expect((await db.batch.findMany({ where: { merchantId }, select: { id: true }, orderBy: { id: "asc" } })).map((b) => b.id)).toEqual([done, fresh].sort());
    expect(await db.batchChunk.count({ where: { batchId: left } })).toBe(0);
    // A chunk's items go with it.
    expect((await db.batchChunkItems.findMany({ select: { chunkId: true }, orderBy: { chunkId: "asc" } })).map((r) => r.chunkId)).toEqual(
      [`${done}_0`, `${fresh}_0`].sort(),
    );
  });
});
