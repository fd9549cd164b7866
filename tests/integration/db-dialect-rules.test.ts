import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql, sqlWithParts, type AtomicWriter } from "@/server/db/atomic-write";
import { dbProvider, type Db } from "@/server/db/client";
import { admissionSeen } from "@/server/db/new-batch";
import type { DbProvider } from "@/server/db/provider";
import { containsIgnoringAsciiCase } from "@/server/db/text-search";
import { chunkLeases } from "@/server/services/batches/batch-worker";
import { DB_TARGETS } from "../helpers/db-targets";
import { openTestWriter } from "../helpers/test-db";

// The store functions of src/server/db that hold a rule once for both databases, each run on both
// against figures worked out by hand from the rows the test writes.
describe.each<DbProvider>(DB_TARGETS)("one rule on both databases: %s", (provider) => {
  let db: Db;
  let writer: AtomicWriter;
  let close: (() => Promise<void>) | undefined;
  const t0 = new Date("2026-03-01T10:00:00.000Z");
  const at = (ms: number) => new Date(t0.getTime() + ms);

  beforeAll(async () => {
    ({ db, writer, close } = await openTestWriter(provider, "parakh-dialect-rules-"));
    for (const id of ["m_rules", "m_other"]) {
      await db.merchant.create({ data: { id, name: "Rules", email: `${id}@example.com`, passwordHash: "x" } });
    }
  });
  afterAll(async () => {
    await close?.();
  });

  let n = 0;
  const batch = (merchantId: string, mode: string, status: string, total: number, createdAt: Date) =>
    db.batch.create({
      data: {
        id: `b_rules_${++n}`,
        merchantId,
        mode,
        kind: "pan",
        status,
        total,
        accepted: total,
        rejected: 0,
        processed: 0,
        succeeded: 0,
        failed: 0,
        chunkSize: 100,
        chunkCount: 1,
        requestId: `req_${n}`,
        createdAt,
      },
    });

  describe("batch admission (admissionSeen)", () => {
    beforeAll(async () => {
      // Sandbox, m_rules: two unfinished (QUEUED, PROCESSING), one COMPLETED, one still CREATING.
      await batch("m_rules", "sandbox", "QUEUED", 300, at(1_000));
      await batch("m_rules", "sandbox", "PROCESSING", 200, at(2_000));
      await batch("m_rules", "sandbox", "COMPLETED", 400, at(3_000));
      await batch("m_rules", "sandbox", "CREATING", 50, at(4_000));
      // Created exactly at the window's start, and before it: outside the window.
      await batch("m_rules", "sandbox", "COMPLETED", 1_000, at(0));
      await batch("m_rules", "sandbox", "COMPLETED", 1_000, at(-5_000));
      // Another merchant, and live mode: never counted for m_rules in sandbox.
      await batch("m_other", "sandbox", "QUEUED", 700, at(1_000));
      await batch("m_rules", "live", "QUEUED", 900, at(1_000));
    });

    const seen = async (mode: string, total: number, maxOpen: number, sandboxItemsPerDay: number | null) => {
      const [row] = await writer.read<{ open: unknown; used: unknown; admitted: unknown }>(
        admissionSeen({ merchantId: "m_rules", mode, total }, { maxOpen, sandboxItemsPerDay, allowanceSince: t0 }),
      );
      return { open: Number(row!.open), used: Number(row!.used), admitted: Number(row!.admitted) };
    };

    it("counts the unfinished batches of the mode and the sandbox items created after the window's start", async () => {
      // open: QUEUED + PROCESSING = 2; used: 300 + 200 + 400 + 50 = 950.
      expect(await seen("sandbox", 10, 3, 2_000)).toEqual({ open: 2, used: 950, admitted: 1 });
    });

    it("admits a batch that fills the allowance exactly, and refuses one item more", async () => {
      expect(await seen("sandbox", 1_050, 3, 2_000)).toEqual({ open: 2, used: 950, admitted: 1 });
      expect(await seen("sandbox", 1_051, 3, 2_000)).toEqual({ open: 2, used: 950, admitted: 0 });
    });

    it("refuses at the open-batch cap, whatever the allowance says", async () => {
      expect(await seen("sandbox", 1, 2, 2_000)).toEqual({ open: 2, used: 950, admitted: 0 });
      expect(await seen("sandbox", 1, 2, null)).toEqual({ open: 2, used: 0, admitted: 0 });
    });

    it("in live mode (no allowance) counts only the open batches", async () => {
      expect(await seen("live", 1_000_000, 2, null)).toEqual({ open: 1, used: 0, admitted: 1 });
      expect(await seen("live", 1, 1, null)).toEqual({ open: 1, used: 0, admitted: 0 });
    });
  });

  describe("the chunks' lease (LeasedRows.claimableSql)", () => {
    it("a chunk is claimable when free and due, or held under a lease that ended before now", async () => {
      const b = await batch("m_rules", "sandbox", "PROCESSING", 1, at(0));
      const now = at(60_000);
      const chunks: [string, string, Date, Date | null][] = [
        ["due_before", "PENDING", at(59_999), null],
        ["due_now", "PENDING", now, null],
        ["due_later", "PENDING", at(60_001), null],
        ["lease_ended", "RUNNING", at(0), at(59_999)],
        ["lease_ends_now", "RUNNING", at(0), now],
        ["lease_later", "RUNNING", at(0), at(60_001)],
        ["done", "DONE", at(0), null],
      ];
      await db.batchChunk.createMany({
        data: chunks.map(([id, status, availableAt, leaseUntil], seq) => ({
          id: `${b.id}_${id}`,
          batchId: b.id,
          seq,
          status,
          availableAt,
          leaseUntil,
          leaseToken: leaseUntil ? "t" : null,
        })),
      });
      const leases = chunkLeases(db);
      const claimable = await writer.read<{ id: string }>(
        sqlWithParts`SELECT "id" FROM "BatchChunk" WHERE "batchId" = ${b.id} AND ${leases.claimableSql(now)} ORDER BY "seq"`,
      );
      const expected = [`${b.id}_due_before`, `${b.id}_due_now`, `${b.id}_lease_ended`];
      expect(claimable.map((r) => r.id)).toEqual(expected);
      // The same rule as the conditional updates of the job queue use (claimableWhere).
      const viaPrisma = await db.batchChunk.findMany({
        where: { batchId: b.id, ...leases.claimableWhere(now) },
        orderBy: { seq: "asc" },
        select: { id: true },
      });
      expect(viaPrisma.map((r) => r.id)).toEqual(expected);
    });
  });

  describe("text search (containsIgnoringAsciiCase)", () => {
    it("finds the text whatever the case of its ASCII letters", async () => {
      const paths = ["/v1/identity/pan", "/V1/IDENTITY/epfo", "/v1/Identity/bank", "/v1/batches", "/v1/identit/pan"];
      await db.auditLog.createMany({
        data: paths.map((path, i) => ({
          id: `log_rules_${i}`,
          requestId: `r${i}`,
          merchantId: "m_rules",
          mode: "sandbox",
          method: "GET",
          path,
          status: 200,
          latencyMs: 1,
          clientIp: "127.0.0.1",
        })),
      });
      const found = await db.auditLog.findMany({
        where: { merchantId: "m_rules", path: containsIgnoringAsciiCase(db, "v1/IDENTITY/") },
        orderBy: { id: "asc" },
        select: { path: true },
      });
      expect(found.map((r) => r.path)).toEqual(["/v1/identity/pan", "/V1/IDENTITY/epfo", "/v1/Identity/bank"]);
    });
  });

  it("a transaction's client says which database it is on", async () => {
    expect(await db.$transaction(async (tx) => dbProvider(tx))).toBe(provider);
    // And the array form still runs as before.
    const [one] = await db.$transaction([db.merchant.count({ where: { id: "m_rules" } })]);
    expect(one).toBe(1);
    expect(await writer.read<{ one: unknown }>(sql`SELECT 1 AS "one"`)).toHaveLength(1);
  });
});
