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
 * Each batch gets up to two `batch.work` jobs. A job takes chunks one at a time for at most
 * SLICE_MS, then gives its slot back (rescheduled for now, behind any job that waited longer), so
 * one merchant's 10,000 items never hold the queue from another merchant's one.
 */
import type { Mode } from "@/lib/mode";
import type { BatchStart, BatchStore, BatchVerificationRow, ClaimedChunkRow } from "@/server/db/batch-store";
import type { Db, DbTx } from "@/server/db/client";
import { AppError, type ErrorCode } from "@/server/errors";
import { newSortableId, randomToken } from "@/server/lib/ids";
import { keepLease, LeasedRows, type Lease } from "@/server/jobs/lease";
import { backoffCeiling } from "@/server/jobs/policy";
import type { ProviderSet } from "@/server/providers";
import { nameMatchScore } from "@/server/services/identity/name-match";
import { emitWebhookEvent } from "@/server/services/webhooks/events";
import { BATCH_ITEM_KINDS, UNUSABLE_ITEM_ERROR, type BatchItemKind, type NameScorer } from "./batch-item-kinds";
import { BATCH_EVENTS, BATCH_PATHS, BATCH_VIEW_SELECT, batchView, type BatchKind, type ItemOutcome, type StoredItem } from "./batches";

/** How long a job works a batch before giving its runner slot to whatever waited longer. */
const SLICE_MS = 250;
/** A chunk's lease (default): a worker that died holding one loses it after this. */
const CHUNK_LEASE_MS = 30_000;
/** Renewals of a chunk's lease come no closer together than this. */
const CHUNK_RENEW_MIN_MS = 100;
/** Items of one chunk sent to the source at once. */
const ITEM_CONCURRENCY = 16;
/** Transient source errors are retried for at most this long per item, whatever Retry-After says. */
export const DEFAULT_RETRY_BUDGET_MS = 30_000;
const TRANSIENT: ReadonlySet<ErrorCode> = new Set(["SOURCE_UNAVAILABLE", "SOURCE_TIMEOUT"]);
/** A chunk's retries back off 1 s, 2 s, 4 s … up to 32 s (or what Retry-After asks). */
const CHUNK_BACKOFF = { baseMs: 1_000, maxMs: 32_000 };

export interface BatchWorkDeps {
  db: Db;
  store: BatchStore;
  providers: Record<Mode, ProviderSet>;
  /** Absolute origin of the /v1 API, for the event's results_url. */
  baseUrl: string;
  retryBudgetMs?: number;
  /** How long a claimed chunk stays with its worker (the job lease; default 30 s). */
  leaseMs?: number;
  now?: () => number;
}

interface RunningBatch {
  id: string;
  kind: BatchKind;
  mode: Mode;
  merchantId: string;
  requestId: string;
}

type ClaimedChunk = ClaimedChunkRow & { lease: Lease };

/** The BatchChunk table's lease: PENDING until availableAt, RUNNING under `leaseToken` until `leaseUntil`. */
function chunkLeases(db: Pick<Db | DbTx, "batchChunk">): LeasedRows {
  return new LeasedRows(() => db.batchChunk, { free: "PENDING", held: "RUNNING", token: "leaseToken", until: "leaseUntil", due: "availableAt" });
}

/**
 * One turn of a `batch.work` job: runs chunks of the batch for up to SLICE_MS. Returns when to come
 * back (more work, or chunks waiting for a retry or held by another worker), or null when the
 * batch is finished (this turn finished it, or another worker did).
 */
