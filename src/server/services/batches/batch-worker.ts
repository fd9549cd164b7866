/**
 * The batch chunk worker, run by `batch.work` jobs (src/server/jobs/registry.ts).
 *
 * A chunk is leased by one worker (claimed in one statement by the batch store, then renewed and
 * released like the job queue's leases, src/server/jobs/lease.ts), run, and committed DONE together
 * with the batch's counters and the merchant's verification rows, in one transaction conditional on
 * the lease; while the worker's turn goes on, that transaction also claims its next chunk. So an item
 * lands in the results exactly once, whichever worker or instance ran it and however often one crashed.
 * A chunk put back to wait for a retry shows the outcomes it has so far, and the batch counts them in
 * the same transaction.
 *
 * Each batch gets up to three `batch.work` jobs, so that while one commits a chunk the others run
 * their items (sandbox items on the chunk thread, ./chunk-thread.ts). A job takes chunks one at a
 * time for at most SLICE_MS, then gives its slot back (rescheduled for now, behind any job that
 * waited longer), so one merchant's 10,000 items never hold the queue from another merchant's one.
 */
import type { ConsentSource } from "@/lib/consent";
import { DEFAULT_JOB_LEASE_MS, MAX_BATCH_RETRY_BUDGET_MS } from "@/lib/limits";
import { vendorConsentOf } from "@/server/services/consent/consent";
import type { Mode } from "@/lib/mode";
import type { BatchStart, BatchStore, ClaimedChunkRow } from "@/server/db/batch-store";
import type { Db, DbTx } from "@/server/db/client";
import { randomToken } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { keepLease, LeasedRows, type Lease } from "@/server/jobs/lease";
import { backoffCeiling } from "@/server/jobs/policy";
import { sandboxProviders, type ProviderSet } from "@/server/providers";
import { emitWebhookEvent } from "@/server/services/webhooks/events";
import { BATCH_EVENTS, BATCH_PATHS, BATCH_VIEW_SELECT, batchView, type BatchKind } from "./batches";
import { bulkStep, DEFAULT_BULK_POLL_LIMIT_MS } from "./bulk-pass";
import { runChunkPass, type ChunkCounts, type ChunkPass, type ChunkPassJob } from "./chunk-pass";
import type { ChunkThread } from "./chunk-thread";

/** How long a job works a batch before giving its runner slot to whatever waited longer. */
const SLICE_MS = 250;
/** Renewals of a chunk's lease come no closer together than this. */
const CHUNK_RENEW_MIN_MS = 100;
/** A chunk's retries back off 1 s, 2 s, 4 s … up to 32 s (or what Retry-After asks). */
const CHUNK_BACKOFF = { baseMs: 1_000, maxMs: 32_000 };

export interface BatchWorkDeps {
  db: Db;
  store: BatchStore;
  providers: Record<Mode, ProviderSet>;
  /** Absolute origin of the /v1 API, for the event's results_url. */
  baseUrl: string;
  /** How long an item's transient source errors are retried (default and most: MAX_BATCH_RETRY_BUDGET_MS). */
  retryBudgetMs?: number;
  /** How long a claimed chunk stays with its worker (the job lease; default DEFAULT_JOB_LEASE_MS). */
  leaseMs?: number;
  now?: () => number;
  /** Where chunks of sandbox batches run their items; without it, on the event loop. */
  chunkThread?: ChunkThread;
  /** How long a live PAN chunk's bulk request is read back before its items go to single calls (default DEFAULT_BULK_POLL_LIMIT_MS). */
  bulkPollLimitMs?: number;
}

interface RunningBatch {
  id: string;
  kind: BatchKind;
  mode: Mode;
  merchantId: string;
  requestId: string;
  consent: boolean | null;
  purpose: string | null;
  consentSource: string | null;
}

/** What a live vendor is told of the batch's consent, checked when the batch was submitted (absent in sandbox). */
const vendorConsentOfBatch = (b: RunningBatch) =>
  vendorConsentOf(b.mode, { consent: b.consent, purpose: b.purpose, source: b.consentSource as ConsentSource | null });

type ClaimedChunk = ClaimedChunkRow & { lease: Lease };

