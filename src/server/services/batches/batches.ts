/**
 * PAN and EPFO batches: up to 10,000 items per call, run in the background on the
 * durable job queue, results paged by the merchant and announced by one webhook event.
 *
 * Storage: one Batch row, and one BatchChunk row per CHUNK_SIZE items holding the submitted items
 * and, once run, their results as JSON. A chunk is the unit of work, of commit and of paging: it
 * is leased by one worker, run, and committed DONE together with the batch's counters and the
 * merchant's verification rows, in one transaction conditional on the lease. So an item lands in
 * the results exactly once, whichever worker or instance ran it and however often one crashed.
 *
 * Work: each batch gets up to WORKERS_PER_BATCH `batch.work` jobs. A job takes chunks one at a
 * time for at most SLICE_MS, then gives its slot back (rescheduled for now, behind any job that
 * waited longer), so one merchant's 10,000 items never hold the queue from another merchant's one.
 */
import type { Mode } from "@/lib/mode";
import { BATCH_MAX_ITEMS, type BatchStatusValue as BatchStatus } from "@/lib/schemas/batches";
import type { BatchVerificationRow, BatchStore } from "@/server/db/batch-store";
import type { Db, DbTx, Prisma } from "@/server/db/client";
import { AppError, type ErrorCode } from "@/server/errors";
import { isoOrNull } from "@/server/lib/dates";
import { newId, randomToken } from "@/server/lib/ids";
import { afterCursor, newestFirst } from "@/server/lib/pagination";
import { newJobRow } from "@/server/jobs/queue";
import type { ProviderSet } from "@/server/providers";
import { epfoVerificationRecord, verifyEpfo, type EpfoLookup } from "@/server/services/employment/verify-epfo";
import { panVerificationRecord, verifyPan } from "@/server/services/identity/verify-pan";
import { emitWebhookEvent } from "@/server/services/webhooks/events";

export type BatchKind = "PAN" | "EPFO";

export const BATCH_WORK_JOB = "batch.work";
/** Items per chunk: 100 rows for a full batch, a results page of 1,000 reads at most 11. */
export const CHUNK_SIZE = 100;
const WORKERS_PER_BATCH = 2;
/** How long a job works a batch before giving its runner slot to whatever waited longer. */
const SLICE_MS = 250;
/** A chunk's lease (default): a worker that died holding one loses it after this. */
const CHUNK_LEASE_MS = 30_000;
/** Items of one chunk sent to the source at once. */
const ITEM_CONCURRENCY = 16;
/** Unfinished batches one merchant may have per mode: each holds queue slots and storage. */
export const MAX_OPEN_BATCHES = 20;
/** Transient source errors are retried for at most this long per item, whatever Retry-After says. */
export const DEFAULT_RETRY_BUDGET_MS = 30_000;
const TRANSIENT: ReadonlySet<ErrorCode> = new Set(["SOURCE_UNAVAILABLE", "SOURCE_TIMEOUT"]);

export const BATCH_PATHS: Record<BatchKind, string> = { PAN: "identity/pan", EPFO: "employment/epfo" };
export const BATCH_EVENTS = { PAN: "pan.batch.completed", EPFO: "epfo.batch.completed" } as const;

export interface ItemError {
  code: ErrorCode;
  message: string;
}

/** PAN items after validation: `{pan, name}`; EPFO: `{uan}` or `{pf_number}`. */
export type PanItemInput = { pan: string; name: string | null };
export type EpfoItemInput = { uan: string } | { pf_number: string };

/** One submitted item: validated input, or the error the single call would have given. */
export interface SubmittedItem {
  reference_id: string | null;
  input: unknown;
  error: ItemError | null;
}

interface StoredItem {
  index: number;
  reference_id: string | null;
  input: unknown;
  error: ItemError | null;
}

interface ItemOutcome {
  result: unknown;
  error: ItemError | null;
}

/** Per-merchant allowances a batch is checked against (from the settings). */
export interface BatchLimits {
  /** Items a merchant may submit in sandbox in any 24 hours. */
  sandboxItemsPerDay: number;
}

/** The sandbox allowance is a rolling window: a batch's items count until a day after it was submitted. */
const SANDBOX_ALLOWANCE_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface NewBatch {
  merchantId: string;
  mode: Mode;
  kind: BatchKind;
  requestId: string;
  apiKeyId: string | null;
  webhookUrl: string | null;
  clientBatchId: string | null;
  items: SubmittedItem[];
}

type BatchRow = {
  id: string;
  status: string;
  total: number;
  accepted: number;
  rejected: number;
  processed: number;
  succeeded: number;
  failed: number;
  clientBatchId: string | null;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
};

