import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBatchStore, type BatchStore } from "@/server/db/batch-store";
import { createPrismaClient, type Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { sandboxProviders, type ProviderSet } from "@/server/providers";
import type { PanProvider } from "@/server/providers/pan/types";
import { chunkLeases, chunkPassesRan, workBatch, type BatchWorkDeps } from "@/server/services/batches/batch-worker";
import { ChunkThread } from "@/server/services/batches/chunk-thread";
import { createBatch, getBatch, listBatchResults, type BatchResultItem } from "@/server/services/batches/batches";
import { getDashboardBatch } from "@/server/services/batches/dashboard";
import { DB_TARGETS } from "../helpers/targets";
import { openTestDatabase } from "../helpers/test-db";
import { waitFor } from "../helpers/wait";

// Progress (the batch's counters) and results (its items' states) read at moments when a chunk
// waits for a retry must agree, and finish counting every item exactly once.

const pan = (i: number) => `ABCPK${String(1000 + i).padStart(4, "0")}F`;
const BUDGET_MS = 60_000;

/**
 * Sandbox providers whose source fails for chosen PANs: `transient` ones with a 503 until let
 * through, `broken` ones with an error that is final. `stall` holds every lookup until released.
 */
function flakyProviders(opts: { transient: Set<string>; broken: Set<string>; stall?: Promise<void> }) {
  let calls = 0;
  const lookup: PanProvider["lookup"] = async (p, o) => {
    calls++;
    await opts.stall;
    if (opts.transient.has(p)) throw new AppError("SOURCE_UNAVAILABLE");
    if (opts.broken.has(p)) throw new AppError("UPSTREAM_ERROR");
    return sandboxProviders.pan.lookup(p, o);
  };
  const providers: Record<"sandbox" | "live", ProviderSet> = {
    sandbox: { ...sandboxProviders, pan: { lookup } },
    live: sandboxProviders,
  };
  return { providers, calls: () => calls };
}

describe.each(DB_TARGETS)("batch progress and results agree on %s", (target) => {
  let url: string;
  let db: Db;
  let store: BatchStore;
  let stopDatabase: () => Promise<void>;
  const merchantId = newId("mer");
  const scope = (batchId: string) => ({ merchantId, mode: "sandbox" as const, kind: "PAN" as const, batchId });

  const chunkThread = new ChunkThread();
  const deps = (providers: Record<"sandbox" | "live", ProviderSet>, leaseMs?: number, thread: ChunkThread = chunkThread): BatchWorkDeps => ({
    db,
    store,
    providers,
    baseUrl: "http://127.0.0.1",
    retryBudgetMs: BUDGET_MS,
    leaseMs,
    chunkThread: thread,
  });

  /** Six PANs to run and one rejected at submission (index 6). */
  async function newBatch(): Promise<string> {
    const items = Array.from({ length: 6 }, (_, i) => ({ reference_id: `r${i}`, input: { pan: pan(i), name: null }, error: null }));
    const rejected = { reference_id: "r6", input: { pan: "NOTAPAN" }, error: { code: "INVALID_PAN" as const, message: "pan is not a PAN." } };
    const view = await createBatch(
      db,
      { merchantId, mode: "sandbox", kind: "PAN", requestId: newId("req"), apiKeyId: null, webhookUrl: null, clientBatchId: null, items: [...items, rejected] },
      { sandboxItemsPerDay: 1_000_000 },
    );
    return view.batch_id;
  }

  async function allResults(batchId: string): Promise<BatchResultItem[]> {
    return (await listBatchResults(db, scope(batchId), 0, 1000)).items;
  }

  /** Progress read, then results read: every item the results show as finished is counted, and nothing else. */
  async function expectAgreement(batchId: string) {
    const progress = await getBatch(db, merchantId, "sandbox", "PAN", batchId);
    const results = await allResults(batchId);
    const count = (s: string) => results.filter((r) => r.status === s).length;
    expect(progress).toMatchObject({ succeeded: count("SUCCEEDED"), failed: count("FAILED"), processed: count("SUCCEEDED") + count("FAILED") });
    return { progress, results };
  }

  /** The chunk's retry is due now (the backoff waited), without touching what it holds. */
  const dueNow = (batchId: string) => db.batchChunk.update({ where: { id: `${batchId}_0` }, data: { availableAt: new Date(Date.now() - 1) } });

  beforeAll(async () => {
    const database = await openTestDatabase(target, "parakh-progress-");
    url = database.url;
    stopDatabase = database.stop;
    db = createPrismaClient(url);
    store = createBatchStore(db, url, chunkLeases(db));
    await db.merchant.create({ data: { id: merchantId, name: "Progress Store", email: `${merchantId}@example.com`, passwordHash: "x" } });
  });
  afterAll(async () => {
    await chunkThread.close();
    store?.close();
    await db?.$disconnect();
    await stopDatabase?.();
  });

  it("counts items as their results appear while a chunk waits for retries, and each item once when it completes", async () => {
    const batchId = await newBatch();
    const transient = new Set([pan(2), pan(4)]);
    const source = flakyProviders({ transient, broken: new Set([pan(3)]) });

    // First pass: 0, 1, 5 answered, 3 failed for good, 2 and 4 wait for the source; 6 was rejected.
    expect(await workBatch(deps(source.providers), batchId)).not.toBeNull();
    const first = await expectAgreement(batchId);
    expect(first.progress).toMatchObject({ status: "PROCESSING", total: 7, processed: 5, succeeded: 3, failed: 2 });
    expect(first.results.map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "PENDING", "FAILED", "PENDING", "SUCCEEDED", "FAILED"]);
    expect(first.results[3]!.error).toMatchObject({ code: "UPSTREAM_ERROR" });

    // The page says how many wait and until when: the budget from the chunk's first transient error.
    const chunk = await db.batchChunk.findUniqueOrThrow({ where: { id: `${batchId}_0` } });
    expect(chunk.status).toBe("PENDING");
    const detail = await getDashboardBatch(db, merchantId, "sandbox", batchId, BUDGET_MS);
    expect(detail.waitingForSource).toEqual({
      items: 2,
      next_try_at: chunk.availableAt.toISOString(),
      retrying_until: new Date(chunk.retryingSince!.getTime() + BUDGET_MS).toISOString(),
    });
    const pending = await listBatchResults(db, scope(batchId), 0, 100, "PENDING");
    expect(pending.items.map((r) => r.index)).toEqual([2, 4]);

    // Second pass: 2 answers, 4 still waits.
    transient.delete(pan(2));
    await dueNow(batchId);
    expect(await workBatch(deps(source.providers), batchId)).not.toBeNull();
    const second = await expectAgreement(batchId);
    expect(second.progress).toMatchObject({ processed: 6, succeeded: 4, failed: 2 });
    expect((await getDashboardBatch(db, merchantId, "sandbox", batchId, BUDGET_MS)).waitingForSource).toMatchObject({ items: 1 });

    // Last pass: 4 answers and the chunk is committed; the items counted at retries are not counted again.
    transient.clear();
    await dueNow(batchId);
    expect(await workBatch(deps(source.providers), batchId)).toBeNull();
    const done = await expectAgreement(batchId);
    expect(done.progress).toMatchObject({ status: "COMPLETED", total: 7, processed: 7, succeeded: 5, failed: 2 });
    expect(await db.verification.count({ where: { batchId } })).toBe(6);
    expect((await getDashboardBatch(db, merchantId, "sandbox", batchId, BUDGET_MS)).waitingForSource).toBeNull();
  });

  it("runs sandbox chunks on the chunk thread, and on the event loop when that thread fails", async () => {
    const sandbox = { sandbox: sandboxProviders, live: sandboxProviders };
    const onThread = await newBatch();
    const before = { ...chunkPassesRan };
    expect(await workBatch(deps(sandbox), onThread)).toBeNull();
    expect(chunkPassesRan).toEqual({ chunk_thread: before.chunk_thread + 1, event_loop: before.event_loop });

    const failing = { run: () => Promise.reject(new Error("the batch chunk thread exited")), early: { take: () => undefined } } as unknown as ChunkThread;
    const fellBack = await newBatch();
    expect(await workBatch(deps(sandbox, undefined, failing), fellBack)).toBeNull();
    expect(chunkPassesRan).toEqual({ chunk_thread: before.chunk_thread + 1, event_loop: before.event_loop + 1 });

    // Either way the same results and history rows.
    for (const batchId of [onThread, fellBack]) {
      const { progress, results } = await expectAgreement(batchId);
      expect(progress).toMatchObject({ status: "COMPLETED", total: 7, processed: 7, succeeded: 6, failed: 1 });
      expect(results.map((r) => r.status)).toEqual([...Array(6).fill("SUCCEEDED"), "FAILED"]);
      const rows = await db.verification.findMany({
        where: { batchId },
        orderBy: { subject: "asc" },
        select: { subject: true, outcome: true, nameQueried: true },
      });
      expect(rows).toEqual(Array.from({ length: 6 }, (_, i) => ({ subject: pan(i), outcome: "VALID", nameQueried: null })));
    }
  });

  it("takes a chunk's early first pass, and counts a transient item's retry window from the claim, not from that pass", async () => {
    chunkThread.early.enable();
    const items = [0, 1].map((i) => ({ reference_id: `r${i}`, input: { pan: pan(i), name: null }, error: null }));
    const timeout = { reference_id: "r2", input: { pan: "ABCPK9997F", name: null }, error: null };
    const view = await createBatch(
      db,
      { merchantId, mode: "sandbox", kind: "PAN", requestId: newId("req"), apiKeyId: null, webhookUrl: null, clientBatchId: null, items: [...items, timeout] },
      { sandboxItemsPerDay: 1_000_000 },
      { passes: chunkThread.early, retryBudgetMs: BUDGET_MS },
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // the early pass runs meanwhile
    const before = { taken: chunkThread.early.counts.taken, claimedAt: Date.now() };
    expect(await workBatch(deps({ sandbox: sandboxProviders, live: sandboxProviders }), view.batch_id)).not.toBeNull();
    expect(chunkThread.early.counts.taken).toBe(before.taken + 1);
    const chunk = await db.batchChunk.findUniqueOrThrow({ where: { id: `${view.batch_id}_0` } });
    expect(chunk).toMatchObject({ status: "PENDING", succeeded: 2, failed: 0 });
    expect(chunk.retryingSince!.getTime()).toBeGreaterThanOrEqual(before.claimedAt);
    const { progress } = await expectAgreement(view.batch_id);
    expect(progress).toMatchObject({ status: "PROCESSING", processed: 2, succeeded: 2 });
  });

  it("fails an accepted item stored without its input on its own, and completes the batch", async () => {
    // What a body thread once stored for one PAN of a batch: accepted, input {}. Its history row
    // could not be written (no subject), so the chunk's commit failed on every retry.
    const damaged = [{}, null, { name: "Arjun Kapoor" }];
    const items = [0, 1, 2, 3, 4, 5].map((i) => ({
      reference_id: `r${i}`,
      input: i % 2 === 1 ? damaged[(i - 1) / 2] : { pan: pan(i), name: null },
      error: null,
    }));
    const { batch_id: batchId } = await createBatch(
      db,
      { merchantId, mode: "sandbox", kind: "PAN", requestId: newId("req"), apiKeyId: null, webhookUrl: null, clientBatchId: null, items },
      { sandboxItemsPerDay: 1_000_000 },
    );
    const source = flakyProviders({ transient: new Set(), broken: new Set() });
    expect(await workBatch(deps(source.providers), batchId)).toBeNull();
    const done = await expectAgreement(batchId);
    expect(done.progress).toMatchObject({ status: "COMPLETED", total: 6, processed: 6, succeeded: 3, failed: 3 });
    expect(done.results.map((r) => [r.status, r.error?.code ?? null, (r.result as { pan?: string } | null)?.pan ?? null])).toEqual([
      ["SUCCEEDED", null, pan(0)],
      ["FAILED", "INTERNAL_ERROR", null],
      ["SUCCEEDED", null, pan(2)],
      ["FAILED", "INTERNAL_ERROR", null],
      ["SUCCEEDED", null, pan(4)],
      ["FAILED", "INTERNAL_ERROR", null],
    ]);
    // The source was never asked about them, and only the items that ran have a history row.
    expect(source.calls()).toBe(3);
    const rows = await db.verification.findMany({ where: { batchId }, select: { subject: true }, orderBy: { subject: "asc" } });
    expect(rows.map((r) => r.subject)).toEqual([pan(0), pan(2), pan(4)]);

    // An EPFO item with neither lookup (or both) is failed the same way.
    const epfoItems = [{ uan: "100200300400" }, {}, { uan: "100200300400", pf_number: "MH/BAN/0000064/000/0000123" }].map((input) => ({
      reference_id: null,
      input,
      error: null,
    }));
    const epfo = await createBatch(
      db,
      { merchantId, mode: "sandbox", kind: "EPFO", requestId: newId("req"), apiKeyId: null, webhookUrl: null, clientBatchId: null, items: epfoItems },
      { sandboxItemsPerDay: 1_000_000 },
    );
    expect(await workBatch(deps(source.providers), epfo.batch_id)).toBeNull();
    const epfoResults = await listBatchResults(db, { ...scope(epfo.batch_id), kind: "EPFO" }, 0, 10);
    expect(epfoResults.items.map((r) => r.error?.code ?? null)).toEqual([null, "INTERNAL_ERROR", "INTERNAL_ERROR"]);
    expect(await getBatch(db, merchantId, "sandbox", "EPFO", epfo.batch_id)).toMatchObject({ status: "COMPLETED", processed: 3, succeeded: 1, failed: 2 });
    expect(await db.verification.count({ where: { batchId: epfo.batch_id } })).toBe(1);
  });

  it("counts nothing for a worker whose lease was lost before it put the chunk back", async () => {
    const batchId = await newBatch();
    let release!: () => void;
    const stall = new Promise<void>((resolve) => (release = resolve));
    // Worker A (50 ms lease, renewed no sooner than every 100 ms) stalls in the source and loses the chunk.
    const a = flakyProviders({ transient: new Set([pan(2)]), broken: new Set(), stall });
    const runA = workBatch(deps(a.providers, 50), batchId);
    await waitFor("worker A stuck in the source", () => a.calls() > 0);
    await waitFor(
      "worker A's lease to run out",
      async () => (await db.batchChunk.findUniqueOrThrow({ where: { id: `${batchId}_0` } })).leaseUntil! < new Date(),
    );

    // Worker B takes the chunk and finishes the batch; A then tries to put it back with a partial result.
    const b = flakyProviders({ transient: new Set(), broken: new Set() });
    await waitFor("worker B to finish the batch", async () => (await workBatch(deps(b.providers), batchId)) === null, 10_000, 10);
    release();
    await runA;

    const done = await expectAgreement(batchId);
    expect(done.progress).toMatchObject({ status: "COMPLETED", processed: 7, succeeded: 6, failed: 1 });
    expect(done.results.every((r) => r.status !== "PENDING")).toBe(true);
    expect(await db.verification.count({ where: { batchId } })).toBe(6);
  });
});