/**
 * The BatchChunk table's lease: PENDING until availableAt, RUNNING under `leaseToken` until `leaseUntil`.
 * The batch store claims by its claimableSql (src/server/db/batch-store.ts).
 */
export function chunkLeases(db: Pick<Db | DbTx, "batchChunk">): LeasedRows {
  return new LeasedRows(() => db.batchChunk, { free: "PENDING", held: "RUNNING", token: "leaseToken", until: "leaseUntil", due: "availableAt" });
}

/**
 * One turn of a `batch.work` job: runs chunks of the batch for up to SLICE_MS. Returns when to come
 * back (more work, or chunks waiting for a retry or held by another worker), or null when the
 * batch is finished (this turn finished it, or another worker did).
 */
export async function workBatch(deps: BatchWorkDeps, batchId: string, signal?: AbortSignal): Promise<Date | null> {
  const { db } = deps;
  const found = await deps.store.batchForTurn(batchId);
  if (!found || found.status === "COMPLETED" || found.status === "FAILED") return null;
  const batch = { id: batchId, ...found };
  const leases = chunkLeases(db);
  // A chunk is leased like a job: a worker that died holding one loses it after the lease.
  const leaseMs = deps.leaseMs ?? DEFAULT_JOB_LEASE_MS;
  const sliceEnd = Date.now() + SLICE_MS;
  const turnGoesOn = () => !signal?.aborted && Date.now() < sliceEnd;
  if (signal?.aborted) return new Date();
  // The first turn starts the batch in the write of its first claim.
  let chunk = await claimChunk(deps.store, batchId, leaseMs, batch.status === "QUEUED" ? { startedAt: new Date() } : undefined);
  while (chunk) {
    // Renewed while the items run, so a slow source does not let another worker take the chunk.
    const renewal = keepLease(leases, chunk.lease, { leaseMs, minIntervalMs: CHUNK_RENEW_MIN_MS, onError: () => undefined });
    let next: ClaimedChunk | null | undefined | typeof BATCH_DONE;
    try {
      // While the turn goes on, the commit also claims the next chunk (one write instead of two).
      next = await runChunk(deps, batch as RunningBatch, chunk, turnGoesOn() ? leaseMs : null);
    } finally {
      renewal.stop();
    }
    if (next === BATCH_DONE) {
      await endOnce(deps, batchId, "COMPLETED");
      return null;
    }
    // A chunk claimed with the commit is run even if the turn ended meanwhile: left alone, it would wait out its lease.
    if (next === undefined && !turnGoesOn()) return new Date();
    if (next === null) break; // the commit's claim found nothing to take now
    // Let requests in between chunks: SQLite queries settle without I/O, so nothing else would run.
    await new Promise((resolve) => setImmediate(resolve));
    chunk = next ?? (await claimChunk(deps.store, batchId, leaseMs));
  }
  return nextLook(deps, batchId);
}

/** Nothing to take now: the batch is finished, or waits on retries or on chunks another worker holds. */
async function nextLook(deps: BatchWorkDeps, batchId: string): Promise<Date | null> {
  const open = await deps.store.openChunks(batchId);
  if (open.length === 0) {
    await endOnce(deps, batchId, "COMPLETED");
    return null;
  }
  const next = Math.min(...open.map((c) => (c.status === "RUNNING" && c.leaseUntil ? c.leaseUntil.getTime() : c.availableAt.getTime())));
  // Chunks held by a live worker finish long before their lease ends: look again soon.
  return new Date(Math.max(Date.now() + 50, Math.min(next, Date.now() + 1_000)));
}

/** What a commit answers when it was the batch's last chunk not done: nothing is left to look at. */
const BATCH_DONE = "batch done";

/** A fresh lease for a claim: its token and end. */
function newLease(leaseMs: number) {
  return { leaseToken: randomToken(12), leaseUntil: new Date(Date.now() + leaseMs) };
}

function claimed(row: ClaimedChunkRow | null, lease: { leaseToken: string; leaseUntil: Date }): ClaimedChunk | null {
  return row && { ...row, lease: { id: row.id, token: lease.leaseToken, until: lease.leaseUntil.getTime() } };
}