export const BATCH_VIEW_SELECT = {
  id: true,
  status: true,
  total: true,
  accepted: true,
  rejected: true,
  processed: true,
  succeeded: true,
  failed: true,
  clientBatchId: true,
  createdAt: true,
  startedAt: true,
  completedAt: true,
} as const;

/** The batch status object of the API (plus accepted, rejected and client_batch_id). */
export function batchView(b: BatchRow) {
  return {
    batch_id: b.id,
    status: b.status as BatchStatus,
    total: b.total,
    accepted: b.accepted,
    rejected: b.rejected,
    processed: b.processed,
    succeeded: b.succeeded,
    failed: b.failed,
    client_batch_id: b.clientBatchId,
    created_at: b.createdAt.toISOString(),
    started_at: isoOrNull(b.startedAt),
    completed_at: isoOrNull(b.completedAt),
  };
}

export type BatchView = ReturnType<typeof batchView>;

/**
 * Refuses a sandbox batch that would take the merchant past its items in the last 24 hours, with
 * the wait until enough of them have left the window. Run in the creating transaction after a
 * lock on the merchant's row, so racing submissions are counted one after the other.
 */
async function checkSandboxAllowance(tx: DbTx, merchantId: string, total: number, perDay: number, now: Date) {
  if (total > perDay) throw new AppError("BATCH_TOO_LARGE", `A sandbox batch holds at most ${perDay} items (the daily allowance).`, { field: "items" });
  // A write to the merchant's row: PostgreSQL holds its row lock, SQLite its write lock, until commit.
  await tx.$executeRaw`UPDATE "Merchant" SET "id" = "id" WHERE "id" = ${merchantId}`;
  const window = { merchantId, mode: "sandbox", createdAt: { gt: new Date(now.getTime() - SANDBOX_ALLOWANCE_WINDOW_MS) } };
  const used = (await tx.batch.aggregate({ where: window, _sum: { total: true } }))._sum.total ?? 0;
  if (used + total <= perDay) return;
  // Oldest first: the batch whose leaving makes room says when to come back.
  let left = used;
  let cursor: { createdAt: Date; id: string } | undefined;
  let freeAt = now.getTime() + SANDBOX_ALLOWANCE_WINDOW_MS;
  search: for (;;) {
    const page = await tx.batch.findMany({
      where: { ...window, ...(cursor ? { OR: [{ createdAt: { gt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { gt: cursor.id } }] } : {}) },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { id: true, total: true, createdAt: true },
      take: 500,
    });
    for (const b of page) {
      left -= b.total;
      if (left + total <= perDay) {
        freeAt = b.createdAt.getTime() + SANDBOX_ALLOWANCE_WINDOW_MS;
        break search;
      }
    }
    if (page.length < 500) break;
    cursor = page[page.length - 1];
  }
  throw new AppError(
    "RATE_LIMITED",
    `Sandbox batches may hold ${perDay} items in any 24 hours and ${Math.max(0, perDay - used)} are left; retry after the time in Retry-After.`,
    { retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000)) },
  );
}

/**
 * Stores a batch, its chunks and its worker jobs in one transaction, and answers its summary.
 * Rejected items count as processed and failed from the start. In sandbox, every submitted item
 * counts against the merchant's daily allowance.
 */
