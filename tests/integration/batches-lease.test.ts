import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatchStore, type BatchVerificationRow, verificationColumns } from "@/server/db/batch-store";
import type { Db } from "@/server/db/client";
import { openTwoInstances, submitSandboxPanBatch } from "../helpers/batch-instances";
import { newId } from "@/server/lib/ids";
import { sandboxProviders, type ProviderSet } from "@/server/providers";
import type { PanProvider } from "@/server/providers/pan/types";
import { workBatch, type BatchWorkDeps } from "@/server/services/batches/batch-worker";
import { DB_TARGETS } from "../helpers/targets";
import { sleep, waitFor } from "../helpers/wait";

// Two Prisma clients (and two batch stores) on one database stand for two workers on two
// instances: their claims and commits race as they would across processes.

const pan = (i: number) => `ABCPK${String(1000 + i).padStart(4, "0")}F`;
const SANDBOX: Record<"sandbox" | "live", ProviderSet> = { sandbox: sandboxProviders, live: sandboxProviders };

/** Sandbox providers whose PAN lookups wait until `open()`: a worker stalled mid-chunk. */
function stalledProviders() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let calls = 0;
  const lookup: PanProvider["lookup"] = async (p) => {
    calls++;
    await gate;
    return SANDBOX.sandbox.pan.lookup(p);
  };
  const providers: Record<"sandbox" | "live", ProviderSet> = { ...SANDBOX, sandbox: { ...SANDBOX.sandbox, pan: { lookup } } };
  return { providers, open, calls: () => calls };
}