/** Claims the batch's first claimable chunk for this worker. */
async function claimChunk(store: BatchStore, batchId: string, leaseMs: number, start?: BatchStart): Promise<ClaimedChunk | null> {
  const lease = newLease(leaseMs);
  return claimed(await store.claimChunk(batchId, lease.leaseToken, lease.leaseUntil, start), lease);
}

/**
 * Runs a pass over a claimed chunk's items (./chunk-pass.ts), then commits the chunk or schedules its
 * retry. With `claimNextMs`, the commit also claims the batch's next chunk: returned, or null when
 * none was claimable, or BATCH_DONE when none is left at all; undefined when no claim was made (a
 * retry, or no `claimNextMs`).
 */
async function runChunk(deps: BatchWorkDeps, batch: RunningBatch, chunk: ClaimedChunk, claimNextMs: number | null) {
  const budget = deps.retryBudgetMs ?? MAX_BATCH_RETRY_BUDGET_MS;
  // Live PAN items go to the vendor's bulk verification first; what it does not answer, to single calls.
  const providers = deps.providers[batch.mode];
  const bulk =
    batch.mode === "live"
      ? await bulkStep(
          { db: deps.db, providers, pollLimitMs: deps.bulkPollLimitMs ?? DEFAULT_BULK_POLL_LIMIT_MS, now: deps.now ?? Date.now },
          { kind: batch.kind, items: chunk.items, results: chunk.results, bulk: chunk.bulk, lease: chunk.lease, consent: vendorConsentOfBatch(batch) },
        )
      : null;
  if (bulk?.next === "lost") return undefined;
  if (bulk?.next === "wait") {
    // Its answer comes later: the chunk waits like a retry, and its retry window and passes are left as they were.
    await chunkLeases(deps.db).retryAt(chunk.lease, bulk.at, { bulk: JSON.stringify(bulk.bulk) });
    return undefined;
  }
  const job: ChunkPassJob = {
    kind: batch.kind,
    items: chunk.items,
    results: bulk ? bulk.results : chunk.results,
    retryingSince: chunk.retryingSince?.getTime() ?? null,
    retryBudgetMs: budget,
    consent: vendorConsentOfBatch(batch),
  };
  const pass = await chunkPass(deps, batch.mode, chunk.id, job);
  if (!pass.done) {
    // Back off (or wait what Retry-After asks), never past the item's retry budget.
    const now = (deps.now ?? Date.now)();
    const since = job.retryingSince ?? pass.firstTransientAt;
    const backoff = Math.max(pass.waitMs, backoffCeiling(chunk.passes + 1, CHUNK_BACKOFF));
    const availableAt = new Date(Math.min(now + backoff, since + budget));
    await putBackForRetry(deps.db, batch.id, chunk, availableAt, {
      results: pass.results,
      since: new Date(since),
      finished: pass,
      bulk: bulk?.bulk ? JSON.stringify(bulk.bulk) : chunk.bulk,
    });
    return undefined;
  }
  return commitChunk(deps, batch, chunk, pass, claimNextMs);
}

/** Passes over chunks this process has run, by where they ran (read by /metrics). */
export const chunkPassesRan = { chunk_thread: 0, event_loop: 0 };

/**
 * Sandbox fixtures run on the chunk thread when there is one (falling back to the event loop if it
 * fails), or the chunk's first pass was started there when its batch was stored; any other source here.
 */
async function chunkPass(deps: BatchWorkDeps, mode: Mode, chunkId: string, job: ChunkPassJob): Promise<ChunkPass> {
  const providers = deps.providers[mode];
  if (deps.chunkThread && providers === sandboxProviders) {
    try {
      const early = deps.chunkThread.early.take(chunkId, job);
      const pass = await (early ?? deps.chunkThread.run(job));
      chunkPassesRan.chunk_thread++;
      // An early pass's transient errors count their retry window from this claim, as a pass run now would.
      return early && !pass.done ? { ...pass, firstTransientAt: (deps.now ?? Date.now)() } : pass;
    } catch (err) {
      log.warn("a batch chunk ran on the event loop: its thread failed", { err });
    }
  }
  const pass = await runChunkPass(job, providers, deps.now);
  chunkPassesRan.event_loop++;
  return pass;
}