export async function createBatch(db: Db, input: NewBatch, limits: BatchLimits) {
  const total = input.items.length;
  if (total === 0) throw new AppError("VALIDATION_ERROR", "items must hold at least one item.", { field: "items" });
  if (total > BATCH_MAX_ITEMS) throw new AppError("BATCH_TOO_LARGE");
  const rejected = input.items.filter((i) => i.error !== null).length;
  const id = newId("batch");
  const now = new Date();
  const chunkCount = Math.ceil(total / CHUNK_SIZE);
  const chunks: Prisma.BatchChunkCreateManyInput[] = [];
  for (let seq = 0; seq < chunkCount; seq++) {
    const slice: StoredItem[] = input.items.slice(seq * CHUNK_SIZE, (seq + 1) * CHUNK_SIZE).map((item, k) => ({ index: seq * CHUNK_SIZE + k, ...item }));
    const allRejected = slice.every((i) => i.error !== null);
    chunks.push({
      id: `${id}_${seq}`,
      batchId: id,
      seq,
      items: JSON.stringify(slice),
      // Rejected items have their outcome already; a chunk of nothing else is done from the start.
      results: JSON.stringify(slice.map((i) => (i.error ? { result: null, error: i.error } : null))),
      status: allRejected ? "DONE" : "PENDING",
      completedAt: allRejected ? now : null,
      availableAt: now,
    });
  }
  const workers = Math.max(1, Math.min(WORKERS_PER_BATCH, chunkCount));
  // A soft cap (two racing submissions may both pass): it bounds the work one merchant can queue.
  const open = await db.batch.count({ where: { merchantId: input.merchantId, mode: input.mode, status: { in: ["QUEUED", "PROCESSING"] } } });
  if (open >= MAX_OPEN_BATCHES) {
    throw new AppError("RATE_LIMITED", `At most ${MAX_OPEN_BATCHES} batches may run at once; submit this one when one of them has completed.`, {
      retryAfterSeconds: 5,
    });
  }
  const batch = await db.$transaction(async (tx) => {
    if (input.mode === "sandbox") await checkSandboxAllowance(tx, input.merchantId, total, limits.sandboxItemsPerDay, now);
    const created = await tx.batch.create({
      data: {
        id,
        merchantId: input.merchantId,
        mode: input.mode,
        kind: input.kind,
        status: "QUEUED",
        total,
        accepted: total - rejected,
        rejected,
        processed: rejected,
        succeeded: 0,
        failed: rejected,
        chunkSize: CHUNK_SIZE,
        chunkCount,
        webhookUrl: input.webhookUrl,
        clientBatchId: input.clientBatchId,
        requestId: input.requestId,
        apiKeyId: input.apiKeyId,
        createdAt: now,
      },
      select: BATCH_VIEW_SELECT,
    });
    await tx.batchChunk.createMany({ data: chunks });
    await tx.job.createMany({
      data: Array.from({ length: workers }, () => newJobRow({ type: BATCH_WORK_JOB, payload: { batchId: id }, runAt: now, maxAttempts: 20 })),
    });
    return created;
  });
  return batchView(batch);
}

async function findBatch(db: Db, merchantId: string, mode: Mode, kind: BatchKind, batchId: string) {
  const batch = await db.batch.findFirst({ where: { id: batchId, merchantId, mode, kind }, select: { ...BATCH_VIEW_SELECT, chunkSize: true } });
  if (!batch) throw new AppError("BATCH_NOT_FOUND");
  return batch;
}

export async function getBatch(db: Db, merchantId: string, mode: Mode, kind: BatchKind, batchId: string): Promise<BatchView> {
  return batchView(await findBatch(db, merchantId, mode, kind, batchId));
}

export interface BatchResultItem {
  index: number;
  reference_id: string | null;
  input: unknown;
  result: unknown;
  error: ItemError | null;
  /** PENDING until the item is run; SUCCEEDED (the source answered) or FAILED (an error) after. */
  status: "PENDING" | "SUCCEEDED" | "FAILED";
}

/** Items `from` .. `from + limit - 1` in index order, and where the next page starts (null at the end). */
export async function listBatchResults(
  db: Db,
  scope: { merchantId: string; mode: Mode; kind: BatchKind; batchId: string },
  from: number,
  limit: number,
): Promise<{ items: BatchResultItem[]; next: number | null }> {
  const batch = await findBatch(db, scope.merchantId, scope.mode, scope.kind, scope.batchId);
  const end = Math.min(from + limit, batch.total);
  if (from >= end) return { items: [], next: null };
  const chunks = await db.batchChunk.findMany({
    where: { batchId: batch.id, seq: { gte: Math.floor(from / batch.chunkSize), lte: Math.floor((end - 1) / batch.chunkSize) } },
    orderBy: { seq: "asc" },
    select: { seq: true, items: true, results: true },
  });
  const items: BatchResultItem[] = [];
  for (const chunk of chunks) {
    const stored = JSON.parse(chunk.items) as StoredItem[];
    const outcomes = (chunk.results ? JSON.parse(chunk.results) : []) as (ItemOutcome | null)[];
    stored.forEach((item, k) => {
      if (item.index < from || item.index >= end) return;
      const outcome = outcomes[k] ?? null;
      items.push({
        index: item.index,
        reference_id: item.reference_id,
        input: item.input,
        result: outcome?.result ?? null,
        error: outcome?.error ?? null,
        status: outcome === null ? "PENDING" : outcome.error ? "FAILED" : "SUCCEEDED",
      });
    });
  }
  return { items, next: end < batch.total ? end : null };
}

/** A merchant's batches in one mode, newest first (dashboard). */
export async function listBatches(db: Db, merchantId: string, mode: Mode, opts: { kind?: BatchKind; cursor?: string; limit: number }) {
  return db.batch.findMany({
    where: { merchantId, mode, ...(opts.kind ? { kind: opts.kind } : {}), ...afterCursor(opts.cursor) },
    orderBy: newestFirst,
    take: opts.limit + 1,
    select: { ...BATCH_VIEW_SELECT, kind: true, webhookUrl: true },
  });
}

