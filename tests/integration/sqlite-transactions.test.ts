import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { migrateTestDatabase } from "../helpers/test-db";
import { tempDataDir } from "../helpers/server";

/**
 * Prisma's SQLite transactions read, await, then write. Began DEFERRED, a commit by another
 * connection in between (the request log's group commit, another process) made the write fail at
 * once with SQLITE_BUSY ("Operation has timed out"). They begin IMMEDIATE, holding the write lock.
 */
describe("Prisma transactions on SQLite", () => {
  let db: Db;
  let other: Database.Database;

  beforeAll(async () => {
    const url = `file:${path.join(tempDataDir(), "parakh.db")}`;
    await migrateTestDatabase(url);
    db = createPrismaClient(url);
    await db.authEpoch.create({ data: { id: 1, version: 0 } });
    other = new Database(url.slice("file:".length));
    other.pragma("busy_timeout = 0");
  });
  afterAll(async () => {
    other?.close();
    await db?.$disconnect();
  });

  it("hold the write lock from their first statement, so a read-then-write cannot be overtaken", async () => {
    let otherWrote = true;
    const version = await db.$transaction(async (tx) => {
      const epoch = await tx.authEpoch.findUniqueOrThrow({ where: { id: 1 } });
      try {
        other.prepare(`UPDATE "AuthEpoch" SET "version" = "version" + 100 WHERE "id" = 1`).run();
      } catch (err) {
        expect((err as { code?: string }).code).toBe("SQLITE_BUSY");
        otherWrote = false;
      }
      const updated = await tx.authEpoch.update({ where: { id: 1 }, data: { version: epoch.version + 1 } });
      return updated.version;
    });
    expect(otherWrote).toBe(false);
    expect(version).toBe(1);
    // Once the transaction committed, the other connection writes as usual.
    other.prepare(`UPDATE "AuthEpoch" SET "version" = "version" + 100 WHERE "id" = 1`).run();
    expect((await db.authEpoch.findUniqueOrThrow({ where: { id: 1 } })).version).toBe(101);
  });
});