/**
 * Puts a chunk back to wait for its retry with the outcomes it has so far, and counts the items that
 * finished in this pass in the same transaction, so progress and results agree at every moment.
 * Nothing is written (or counted) once the lease was lost; the chunk's own counts say what the batch
 * has counted already, so a later pass or the final commit adds only what is new.
 */
async function putBackForRetry(
  db: Db,
  batchId: string,
  chunk: ClaimedChunk,
  availableAt: Date,
  pass: { results: string; since: Date; finished: ChunkCounts; bulk: string | null },
) {
  const { succeeded, failed } = pass.finished;
  const newSucceeded = succeeded - chunk.succeeded;
  const newFailed = failed - chunk.failed;
  await db.$transaction(async (tx: DbTx) => {
    const held = await chunkLeases(tx).retryAt(chunk.lease, availableAt, {
      results: pass.results,
      passes: { increment: 1 },
      retryingSince: pass.since,
      succeeded,
      failed,
      bulk: pass.bulk,
    });
    if (!held || newSucceeded + newFailed === 0) return;
    await tx.batch.update({
      where: { id: batchId },
      data: { processed: { increment: newSucceeded + newFailed }, succeeded: { increment: newSucceeded }, failed: { increment: newFailed } },
    });
  });
}

/** The chunk's results, the batch's counters and the verification rows, written while this worker holds the lease. */
async function commitChunk(
  deps: BatchWorkDeps,
  batch: RunningBatch,
  chunk: ClaimedChunk,
  pass: Extract<ChunkPass, { done: true }>,
  claimNextMs: number | null,
): Promise<ClaimedChunk | null | undefined | typeof BATCH_DONE> {
  // Applies only while this worker holds the lease: a worker that stalled past it writes nothing.
  const commit = {
    chunkId: chunk.id,
    leaseToken: chunk.lease.token,
    batchId: batch.id,
    results: pass.results,
    succeeded: pass.succeeded,
    failed: pass.failed,
    countedBefore: { succeeded: chunk.succeeded, failed: chunk.failed },
    completedAt: new Date(),
    verifications: { merchantId: batch.merchantId, mode: batch.mode, kind: batch.kind, requestId: batch.requestId, rows: pass.rows },
  };
  if (claimNextMs === null) {
    await deps.store.commitChunk(commit);
    return undefined;
  }
  const lease = newLease(claimNextMs);
  const done = await deps.store.commitAndClaim(commit, lease);
  return done.batchDone ? BATCH_DONE : claimed(done.next, lease);
}

/** Ends the batch once (whichever worker gets here first) and emits its event in the same transaction. */
async function endOnce(deps: Pick<BatchWorkDeps, "db" | "baseUrl">, batchId: string, status: "COMPLETED" | "FAILED") {
  await deps.db.$transaction(async (tx: DbTx) => {
    const completedAt = new Date();
    const { count } = await tx.batch.updateMany({
      where: { id: batchId, status: { in: ["QUEUED", "PROCESSING"] } },
      data: { status, completedAt },
    });
    if (count !== 1) return;
    const b = await tx.batch.findUniqueOrThrow({
      where: { id: batchId },
      select: { ...BATCH_VIEW_SELECT, kind: true, mode: true, merchantId: true, webhookUrl: true },
    });
    const kind = b.kind as BatchKind;
    await emitWebhookEvent(tx, {
      merchantId: b.merchantId,
      mode: b.mode,
      type: BATCH_EVENTS[kind],
      subjectId: b.id,
      data: { ...batchView({ ...b, startedAt: b.startedAt ?? completedAt }), results_url: `${deps.baseUrl}/v1/${BATCH_PATHS[kind]}/batch/${b.id}/results` },
      extraUrl: b.webhookUrl,
      at: completedAt,
    });
  });
}

/**
 * A batch whose workers gave up (their jobs used every attempt, e.g. through a long database
 * outage) ends FAILED with its event, instead of staying PROCESSING with nobody working it.
 */
export async function failBatch(deps: Pick<BatchWorkDeps, "db" | "baseUrl">, batchId: string) {
  await endOnce(deps, batchId, "FAILED");
}