// ---------------------------------------------------------------------------------------------
// Running

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
  if (batch.status === "QUEUED") await db.batch.updateMany({ where: { id: batchId, status: "QUEUED" }, data: { status: "PROCESSING", startedAt: new Date() } });
  const sliceEnd = Date.now() + SLICE_MS;
  for (;;) {
    if (signal?.aborted) return new Date();
    const chunk = await claimChunk(db, batchId, deps.leaseMs ?? CHUNK_LEASE_MS);
    if (!chunk) break;
    await withChunkLease(db, chunk, deps.leaseMs ?? CHUNK_LEASE_MS, () => runChunk(deps, batch as RunningBatch, chunk));
    if (Date.now() >= sliceEnd) return new Date();
    // Let requests in between chunks: SQLite queries settle without I/O, so nothing else would run.
    await new Promise((resolve) => setImmediate(resolve));
  }
  // Nothing to take now: finished, or waiting on retries or on chunks another worker holds.
  const open = await db.batchChunk.findMany({
    where: { batchId, status: { not: "DONE" } },
    select: { status: true, availableAt: true, leaseUntil: true },
  });
  if (open.length === 0) {
    await finishBatch(deps, batchId);
    return null;
  }
  const next = Math.min(...open.map((c) => (c.status === "RUNNING" && c.leaseUntil ? c.leaseUntil.getTime() : c.availableAt.getTime())));
  // Chunks held by a live worker finish long before their lease ends: look again soon.
  return new Date(Math.max(Date.now() + 50, Math.min(next, Date.now() + 1_000)));
}

interface RunningBatch {
  id: string;
  kind: BatchKind;
  mode: Mode;
  merchantId: string;
  requestId: string;
}

interface ClaimedChunk {
  id: string;
  items: string;
  results: string | null;
  passes: number;
  retryingSince: Date | null;
  leaseToken: string;
}

async function claimChunk(db: Db, batchId: string, leaseMs: number): Promise<ClaimedChunk | null> {
  for (let tries = 0; tries < 5; tries++) {
    const now = new Date();
    const candidate = await db.batchChunk.findFirst({
      where: {
        batchId,
        OR: [
          { status: "PENDING", availableAt: { lte: now } },
          { status: "RUNNING", leaseUntil: { lt: now } },
        ],
      },
      orderBy: { seq: "asc" },
      select: { id: true, items: true, results: true, passes: true, retryingSince: true, status: true, leaseToken: true },
    });
    if (!candidate) return null;
    const leaseToken = randomToken(12);
    const { count } = await db.batchChunk.updateMany({
      // The row as read, and still due: a chunk another worker ran and put back for a retry meanwhile is not taken.
      where: {
        id: candidate.id,
        status: candidate.status,
        leaseToken: candidate.leaseToken,
        passes: candidate.passes,
        ...(candidate.status === "PENDING" ? { availableAt: { lte: now } } : { leaseUntil: { lt: now } }),
      },
      data: { status: "RUNNING", leaseToken, leaseUntil: new Date(now.getTime() + leaseMs) },
    });
    if (count === 1) return { ...candidate, leaseToken };
    // Another worker took it: try the next one.
  }
  return null;
}

