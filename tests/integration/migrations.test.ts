import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_TARGETS } from "../helpers/db-targets";
import { createPrismaClient, dbProvider } from "@/server/db/client";
import { applyMigrations, diffSchemaToMigrations, migrationNames, migrationStatus } from "@/server/db/migrate";
import { readSchemaForProvider, type DbProvider } from "@/server/db/provider";
import { startPostgres, type PostgresCluster } from "../helpers/postgres";

interface Target {
  url: string;
  /** PostgreSQL only: an empty database for replaying migrations. */
  scratchUrl?: string;
  stop(): Promise<void>;
}

async function setUp(provider: DbProvider): Promise<Target> {
  if (provider === "postgresql") {
    const pg: PostgresCluster = await startPostgres();
    return { url: pg.url, scratchUrl: await pg.createDatabase("scratch"), stop: () => pg.stop() };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-sqlite-"));
  return {
    url: `file:${path.join(dir, "nested", "test.db")}`,
    stop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

describe.each<DbProvider>(DB_TARGETS)("migrations on %s", (provider) => {
  let target: Target;

  beforeAll(async () => {
    target = await setUp(provider);
  });
  afterAll(async () => {
    await target?.stop();
  });

  it("apply to an empty database, then apply nothing the second time", async () => {
    const all = migrationNames(provider);
    expect(all.length).toBeGreaterThan(0);
    expect((await migrationStatus(target.url)).pending).toEqual(all);

    expect(await applyMigrations(target.url)).toEqual({ applied: all });
    expect(await applyMigrations(target.url)).toEqual({ applied: [] });

    const status = await migrationStatus(target.url);
    expect(status).toMatchObject({ provider, applied: all, pending: [], failed: [], upToDate: true });
  });

  it("serve a client that writes and reads a Merchant", async () => {
    const db = createPrismaClient(target.url);
    try {
      expect(dbProvider(db)).toBe(provider);
      const created = await db.merchant.create({
        data: { id: "mer_1", name: "Acme", email: "ops@acme.test", passwordHash: "x" },
      });
      expect(created.status).toBe("ACTIVE");
      const read = await db.merchant.findUnique({ where: { email: "ops@acme.test" } });
      expect(read).toMatchObject({ id: "mer_1", name: "Acme", liveEnabled: false });
      expect(read?.createdAt).toBeInstanceOf(Date);
      // Foreign keys are enforced on both providers.
      await expect(
        db.apiKey.create({
          data: { id: "k1", merchantId: "nope", mode: "sandbox", publicKey: "pk", secretHash: "h", secretHint: "sk" },
        }),
      ).rejects.toThrow();
    } finally {
      await db.$disconnect();
    }
  });

  it.runIf(provider === "postgresql")("store batch chunks' items and results compressed with lz4", async () => {
    const db = createPrismaClient(target.url);
    try {
      const rows = await db.$queryRawUnsafe<{ table: string; column: string; compression: string }[]>(
        `SELECT c.relname AS "table", a.attname AS "column", a.attcompression::text AS "compression" FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
         WHERE (c.relname, a.attname) IN (('BatchChunk', 'results'), ('BatchChunkItems', 'items')) ORDER BY 1`,
      );
      // 'l' is lz4 (PostgreSQL's pg_attribute.attcompression).
      expect(rows).toEqual([
        { table: "BatchChunk", column: "results", compression: "l" },
        { table: "BatchChunkItems", column: "items", compression: "l" },
      ]);
    } finally {
      await db.$disconnect();
    }
  });

  it("have migrations that match prisma/schema.prisma", async () => {
    const sql = await diffSchemaToMigrations(provider, { scratchUrl: target.scratchUrl });
    expect(sql, `Migrations for ${provider} lag behind the schema; run npm run db:migration -- <name>`).toBe("");
  });

  it("report drift when the schema gains a field", async () => {
    const schema = readSchemaForProvider(provider).replace(/(model Merchant \{\n)/, "$1  driftProbe String?\n");
    const sql = await diffSchemaToMigrations(provider, { scratchUrl: target.scratchUrl, schema });
    expect(sql).toMatch(/driftProbe/);
  });
});

describe("SQLite connection settings", () => {
  it("use WAL, synchronous=FULL (a commit survives a power loss), a busy timeout and foreign keys", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-sqlite-"));
    const db = createPrismaClient(`file:${path.join(dir, "p.db")}`);
    const normal = createPrismaClient(`file:${path.join(dir, "p.db")}`, { sqliteSynchronous: "NORMAL" });
    try {
      const one = async (client: typeof db, pragma: string) => Object.values((await client.$queryRawUnsafe<object[]>(`PRAGMA ${pragma}`))[0])[0];
      expect(await one(db, "journal_mode")).toBe("wal");
      expect(await one(db, "synchronous")).toBe(2n);
      expect(await one(db, "busy_timeout")).toBe(5000n);
      expect(await one(db, "foreign_keys")).toBe(1n);
      expect(await one(normal, "synchronous")).toBe(1n);
    } finally {
      await db.$disconnect();
      await normal.$disconnect();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