export async function workBatch(deps: BatchWorkDeps, batchId: string, signal?: AbortSignal): Promise<Date | null> {
  const { db } = deps;
  const batch = await db.batch.findUnique({
    where: { id: batchId },
    select: { id: true, status: true, kind: true, mode: true, merchantId: true, requestId: true },
  });
  if (!batch || batch.status === "COMPLETED" || batch.status === "FAILED") return null;
  const leases = chunkLeases(db);
  const leaseMs = deps.leaseMs ?? CHUNK_LEASE_MS;
  const sliceEnd = Date.now() + SLICE_MS;
  const turnGoesOn = () => !signal?.aborted && Date.now() < sliceEnd;
  if (signal?.aborted) return new Date();
  // The first turn starts the batch in the write of its first claim.
  let chunk = await claimChunk(deps.store, batchId, leaseMs, batch.status === "QUEUED" ? { startedAt: new Date() } : undefined);
  while (chunk) {
    // Renewed while the items run, so a slow source does not let another worker take the chunk.
    const renewal = keepLease(leases, chunk.lease, { leaseMs, minIntervalMs: CHUNK_RENEW_MIN_MS, onError: () => undefined });
    let next: ClaimedChunk | null | undefined;
    try {
      // While the turn goes on, the commit also claims the next chunk (one write instead of two).
      next = await runChunk(deps, batch as RunningBatch, chunk, turnGoesOn() ? leaseMs : null);
    } finally {
      renewal.stop();
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
  const open = await deps.db.batchChunk.findMany({
    where: { batchId, status: { not: "DONE" } },
    select: { status: true, availableAt: true, leaseUntil: true },
  });
  if (open.length === 0) {
    await endOnce(deps, batchId, "COMPLETED");
    return null;
  }
  const next = Math.min(...open.map((c) => (c.status === "RUNNING" && c.leaseUntil ? c.leaseUntil.getTime() : c.availableAt.getTime())));
  // Chunks held by a live worker finish long before their lease ends: look again soon.
  return new Date(Math.max(Date.now() + 50, Math.min(next, Date.now() + 1_000)));
}

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
 * The name match, remembering each pair it scored: a chunk often checks one name against the same
 * name on record again (the same person, or a payroll's one name format), and the score is the
 * same every time.
 */
function rememberedNameScores(): NameScorer {
  const byQueried = new Map<string, Map<string, number>>();
  return (queried, onRecord) => {
    let byRecord = byQueried.get(queried);
    if (!byRecord) byQueried.set(queried, (byRecord = new Map()));
    let score = byRecord.get(onRecord);
    if (score === undefined) byRecord.set(onRecord, (score = nameMatchScore(queried, onRecord)));
    return score;
  };
}

async function runItem(providers: ProviderSet, kind: BatchItemKind, stored: unknown, scoreNames: NameScorer): Promise<ItemOutcome & { transient?: number }> {
  const input = kind.inputOf(stored);
  if (input === null) return { result: null, error: { ...UNUSABLE_ITEM_ERROR } };
  try {
    return await kind.run(providers, input, scoreNames);
  } catch (err) {
    const e = err instanceof AppError ? err : new AppError("SOURCE_UNAVAILABLE");
    const error = { code: e.code, message: e.message };
    if (TRANSIENT.has(e.code)) return { result: null, error, transient: (e.retryAfterSeconds ?? 1) * 1000 };
    return { result: null, error };
  }
}

/** Items left for a retry after a pass, the longest Retry-After among them, and when the first failed. */
interface PassResult {
  transientLeft: number;
  waitMs: number;
  firstTransientAt: number | null;
}

/** Runs the items that have no outcome yet, filling `outcomes`; a transient error within the budget leaves its item for a retry. */
async function runPendingItems(deps: BatchWorkDeps, batch: RunningBatch, chunk: ClaimedChunk, items: StoredItem[], outcomes: (ItemOutcome | null)[]) {
  const now = deps.now ?? Date.now;
  const budget = deps.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS;
  const providers = deps.providers[batch.mode];
  const deadline = chunk.retryingSince ? chunk.retryingSince.getTime() + budget : null;
  const todo = items.map((_, k) => k).filter((k) => outcomes[k] === null);
  const pass: PassResult = { transientLeft: 0, waitMs: 0, firstTransientAt: null };
  const scoreNames = rememberedNameScores();
  const kind = BATCH_ITEM_KINDS[batch.kind];
  let cursor = 0;
  await Promise.all(
    Array.from({ length: Math.min(ITEM_CONCURRENCY, todo.length) }, async () => {
      for (let k = todo[cursor++]; k !== undefined; k = todo[cursor++]) {
        const { transient, ...outcome } = await runItem(providers, kind, items[k]!.input, scoreNames);
        if (transient !== undefined) {
          const t = now();
          pass.firstTransientAt ??= t;
          // Out of budget: the error is the item's outcome.
          if ((deadline ?? t + budget) > t) {
            pass.transientLeft++;
            pass.waitMs = Math.max(pass.waitMs, transient);
            continue;
          }
        }
        outcomes[k] = outcome;
      }
    }),
  );
  return pass;
}

/** The chunk's items that have an outcome, as the batch counts them; rejected items were counted at submission. */
function finishedCounts(items: StoredItem[], outcomes: (ItemOutcome | null)[]) {
  let succeeded = 0;
  let failed = 0;
  items.forEach((item, k) => {
    const o = outcomes[k];
    if (item.error || !o) return;
    if (o.error) failed++;
    else succeeded++;
  });
  return { succeeded, failed };
}

/**
 * Runs the items of a claimed chunk that have no outcome yet, then commits it or schedules its
 * retry. With `claimNextMs`, the commit also claims the batch's next chunk: returned, or null when
 * none was claimable; undefined when no claim was made (a retry, or no `claimNextMs`).
 */
async function runChunk(deps: BatchWorkDeps, batch: RunningBatch, chunk: ClaimedChunk, claimNextMs: number | null) {
  const items = JSON.parse(chunk.items) as StoredItem[];
  const outcomes = (chunk.results ? JSON.parse(chunk.results) : items.map(() => null)) as (ItemOutcome | null)[];
  const pass = await runPendingItems(deps, batch, chunk, items, outcomes);
  if (pass.transientLeft > 0) {
    // Back off (or wait what Retry-After asks), never past the item's retry budget.
    const now = (deps.now ?? Date.now)();
    const since = chunk.retryingSince?.getTime() ?? pass.firstTransientAt!;
    const backoff = Math.max(pass.waitMs, backoffCeiling(chunk.passes + 1, CHUNK_BACKOFF));
    const availableAt = new Date(Math.min(now + backoff, since + (deps.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS)));
    await putBackForRetry(deps.db, batch.id, chunk, availableAt, { outcomes, since: new Date(since), finished: finishedCounts(items, outcomes) });
    return undefined;
  }
  return commitChunk(deps, batch, chunk, items, outcomes as ItemOutcome[], claimNextMs);
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
  pass: { outcomes: (ItemOutcome | null)[]; since: Date; finished: { succeeded: number; failed: number } },
) {
  const { succeeded, failed } = pass.finished;
  const newSucceeded = succeeded - chunk.succeeded;
  const newFailed = failed - chunk.failed;
  await db.$transaction(async (tx: DbTx) => {
    const held = await chunkLeases(tx).retryAt(chunk.lease, availableAt, {
      results: JSON.stringify(pass.outcomes),
      passes: { increment: 1 },
      retryingSince: pass.since,
      succeeded,
      failed,
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
  items: StoredItem[],
  outcomes: ItemOutcome[],
  claimNextMs: number | null,
): Promise<ClaimedChunk | null | undefined> {
  let succeeded = 0;
  let failed = 0;
  const verifications: BatchVerificationRow[] = [];
  const completedAt = new Date();
  const kind = BATCH_ITEM_KINDS[batch.kind];
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!;
    if (item.error) continue; // rejected at submission: counted then
    const o = outcomes[k]!;
    if (o.error) failed++;
    else succeeded++;
    // An item that could not be run (its error says so) checked nothing: no history row.
    const input = kind.inputOf(item.input);
    if (input === null) continue;
    const record = kind.record(input, o);
    verifications.push({
      // Time-ordered: a chunk's thousand rows extend the end of the id index rather than touch a page each.
      id: newSortableId("ver", completedAt.getTime()),
      subject: record.subject,
      nameQueried: record.nameQueried,
      outcome: record.outcome,
      nameMatch: record.nameMatch,
      sourceNameMatch: record.sourceNameMatch ?? null,
      errorCode: record.errorCode,
    });
  }
  // Applies only while this worker holds the lease: a worker that stalled past it writes nothing.
  const commit = {
    chunkId: chunk.id,
    leaseToken: chunk.lease.token,
    batchId: batch.id,
    results: JSON.stringify(outcomes),
    succeeded,
    failed,
    countedBefore: { succeeded: chunk.succeeded, failed: chunk.failed },
    completedAt,
    verifications: { merchantId: batch.merchantId, mode: batch.mode, kind: batch.kind, requestId: batch.requestId, rows: verifications },
  };
  if (claimNextMs === null) {
    await deps.store.commitChunk(commit);
    return undefined;
  }
  const lease = newLease(claimNextMs);
  return claimed((await deps.store.commitAndClaim(commit, lease)).next, lease);
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