/** Renews a claimed chunk's lease every third of it while `work` runs, so a slow source does not let another worker take it. */
async function withChunkLease<T>(db: Db, chunk: ClaimedChunk, leaseMs: number, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(
    () =>
      void db.batchChunk
        .updateMany({ where: { id: chunk.id, status: "RUNNING", leaseToken: chunk.leaseToken }, data: { leaseUntil: new Date(Date.now() + leaseMs) } })
        .catch(() => undefined),
    Math.max(100, Math.floor(leaseMs / 3)),
  );
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

async function runItem(providers: ProviderSet, kind: BatchKind, input: unknown): Promise<ItemOutcome & { transient?: number }> {
  try {
    if (kind === "PAN") {
      const { pan, name } = input as PanItemInput;
      return { result: await verifyPan(providers.pan, pan, name), error: null };
    }
    return { result: await verifyEpfo(providers.epfo, epfoLookup(input as EpfoItemInput)), error: null };
  } catch (err) {
    const e = err instanceof AppError ? err : new AppError("SOURCE_UNAVAILABLE");
    const error = { code: e.code, message: e.message };
    if (TRANSIENT.has(e.code)) return { result: null, error, transient: (e.retryAfterSeconds ?? 1) * 1000 };
    return { result: null, error };
  }
}

function epfoLookup(input: EpfoItemInput): EpfoLookup {
  return "uan" in input ? { uan: input.uan } : { pfNumber: input.pf_number };
}

/** Runs the items of a claimed chunk that have no outcome yet, then commits it or schedules its retry. */
async function runChunk(deps: BatchWorkDeps, batch: RunningBatch, chunk: ClaimedChunk) {
  const { db } = deps;
  const now = deps.now ?? Date.now;
  const budget = deps.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS;
  const items = JSON.parse(chunk.items) as StoredItem[];
  const outcomes = (chunk.results ? JSON.parse(chunk.results) : items.map(() => null)) as (ItemOutcome | null)[];
  const providers = deps.providers[batch.mode];
  const deadline = chunk.retryingSince ? chunk.retryingSince.getTime() + budget : null;
  const todo = items.map((_, k) => k).filter((k) => outcomes[k] === null);
  let waitMs = 0;
  let transientLeft = 0;
  let firstTransientAt: number | null = null;
  let cursor = 0;
  await Promise.all(
    Array.from({ length: Math.min(ITEM_CONCURRENCY, todo.length) }, async () => {
      for (let k = todo[cursor++]; k !== undefined; k = todo[cursor++]) {
        const outcome = await runItem(providers, batch.kind, items[k]!.input);
        if (outcome.transient !== undefined) {
          const t = now();
          firstTransientAt ??= t;
          // Out of budget: the error is the item's outcome.
          if ((deadline ?? t + budget) > t) {
            transientLeft++;
            waitMs = Math.max(waitMs, outcome.transient);
            continue;
          }
        }
        outcomes[k] = { result: outcome.result, error: outcome.error };
      }
    }),
  );

  if (transientLeft > 0) {
    // Back off 1 s, 2 s, 4 s … (or what Retry-After asks), never past the item's 30 s budget.
    const since = chunk.retryingSince?.getTime() ?? firstTransientAt!;
    const backoff = Math.max(waitMs, 1000 * 2 ** Math.min(chunk.passes, 5));
    const availableAt = new Date(Math.min(now() + backoff, since + budget));
    await db.batchChunk.updateMany({
      where: { id: chunk.id, status: "RUNNING", leaseToken: chunk.leaseToken },
      data: {
        status: "PENDING",
        leaseToken: null,
        leaseUntil: null,
        results: JSON.stringify(outcomes),
        passes: { increment: 1 },
        retryingSince: new Date(since),
        availableAt,
      },
    });
    return;
  }

  let succeeded = 0;
  let failed = 0;
  const verifications: BatchVerificationRow[] = [];
  const completedAt = new Date();
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!;
    if (item.error) continue; // rejected at submission: counted then
    const o = outcomes[k]!;
    if (o.error) failed++;
    else succeeded++;
    const outcome = o.error ? { error: new AppError(o.error.code, o.error.message) } : { result: o.result };
    const record =
      batch.kind === "PAN"
        ? panVerificationRecord((item.input as PanItemInput).pan, (item.input as PanItemInput).name, outcome as Parameters<typeof panVerificationRecord>[2])
        : epfoVerificationRecord(epfoLookup(item.input as EpfoItemInput), outcome as Parameters<typeof epfoVerificationRecord>[1]);
    verifications.push({
      id: newId("ver"),
      merchantId: batch.merchantId,
      mode: batch.mode,
      requestId: batch.requestId,
      batchId: batch.id,
      createdAt: completedAt,
      ...record,
    });
  }
  // Applies only while this worker holds the lease: a worker that stalled past it writes nothing.
  await deps.store.commitChunk({
    chunkId: chunk.id,
    leaseToken: chunk.leaseToken,
    batchId: batch.id,
    results: JSON.stringify(outcomes),
    succeeded,
    failed,
    completedAt,
    verifications,
  });
}

async function finishBatch(deps: BatchWorkDeps, batchId: string) {
  await endOnce(deps, batchId, "COMPLETED");
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

/** Deletes batches (with their chunks) created before the retention cutoff, a few at a time. */
export async function purgeExpiredBatches(db: Db, retentionDays: number): Promise<number> {
  const cutoff = new Date(Date.now() - retentionDays * 24 * 3600 * 1000);
  let deleted = 0;
  for (;;) {
    const ids = await db.batch.findMany({ where: { createdAt: { lt: cutoff } }, select: { id: true }, take: 50 });
    if (ids.length === 0) return deleted;
    const res = await db.batch.deleteMany({ where: { id: { in: ids.map((r) => r.id) } } });
    deleted += res.count;
  }
}