describe.each(DB_TARGETS)("batch chunk leases on %s", (target) => {
  let dbA: Db;
  let dbB: Db;
  let storeA: BatchStore;
  let storeB: BatchStore;
  let close: (() => Promise<void>) | undefined;
  const merchantId = newId("mer");

  const deps = (db: Db, store: BatchStore, providers: Record<"sandbox" | "live", ProviderSet>, leaseMs?: number): BatchWorkDeps => ({
    db,
    store,
    providers,
    baseUrl: "http://127.0.0.1",
    leaseMs,
  });

  const newBatch = (n: number) => submitSandboxPanBatch(dbA, merchantId, n, pan);

  const counters = (batchId: string) =>
    dbA.batch.findUniqueOrThrow({ where: { id: batchId }, select: { processed: true, succeeded: true, failed: true, status: true } });

  /** Every item has one outcome and one verification row; the counters count each item once. */
  async function expectExactlyOnce(batchId: string, n: number) {
    expect(await counters(batchId)).toEqual({ processed: n, succeeded: n, failed: 0, status: "COMPLETED" });
    const rows = await dbA.verification.findMany({ where: { batchId }, select: { subject: true } });
    expect(rows.map((r) => r.subject).sort()).toEqual(Array.from({ length: n }, (_, i) => pan(i)).sort());
    const chunks = await dbA.batchChunk.findMany({ where: { batchId }, select: { status: true, results: true, succeeded: true } });
    expect(chunks.every((c) => c.status === "DONE")).toBe(true);
    expect(chunks.reduce((sum, c) => sum + c.succeeded, 0)).toBe(n);
    const outcomes = chunks.flatMap((c) => JSON.parse(c.results!) as ({ result: { pan: string } } | null)[]);
    expect(outcomes.map((o) => o?.result.pan).sort()).toEqual(rows.map((r) => r.subject).sort());
    expect(await dbA.webhookEvent.count({ where: { subjectId: batchId } })).toBe(1);
  }

  beforeAll(async () => {
    ({ dbA, dbB, storeA, storeB, close } = await openTwoInstances(target, "parakh-lease-", merchantId));
  });
  afterAll(() => close?.());

  it("refuses a commit by a worker whose chunk was given to another, and counts nothing", async () => {
    const batchId = await newBatch(3);
    const chunkId = `${batchId}_0`;
    const past = new Date(Date.now() - 1_000);
    // Worker A's lease ran out, and worker B took the chunk (as a claim leaves it).
    await dbA.batchChunk.update({ where: { id: chunkId }, data: { status: "RUNNING", leaseToken: "lease-A", leaseUntil: past } });
    await dbB.batchChunk.update({ where: { id: chunkId }, data: { status: "RUNNING", leaseToken: "lease-B", leaseUntil: new Date(Date.now() + 30_000) } });
    const before = await dbA.batchChunk.findUniqueOrThrow({ where: { id: chunkId } });
    const commitAs = (store: BatchStore, leaseToken: string) => {
      const completedAt = new Date();
      const rows: BatchVerificationRow[] = [0, 1, 2].map((i) => ({
        id: newId("ver"),
        subject: pan(i),
        nameQueried: null,
        outcome: "VALID",
        nameMatch: null,
        errorCode: null,
      }));
      const verifications = { merchantId, mode: "sandbox", kind: "PAN", requestId: "req_lease", rows: verificationColumns(rows) };
      const results = JSON.stringify([0, 1, 2].map((i) => ({ result: { pan: pan(i), by: leaseToken }, error: null })));
      return store.commitChunk({
        chunkId,
        leaseToken,
        batchId,
        results,
        succeeded: 3,
        failed: 0,
        countedBefore: { succeeded: 0, failed: 0 },
        completedAt,
        verifications,
      });
    };

    expect(await commitAs(storeA, "lease-A")).toBe(false);
    expect(await counters(batchId)).toEqual({ processed: 0, succeeded: 0, failed: 0, status: "QUEUED" });
    expect(await dbA.verification.count({ where: { batchId } })).toBe(0);
    expect(await dbA.batchChunk.findUniqueOrThrow({ where: { id: chunkId } })).toEqual(before);

    // The holder's commit counts, once.
    expect(await commitAs(storeB, "lease-B")).toBe(true);
    const done = { processed: 3, succeeded: 3, failed: 0, status: "QUEUED" };
    expect(await counters(batchId)).toEqual(done);
    expect(await dbA.verification.count({ where: { batchId } })).toBe(3);
    const committed = await dbA.batchChunk.findUniqueOrThrow({ where: { id: chunkId } });
    expect(committed).toMatchObject({ status: "DONE", leaseToken: null, succeeded: 3 });
    expect(JSON.parse(committed.results!)[0].result.by).toBe("lease-B");

    // Neither the old holder nor the same holder again commits a chunk that is done.
    expect(await commitAs(storeA, "lease-A")).toBe(false);
    expect(await commitAs(storeB, "lease-B")).toBe(false);
    expect(await counters(batchId)).toEqual(done);
    expect(await dbA.verification.count({ where: { batchId } })).toBe(3);
    expect(await dbA.batchChunk.findUniqueOrThrow({ where: { id: chunkId } })).toEqual(committed);
  });

  // Worker A's lease (50 ms) is shorter than its renewal period (100 ms), so it lapses while A is
  // stuck in the source, as it would for a worker whose process stalls.
  it("a worker stalled past its lease commits nothing once another took the chunk; each item once", async () => {
    const n = 30;
    const batchId = await newBatch(n);
    const chunkId = `${batchId}_0`;
    const a = stalledProviders();
    const b = stalledProviders();
    const runA = workBatch(deps(dbA, storeA, a.providers, 50), batchId);
    await waitFor("worker A stuck in the source", () => a.calls() > 0);
    const leaseA = (await dbA.batchChunk.findUniqueOrThrow({ where: { id: chunkId } })).leaseToken;
    expect(leaseA).not.toBeNull();

    // Worker B takes the lapsed chunk and is still running it when A comes back and commits.
    const runB = (async () => {
      while ((await workBatch(deps(dbB, storeB, b.providers), batchId)) !== null) await sleep(10);
    })();
    await waitFor("worker B running the chunk", () => b.calls() > 0, 10_000, 10);
    a.open();
    // A finds the chunk held by B: it comes back later rather than finishing the batch.
    expect(await runA).not.toBeNull();
    const held = await dbA.batchChunk.findUniqueOrThrow({ where: { id: chunkId } });
    expect(held.status).toBe("RUNNING");
    expect(held.leaseToken).not.toBe(leaseA);
    expect(await counters(batchId)).toEqual({ processed: 0, succeeded: 0, failed: 0, status: "PROCESSING" });
    expect(await dbA.verification.count({ where: { batchId } })).toBe(0);

    b.open();
    await runB;
    await expectExactlyOnce(batchId, n);
  });

  it("a worker stalled past its lease commits nothing after another committed the chunk; each item once", async () => {
    const n = 30;
    const batchId = await newBatch(n);
    const a = stalledProviders();
    const runA = workBatch(deps(dbA, storeA, a.providers, 50), batchId);
    await waitFor("worker A stuck in the source", () => a.calls() > 0);

    // Worker B takes the lapsed chunk, runs it and finishes the batch while A is stuck.
    await waitFor("worker B to finish the batch", async () => (await workBatch(deps(dbB, storeB, SANDBOX), batchId)) === null, 10_000, 10);
    await expectExactlyOnce(batchId, n);

    a.open();
    await runA;
    await expectExactlyOnce(batchId, n);
  });
});
