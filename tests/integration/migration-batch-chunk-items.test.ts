import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrationsDir } from "@/server/db/provider";
import { DB_TARGETS } from "../helpers/db-targets";
import { startPostgres, type PostgresCluster } from "../helpers/postgres";

// The migration that moved a chunk's items into a row of their own must carry the items of the
// batches stored before it: applied over a database holding chunks, every chunk keeps its items.

const MOVE = "batch_chunk_items";
const items = (seq: number) => JSON.stringify([{ index: seq * 2, reference_id: `r${seq}`, input: { pan: "ABCPK1234F", name: null }, error: null }]);

/** The provider's migration files in order, split at the one that moves the items. */
function migrationsAround(provider: "sqlite" | "postgresql") {
  const dir = migrationsDir(provider);
  const names = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const at = names.findIndex((n) => n.endsWith(`_${MOVE}`));
  expect(at).toBeGreaterThan(0);
  const sql = (n: string) => fs.readFileSync(path.join(dir, n, "migration.sql"), "utf8");
  return { before: names.slice(0, at).map(sql), move: sql(names[at]!) };
}

// A merchant, a batch and two chunks, as the schema before the move stores them.
const ROWS = [
  `INSERT INTO "Merchant" ("id", "name", "email", "passwordHash", "createdAt", "updatedAt") VALUES ('mer_m', 'M', 'm@example.test', 'x', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
  `INSERT INTO "Batch" ("id", "merchantId", "mode", "kind", "status", "total", "accepted", "rejected", "processed", "succeeded", "failed", "chunkSize", "chunkCount", "requestId", "createdAt")
     VALUES ('batch_b', 'mer_m', 'sandbox', 'PAN', 'QUEUED', 2, 2, 0, 0, 0, 0, 1, 2, 'req_r', '2026-01-01T00:00:00.000Z')`,
  `INSERT INTO "BatchChunk" ("id", "batchId", "seq", "status", "items", "availableAt") VALUES ('batch_b_0', 'batch_b', 0, 'PENDING', '${items(0)}', '2026-01-01T00:00:00.000Z')`,
  `INSERT INTO "BatchChunk" ("id", "batchId", "seq", "status", "items", "results", "availableAt") VALUES ('batch_b_1', 'batch_b', 1, 'DONE', '${items(1)}', '[]', '2026-01-01T00:00:00.000Z')`,
];

const EXPECTED = [
  { chunkId: "batch_b_0", items: items(0) },
  { chunkId: "batch_b_1", items: items(1) },
];

describe.each(DB_TARGETS)("the migration moving chunk items on %s", (provider) => {
  let cluster: PostgresCluster | undefined;
  afterAll(async () => {
    await cluster?.stop();
  });

  it("keeps every stored chunk's items, in a row of their own", async () => {
    const { before, move } = migrationsAround(provider);
    if (provider === "sqlite") {
      const db = new Database(":memory:");
      for (const sql of before) db.exec(sql);
      for (const row of ROWS) db.exec(row);
      db.exec(move);
      expect(db.prepare(`SELECT "chunkId", "items" FROM "BatchChunkItems" ORDER BY "chunkId"`).all()).toEqual(EXPECTED);
      expect(db.prepare(`SELECT "id", "status" FROM "BatchChunk" ORDER BY "id"`).all()).toEqual([
        { id: "batch_b_0", status: "PENDING" },
        { id: "batch_b_1", status: "DONE" },
      ]);
      db.close();
      return;
    }
    cluster = await startPostgres();
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      for (const sql of before) await client.query(sql);
      for (const row of ROWS) await client.query(row);
      await client.query(move);
      expect((await client.query(`SELECT "chunkId", "items" FROM "BatchChunkItems" ORDER BY "chunkId"`)).rows).toEqual(EXPECTED);
      expect((await client.query(`SELECT "id", "status" FROM "BatchChunk" ORDER BY "id"`)).rows).toEqual([
        { id: "batch_b_0", status: "PENDING" },
        { id: "batch_b_1", status: "DONE" },
      ]);
    } finally {
      await client.end();
    }
  });
});
