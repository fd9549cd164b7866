import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatchStore, type BatchVerificationRow, verificationColumns, type ClaimedChunkRow } from "@/server/db/batch-store";
import type { Db } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { sandboxProviders, type ProviderSet } from "@/server/providers";
import { workBatch, type BatchWorkDeps } from "@/server/services/batches/batch-worker";
import { CHUNK_SIZES } from "@/server/services/batches/batches";
import { openTwoInstances, submitSandboxPanBatch } from "../helpers/batch-instances";
import { DB_TARGETS } from "../helpers/targets";
import { sleep } from "../helpers/wait";

// How a worker takes a batch's chunks. Two Prisma clients (and two batch stores) on one database
// stand for two instances, so their claims race as they would across processes.

const pan = (i: number) => `ABCPK${String(1000 + (i % 8000)).padStart(4, "0")}F`;
const SANDBOX: Record<"sandbox" | "live", ProviderSet> = { sandbox: sandboxProviders, live: sandboxProviders };
const later = (ms: number) => new Date(Date.now() + ms);
const SANDBOX_CHUNK = CHUNK_SIZES.sandbox;

describe.each(DB_TARGETS)("claiming batch chunks on %s", (target) => {
  let dbA: Db;
  let dbB: Db;
  let storeA: BatchStore;
  let storeB: BatchStore;
  let close: (() => Promise<void>) | undefined;
  const merchantId = newId("mer");

  /** A sandbox batch of `n` items; its chunks are `${id}_${seq}`. */
  async function newBatch(n: number): Promise<{ id: string; chunkSize: number }> {
    const id = await submitSandboxPanBatch(dbA, merchantId, n, pan);
    const { chunkSize } = await dbA.batch.findUniqueOrThrow({ where: { id }, select: { chunkSize: true } });
    return { id, chunkSize };
  }

  const chunk = (batchId: string, seq: number) => dbA.batchChunk.findUniqueOrThrow({ where: { id: `${batchId}_${seq}` } });

  beforeAll(async () => {
    ({ dbA, dbB, storeA, storeB, close } = await openTwoInstances(target, "parakh-claim-", merchantId));
  });
  afterAll(() => close?.());

  it("takes chunks in order, one claim each, and only those free and due or under a lease that ran out", async () => {
    const { id, chunkSize } = await newBatch(7 * SANDBOX_CHUNK);
    const chunks = Math.ceil((7 * SANDBOX_CHUNK) / chunkSize);
    expect(chunks).toBeGreaterThanOrEqual(7);
    // 0 free, 1 done, 2 waiting for a retry, 3 held under a live lease, 4 under a lease that ran out, 5 and on free.
    await dbA.batchChunk.update({ where: { id: `${id}_1` }, data: { status: "DONE", completedAt: new Date() } });
    await dbA.batchChunk.update({ where: { id: `${id}_2` }, data: { availableAt: later(60_000) } });
    await dbA.batchChunk.update({ where: { id: `${id}_3` }, data: { status: "RUNNING", leaseToken: "live", leaseUntil: later(60_000) } });
    await dbA.batchChunk.update({ where: { id: `${id}_4` }, data: { status: "RUNNING", leaseToken: "lapsed", leaseUntil: later(-1_000) } });
    const claimable = [0, 4, ...Array.from({ length: chunks - 5 }, (_, k) => 5 + k)];

    // More workers than claimable chunks, all at once, on both clients.
    const tokens = Array.from({ length: claimable.length + 3 }, (_, k) => `t${k}`);
    const got = await Promise.all(tokens.map((t, k) => (k % 2 ? storeB : storeA).claimChunk(id, t, later(30_000))));
    const taken = got.filter((c): c is ClaimedChunkRow => c !== null);
    expect(taken.map((c) => Number(c.id.split("_").pop())).sort((x, y) => x - y)).toEqual(claimable);
    for (const [k, c] of got.entries()) {
      if (!c) continue;
      const row = await dbA.batchChunk.findUniqueOrThrow({ where: { id: c.id }, include: { itemsRow: true } });
      // The row as claimed: this worker's lease, and the items that were submitted.
      expect(row).toMatchObject({ status: "RUNNING", leaseToken: tokens[k] });
      expect(c.items).toBe(row.itemsRow!.items);
      expect(JSON.parse(c.items)).toHaveLength(chunkSize);
    }
    for (const [seq, token] of [
      [1, null],
      [2, null],
      [3, "live"],
    ] as const) {
      expect((await chunk(id, seq)).leaseToken).toBe(token);
    }

    // One at a time they come in seq order.
    const fresh = await newBatch(3 * SANDBOX_CHUNK);
    const order: number[] = [];
    for (let c = await storeA.claimChunk(fresh.id, "a", later(30_000)); c; c = await storeA.claimChunk(fresh.id, "a", later(30_000))) {
      order.push(Number(c.id.split("_").pop()));
    }
    expect(order).toEqual(Array.from({ length: Math.ceil((3 * SANDBOX_CHUNK) / fresh.chunkSize) }, (_, k) => k));
  });

  it("reads a batch as a worker's turn needs it, and its chunks not done yet", async () => {
    const { id } = await newBatch(2 * SANDBOX_CHUNK);
    // A sandbox batch carries no consent (C6): the live vendors are told a live batch's.
    expect(await storeA.batchForTurn(id)).toEqual({
      status: "QUEUED",
      kind: "PAN",
      mode: "sandbox",
      merchantId,
      requestId: expect.any(String),
      consent: null,
      purpose: null,
      consentSource: null,
    });
    expect(await storeB.batchForTurn("batch_none")).toBeNull();
    const until = later(30_000);
    await storeA.claimChunk(id, "open-1", until);
    const open = await storeB.openChunks(id);
    const first = await chunk(id, 0);
    expect(open.sort((x, y) => x.status.localeCompare(y.status))).toEqual([
      { status: "PENDING", availableAt: (await chunk(id, 1)).availableAt, leaseUntil: null },
      { status: "RUNNING", availableAt: first.availableAt, leaseUntil: until },
    ]);
    await dbA.batchChunk.updateMany({ where: { batchId: id }, data: { status: "DONE" } });
    expect(await storeA.openChunks(id)).toEqual([]);
  });

  it("refuses to take a chunk whose items row is missing, rather than run it as an empty chunk", async () => {
    const { id } = await newBatch(1);
    await dbA.batchChunkItems.delete({ where: { chunkId: `${id}_0` } });
    await expect(storeA.claimChunk(id, "t-damaged", later(30_000))).rejects.toThrow(`batch chunk ${id}_0 has no items row`);
  });

  it("a claim that starts the batch makes a QUEUED batch PROCESSING with its start time, once, and nothing else", async () => {
    const { id } = await newBatch(2 * SANDBOX_CHUNK);
    const status = () => dbA.batch.findUniqueOrThrow({ where: { id }, select: { status: true, startedAt: true } });
    expect(await status()).toEqual({ status: "QUEUED", startedAt: null });
    const startedAt = new Date(Date.now() - 5_000);
    const first = await storeB.claimChunk(id, "s1", later(30_000), { startedAt });
    expect(first?.id).toBe(`${id}_0`);
    expect(await status()).toEqual({ status: "PROCESSING", startedAt });
    // Another worker's first turn, later: the batch keeps its start.
    const second = await storeA.claimChunk(id, "s2", later(30_000), { startedAt: new Date() });
    expect(second?.id).toBe(`${id}_1`);
    expect(await status()).toEqual({ status: "PROCESSING", startedAt });
    // A finished batch stays finished, and a claim that finds nothing still leaves it so.
    await dbA.batch.update({ where: { id }, data: { status: "COMPLETED", completedAt: new Date() } });
    expect(await storeA.claimChunk(id, "s3", later(30_000), { startedAt: new Date() })).toBeNull();
    expect(await status()).toEqual({ status: "COMPLETED", startedAt });
  });

  it("a commit that claims the next chunk writes the commit only under its lease, and claims either way", async () => {
    const { id } = await newBatch(3 * SANDBOX_CHUNK);
    const first = (await storeA.claimChunk(id, "lease-1", later(30_000)))!;
    const items = JSON.parse(first.items) as { input: { pan: string } }[];
    const completedAt = new Date();
    const verifications = () => ({
      merchantId,
      mode: "sandbox",
      kind: "PAN",
      requestId: "req_claim",
      rows: verificationColumns(
        items.map((item): BatchVerificationRow => ({
          id: newId("ver"),
          subject: item.input.pan,
          nameQueried: "Arjun Kapoor",
          outcome: "VALID",
          nameMatch: 87.5,
          sourceNameMatch: 91,
          errorCode: null,
        })),
      ),
    });
    const commit = (leaseToken: string, chunkId = first.id) => ({
      chunkId,
      leaseToken,
      batchId: id,
      results: JSON.stringify(items.map(() => ({ result: { by: leaseToken }, error: null }))),
      succeeded: items.length,
      failed: 0,
      countedBefore: { succeeded: 0, failed: 0 },
      completedAt,
      verifications: verifications(),
    });

    // A worker whose lease was lost: nothing of its commit lands, and it still gets a chunk to run.
    const lost = await storeB.commitAndClaim(commit("lease-0"), { leaseToken: "lease-2", leaseUntil: later(30_000) });
    expect(lost.committed).toBe(false);
    expect(lost.batchDone).toBe(false);
    expect(lost.next?.id).toBe(`${id}_1`);
    expect(await dbA.verification.count({ where: { batchId: id } })).toBe(0);
    expect(await dbA.batch.findUniqueOrThrow({ where: { id }, select: { processed: true } })).toEqual({ processed: 0 });
    expect(await chunk(id, 0)).toMatchObject({ status: "RUNNING", leaseToken: "lease-1" });

    // The holder: its chunk is done with its results and rows, and the next free chunk is its.
    const held = await storeA.commitAndClaim(commit("lease-1"), { leaseToken: "lease-3", leaseUntil: later(30_000) });
    expect(held.committed).toBe(true);
    expect(held.next?.id).toBe(`${id}_2`);
    expect(await chunk(id, 0)).toMatchObject({ status: "DONE", leaseToken: null, succeeded: items.length });
    expect(JSON.parse((await chunk(id, 0)).results!)[0].result.by).toBe("lease-1");
    expect(await chunk(id, 2)).toMatchObject({ status: "RUNNING", leaseToken: "lease-3" });
    expect(await dbA.batch.findUniqueOrThrow({ where: { id }, select: { processed: true } })).toEqual({ processed: items.length });
    // The rows as written: read back through Prisma with their types and the commit's time.
    const rows = await dbA.verification.findMany({ where: { batchId: id }, orderBy: { subject: "asc" } });
    expect(rows).toHaveLength(items.length);
    expect(rows[0]).toMatchObject({
      subject: pan(0),
      merchantId,
      mode: "sandbox",
      kind: "PAN",
      requestId: "req_claim",
      batchId: id,
      nameQueried: "Arjun Kapoor",
      outcome: "VALID",
      nameMatch: 87.5,
      sourceNameMatch: 91,
      errorCode: null,
    });
    expect(rows.every((r) => r.createdAt.getTime() === completedAt.getTime())).toBe(true);

    // Nothing left to take: the commit still lands, and no chunk comes back; chunk 1 is still running, so the batch is not done.
    const none = await storeA.commitAndClaim(commit("lease-3", `${id}_2`), { leaseToken: "lease-4", leaseUntil: later(30_000) });
    expect(none).toEqual({ committed: true, next: null, batchDone: false });
    // The last chunk not done: its commit says the batch is.
    const last = await storeB.commitAndClaim(commit("lease-2", `${id}_1`), { leaseToken: "lease-5", leaseUntil: later(30_000) });
    expect(last).toEqual({ committed: true, next: null, batchDone: true });
    // A commit whose lease is gone never says so, even with nothing left.
    const stale = await storeA.commitAndClaim(commit("lease-2", `${id}_1`), { leaseToken: "lease-6", leaseUntil: later(30_000) });
    expect(stale).toEqual({ committed: false, next: null, batchDone: false });
  });

  it("a commit under a lease that ran out (nobody took the chunk) lands, and its claim takes the next chunk, not the one committed", async () => {
    const { id } = await newBatch(2 * SANDBOX_CHUNK);
    const lapsed = (await storeA.claimChunk(id, "lapsed", later(-1_000)))!;
    expect(lapsed.id).toBe(`${id}_0`);
    const rows = (JSON.parse(lapsed.items) as { input: { pan: string } }[]).map((item): BatchVerificationRow => ({
      id: newId("ver"),
      subject: item.input.pan,
      nameQueried: null,
      outcome: "VALID",
      nameMatch: null,
      errorCode: null,
    }));
    const got = await storeB.commitAndClaim(
      {
        chunkId: lapsed.id,
        leaseToken: "lapsed",
        batchId: id,
        results: JSON.stringify(rows.map(() => ({ result: { ok: true }, error: null }))),
        succeeded: rows.length,
        failed: 0,
        countedBefore: { succeeded: 0, failed: 0 },
        completedAt: new Date(),
        verifications: { merchantId, mode: "sandbox", kind: "PAN", requestId: "req_lapsed", rows: verificationColumns(rows) },
      },
      { leaseToken: "after-lapsed", leaseUntil: later(30_000) },
    );
    expect(got.committed).toBe(true);
    expect(got.next?.id).toBe(`${id}_1`);
    expect(await chunk(id, 0)).toMatchObject({ status: "DONE", leaseToken: null });
    expect(await chunk(id, 1)).toMatchObject({ status: "RUNNING", leaseToken: "after-lapsed" });
    expect(await dbA.verification.count({ where: { batchId: id } })).toBe(rows.length);
  });

  it("two workers on two instances share a batch: every item once in the results, the rows and the counters", async () => {
    const n = 2_600;
    const { id } = await newBatch(n);
    const deps = (db: Db, store: BatchStore): BatchWorkDeps => ({ db, store, providers: SANDBOX, baseUrl: "http://127.0.0.1" });
    const work = async (db: Db, store: BatchStore) => {
      while ((await workBatch(deps(db, store), id)) !== null) await sleep(5);
    };
    await Promise.all([work(dbA, storeA), work(dbB, storeB)]);

    const batch = await dbA.batch.findUniqueOrThrow({ where: { id } });
    expect(batch).toMatchObject({ status: "COMPLETED", processed: n, succeeded: n, failed: 0 });
    const rows = await dbA.verification.findMany({ where: { batchId: id }, select: { subject: true } });
    expect(rows.map((r) => r.subject).sort()).toEqual(Array.from({ length: n }, (_, i) => pan(i)).sort());
    const chunks = await dbA.batchChunk.findMany({ where: { batchId: id }, orderBy: { seq: "asc" } });
    const outcomes = chunks.flatMap((c) => JSON.parse(c.results!) as { result: { pan: string } }[]);
    expect(outcomes.map((o) => o.result.pan)).toEqual(Array.from({ length: n }, (_, i) => pan(i)));
    expect(chunks.reduce((sum, c) => sum + c.succeeded, 0)).toBe(n);
    expect(await dbA.webhookEvent.count({ where: { subjectId: id } })).toBe(1);
  });
});
