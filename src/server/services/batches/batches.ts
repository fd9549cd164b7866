/**
 * PAN and EPFO batches, the API side: up to 10,000 items per call, stored for the chunk worker
 * (./batch-worker.ts) to run in the background on the durable job queue, results paged by the
 * merchant and announced by one webhook event. Both doors (the REST operation and the dashboard)
 * create batches here, so the rules on what a batch may be live in one place.
 *
 * Storage: one Batch row, and one BatchChunk row per chunkSizeOf(mode, kind) items holding the submitted items
 * and, once run, their results as JSON. A chunk is the unit of work, of commit and of paging.
 */
import type { ConsentOnRecord } from "@/server/services/consent/consent";
import type { Mode } from "@/lib/mode";
import { BATCH_MAX_ITEMS, type BatchItemStatus, type BatchStatusValue as BatchStatus } from "@/lib/schemas/batches";
import type { NewBatchRow } from "@/server/db/new-batch";
import type { Db, DbTx } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { isoOrNull } from "@/server/lib/dates";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { afterCursor, newestFirst } from "@/server/lib/pagination";
import { batchWorkJob } from "@/server/jobs/registry";
import { webhookUrlProblem } from "@/server/services/webhooks/ssrf";
import { abandonedCreations, STORED_BATCHES, storeBatchInPieces, type ChunkRows } from "./batch-pieces";
import type { EarlyPasses } from "./early-passes";
import type { BatchKind, ItemError, ItemOutcome, StoredItem } from "./batch-items";

export type { BatchKind, EpfoItemInput, ItemError, ItemOutcome, PanItemInput, StoredItem } from "./batch-items";

export type { BatchItemStatus };

/**
 * Items per chunk. A worker hands its slot back between chunks, so a chunk should take well under
 * a second: 100 live items (each a call to the source, 16 at a time) take about as long as that.
 * Sandbox items take microseconds each, so there the per-chunk work (claim, commit, fsync) is what
 * costs: 1,000 a chunk cut a 10,000-item batch from about 450 to 250 ms. On SQLite a chunk's commit
 * (about 5 ms of SQL and its fsync) runs on the event loop: single calls beside a running batch
 * kept their p99 in the bench. A results page of 1,000 reads at most 11 live or 2 sandbox chunks.
 */
export const CHUNK_SIZES: Record<Mode, number> = { live: 100, sandbox: 1000 };
/**
 * A live PAN chunk is one request to the vendor's bulk verification (./bulk-pass.ts), so it is as
 * large as the status answer allows: the vendor takes 10,000 PANs a request, but its status answer
 * lists every entry (about 450 bytes each) and Parakh reads at most 1 MiB of an answer (C2), so
 * 1,000 a request (about 450 KB) with room for long names. Items the bulk answer leaves to single
 * calls take longer in a chunk this size; their lease is renewed meanwhile.
 */
export const LIVE_PAN_CHUNK_SIZE = 1000;

/** Items per chunk of a batch of `kind` in `mode`. */
export function chunkSizeOf(mode: Mode, kind: BatchKind | null): number {
  return mode === "live" && kind === "PAN" ? LIVE_PAN_CHUNK_SIZE : CHUNK_SIZES[mode];
}
/** `batch.work` jobs per batch: each takes chunks one at a time. */
export const WORKERS_PER_BATCH = 3;
/** Unfinished batches one merchant may have per mode: each holds queue slots and storage. */
export const MAX_OPEN_BATCHES = 20;

export const BATCH_PATHS: Record<BatchKind, string> = { PAN: "identity/pan", EPFO: "employment/epfo" };
export const BATCH_EVENTS = { PAN: "pan.batch.completed", EPFO: "epfo.batch.completed" } as const;

/** One submitted item: validated input, or the error the single call would have given. */
export interface SubmittedItem {
  reference_id: string | null;
  input: unknown;
  error: ItemError | null;
}

/** Where a new sandbox batch's chunks start their first pass early (./early-passes.ts), with the workers' retry budget. */
export interface BatchEarlyStart {
  passes: EarlyPasses;
  retryBudgetMs: number;
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
  /** Where the completion event also goes; checked like a webhook endpoint's URL for the mode. */
  webhookUrl: string | null;
  /**
   * The caller's name for the webhook URL, which its error points at (default the API's
   * "webhook_url", also named in the message; the dashboard shows the message beside its field).
   */
  webhookUrlField?: "webhook_url" | "webhookUrl";
  clientBatchId: string | null;
  /** The batch's consent (consentFor, checked by the caller before anything is stored), for all its items. */
  consent?: ConsentOnRecord;
  /** As validated, or already cut into chunks (the API prepares a big body off the main thread). */
  items: SubmittedItem[] | PreparedBatchItems;
}

type BatchRow = Pick<NewBatchRow, "id" | "total" | "accepted" | "rejected" | "processed" | "succeeded" | "failed" | "clientBatchId" | "createdAt"> & {
  status: string;
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

/** A merchant at MAX_OPEN_BATCHES unfinished batches in a mode. */
function tooManyOpenBatches() {
  return new AppError("RATE_LIMITED", `At most ${MAX_OPEN_BATCHES} batches may run at once; submit this one when one of them has completed.`, {
    retryAfterSeconds: 5,
  });
}

/** Sandbox batches created after this count against the merchant's allowance at `now`. */
const allowanceSince = (now: Date) => new Date(now.getTime() - SANDBOX_ALLOWANCE_WINDOW_MS);

/**
 * The refusal of a sandbox batch that would take the merchant past its items in the last 24 hours
 * (`used` of them), with the wait until enough of them have left the window.
 */
async function allowanceRefusal(db: Db | DbTx, merchantId: string, total: number, perDay: number, now: Date, used: number) {
  const window = { merchantId, mode: "sandbox", createdAt: { gt: allowanceSince(now) } };
  // Oldest first: the batch whose leaving makes room says when to come back.
  let left = used;
  let cursor: { createdAt: Date; id: string } | undefined;
  let freeAt = now.getTime() + SANDBOX_ALLOWANCE_WINDOW_MS;
  search: for (;;) {
    const page = await db.batch.findMany({
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
  return new AppError(
    "RATE_LIMITED",
    `Sandbox batches may hold ${perDay} items in any 24 hours and ${Math.max(0, perDay - used)} are left; retry after the time in Retry-After.`,
    { retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000)) },
  );
}

/** What a batch may be: at least one item, at most BATCH_MAX_ITEMS, and a webhook URL the mode may send to. */
function checkNewBatch(input: NewBatch, total: number) {
  if (total === 0) throw new AppError("VALIDATION_ERROR", "items must hold at least one item.", { field: "items" });
  if (total > BATCH_MAX_ITEMS) throw new AppError("BATCH_TOO_LARGE");
  const problem = input.webhookUrl ? webhookUrlProblem(input.webhookUrl, input.mode) : null;
  if (problem) {
    const field = input.webhookUrlField ?? "webhook_url";
    throw new AppError("VALIDATION_ERROR", field === "webhook_url" ? `webhook_url: ${problem}.` : `${problem}.`, {
      field,
      details: [{ field, message: `${field}: ${problem}` }],
    });
  }
}

/** One chunk's stored JSON, ready to insert: built apart from the batch (off the main thread for the API's big bodies). */
export interface PreparedChunk {
  items: string;
  results: string;
  allRejected: boolean;
}

/** A batch's items as stored: counted and cut into chunks of JSON. */
export interface PreparedBatchItems {
  chunkSize: number;
  total: number;
  rejected: number;
  chunks: PreparedChunk[];
}

/** Rejected items have their outcome already, and a chunk of nothing else is done from the start. */
export function prepareBatchItems(items: SubmittedItem[], chunkSize: number): PreparedBatchItems {
  const chunks: PreparedChunk[] = [];
  for (let seq = 0; seq * chunkSize < items.length; seq++) {
    const slice: StoredItem[] = items.slice(seq * chunkSize, (seq + 1) * chunkSize).map((item, k) => ({ index: seq * chunkSize + k, ...item }));
    chunks.push({
      items: JSON.stringify(slice),
      results: JSON.stringify(slice.map((i) => (i.error ? { result: null, error: i.error } : null))),
      allRejected: slice.every((i) => i.error !== null),
    });
  }
  return { chunkSize, total: items.length, rejected: items.filter((i) => i.error !== null).length, chunks };
}

/** The submitted items back from prepared chunks (to cut them again at another size). */
function itemsOf(items: SubmittedItem[] | PreparedBatchItems): SubmittedItem[] {
  if (Array.isArray(items)) return items;
  return items.chunks.flatMap((c) => (JSON.parse(c.items) as StoredItem[]).map(({ index: _index, ...item }) => item));
}

function chunkRows(batchId: string, prepared: PreparedBatchItems, now: Date): ChunkRows[] {
  return prepared.chunks.map((chunk, seq) => ({
    id: `${batchId}_${seq}`,
    batchId,
    seq,
    results: chunk.results,
    status: chunk.allRejected ? "DONE" : "PENDING",
    completedAt: chunk.allRejected ? now : null,
    availableAt: now,
    items: chunk.items,
  }));
}

/**
 * Stores a batch, its chunks and its worker jobs (in pieces, shown only whole: src/server/db/new-batch.ts), and answers its summary.
 * Rejected items count as processed and failed from the start. In sandbox, every submitted item
 * counts against the merchant's daily allowance.
 */
export async function createBatch(db: Db, input: NewBatch, limits: BatchLimits, early?: BatchEarlyStart) {
  checkNewBatch(input, Array.isArray(input.items) ? input.items.length : input.items.total);
  const chunkSize = chunkSizeOf(input.mode, input.kind);
  // Items prepared on a body thread were cut for the caller's mode; the check keeps any other size out.
  const prepared = Array.isArray(input.items) || input.items.chunkSize !== chunkSize ? prepareBatchItems(itemsOf(input.items), chunkSize) : input.items;
  const { total, rejected } = prepared;
  const id = newId("batch");
  const now = new Date();
  const chunks = chunkRows(id, prepared, now);
  const workers = Math.max(1, Math.min(WORKERS_PER_BATCH, chunks.length));
  const perDay = input.mode === "sandbox" ? limits.sandboxItemsPerDay : null;
  if (perDay !== null && total > perDay) {
    throw new AppError("BATCH_TOO_LARGE", `A sandbox batch holds at most ${perDay} items (the daily allowance).`, { field: "items" });
  }
  const batch = {
    id,
    merchantId: input.merchantId,
    mode: input.mode,
    kind: input.kind,
    total,
    accepted: total - rejected,
    rejected,
    processed: rejected,
    succeeded: 0,
    failed: rejected,
    chunkSize: prepared.chunkSize,
    chunkCount: chunks.length,
    webhookUrl: input.webhookUrl,
    clientBatchId: input.clientBatchId,
    requestId: input.requestId,
    apiKeyId: input.apiKeyId,
    consent: input.consent?.consent ?? null,
    purpose: input.consent?.purpose ?? null,
    consentSource: input.consent?.source ?? null,
    createdAt: now,
  };
  await storeBatchInPieces(db, {
    batch,
    chunks,
    jobs: Array.from({ length: workers }, () => batchWorkJob.row({ batchId: id }, { runAt: now })),
    admission: {
      maxOpen: MAX_OPEN_BATCHES,
      sandboxItemsPerDay: perDay,
      allowanceSince: allowanceSince(now),
      refusal: async ({ open, used }, reader) =>
        open >= MAX_OPEN_BATCHES ? tooManyOpenBatches() : allowanceRefusal(reader, input.merchantId, total, perDay ?? 0, now, used),
    },
  });
  // Its workers start now rather than at the runner's next poll, and sandbox items on the chunk threads even sooner.
  if (early && input.mode === "sandbox") {
    try {
      for (const c of chunks)
        if (c.status === "PENDING")
          early.passes.start(c.id, { kind: input.kind, items: c.items, results: c.results, retryingSince: null, retryBudgetMs: early.retryBudgetMs });
    } catch (err) {
      // Stored and queued whatever happens here: the workers run the passes themselves.
      log.warn("a new batch's early passes did not start", { batchId: id, err });
    }
  }
  batchWorkJob.wake();
  // As stored: nothing has run yet.
  return batchView({ ...batch, status: "QUEUED", startedAt: null, completedAt: null });
}

async function findBatch(db: Db, merchantId: string, mode: Mode, kind: BatchKind, batchId: string) {
  const batch = await db.batch.findFirst({
    where: { id: batchId, merchantId, mode, kind, ...STORED_BATCHES },
    select: { ...BATCH_VIEW_SELECT, chunkSize: true },
  });
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
  status: BatchItemStatus;
}

/** Chunks a filtered results page reads per query while it looks for matching items. */
const FILTER_SCAN_CHUNKS = 10;

const RESULTS_CHUNK_SELECT = { results: true, itemsRow: { select: { items: true } } } as const;
type ResultsChunk = { results: string | null; itemsRow: { items: string } | null };

/** A chunk's items with their outcomes so far, in index order. */
function chunkResultItems(chunk: ResultsChunk): BatchResultItem[] {
  const stored = JSON.parse(chunk.itemsRow?.items ?? "[]") as StoredItem[];
  const outcomes = (chunk.results ? JSON.parse(chunk.results) : []) as (ItemOutcome | null)[];
  return stored.map((item, k) => {
    const outcome = outcomes[k] ?? null;
    return {
      index: item.index,
      reference_id: item.reference_id,
      input: item.input,
      result: outcome?.result ?? null,
      error: outcome?.error ?? null,
      status: outcome === null ? "PENDING" : outcome.error ? "FAILED" : "SUCCEEDED",
    };
  });
}

type ResultsScope = { merchantId: string; mode: Mode; kind: BatchKind; batchId: string };

/**
 * Whether a dashboard search names an item: its reference id contains the text, or its PAN, UAN or
 * PF number (slashes optional) does, capitals or not. A PAN as the dashboard shows it (ABCPKXXXXF)
 * finds the PANs it could be.
 */
export function batchItemSearch(text: string): (item: BatchResultItem) => boolean {
  const needle = text.trim().toUpperCase();
  const bare = needle.replace(/\//g, "");
  const masked = /^[A-Z]{5}XXXX[A-Z]$/.test(needle) ? needle : null;
  const field = (input: unknown, name: string) => {
    const v = input !== null && typeof input === "object" ? (input as Record<string, unknown>)[name] : undefined;
    return typeof v === "string" ? v.trim().toUpperCase() : "";
  };
  return (item) => {
    if (item.reference_id !== null && item.reference_id.toUpperCase().includes(needle)) return true;
    const pan = field(item.input, "pan");
    if (pan && (pan.includes(needle) || (masked !== null && pan.length === 10 && pan.slice(0, 5) === masked.slice(0, 5) && pan[9] === masked[9]))) return true;
    if (bare && field(item.input, "uan").includes(bare)) return true;
    return bare !== "" && field(item.input, "pf_number").replace(/\//g, "").includes(bare);
  };
}

/**
 * Up to `limit` items from index `from` on, in index order, and where the next page starts (null at
 * the end). With `status` (or a dashboard `search`), only the items that match: the page reads on
 * until it has `limit` of them and its next start is the next matching item's index, so a page is
 * never empty unless nothing from `from` on matches.
 */
export async function listBatchResults(
  db: Db,
  scope: ResultsScope,
  from: number,
  limit: number,
  status?: BatchItemStatus,
  search?: string,
): Promise<{ items: BatchResultItem[]; next: number | null }> {
  const batch = await findBatch(db, scope.merchantId, scope.mode, scope.kind, scope.batchId);
  if (status || search) {
    const named = search ? batchItemSearch(search) : null;
    return listFilteredResults(db, batch, from, limit, (item) => (!status || item.status === status) && (!named || named(item)));
  }
  const end = Math.min(from + limit, batch.total);
  if (from >= end) return { items: [], next: null };
  const chunks = await db.batchChunk.findMany({
    where: { batchId: batch.id, seq: { gte: Math.floor(from / batch.chunkSize), lte: Math.floor((end - 1) / batch.chunkSize) } },
    orderBy: { seq: "asc" },
    select: RESULTS_CHUNK_SELECT,
  });
  const items = chunks.flatMap(chunkResultItems).filter((item) => item.index >= from && item.index < end);
  return { items, next: end < batch.total ? end : null };
}

async function listFilteredResults(
  db: Db,
  batch: { id: string; total: number; chunkSize: number },
  from: number,
  limit: number,
  matches: (item: BatchResultItem) => boolean,
): Promise<{ items: BatchResultItem[]; next: number | null }> {
  const items: BatchResultItem[] = [];
  const lastSeq = Math.floor((batch.total - 1) / batch.chunkSize);
  for (let seq = Math.floor(from / batch.chunkSize); seq <= lastSeq; seq += FILTER_SCAN_CHUNKS) {
    const chunks = await db.batchChunk.findMany({
      where: { batchId: batch.id, seq: { gte: seq, lt: seq + FILTER_SCAN_CHUNKS } },
      orderBy: { seq: "asc" },
      select: RESULTS_CHUNK_SELECT,
    });
    for (const item of chunks.flatMap(chunkResultItems)) {
      if (item.index < from || !matches(item)) continue;
      if (items.length === limit) return { items, next: item.index };
      items.push(item);
    }
  }
  return { items, next: null };
}

/** A merchant's batches in one mode, newest first (dashboard). */
export async function listBatches(db: Db, merchantId: string, mode: Mode, opts: { kind?: BatchKind; cursor?: string; limit: number }) {
  return db.batch.findMany({
    where: { merchantId, mode, ...STORED_BATCHES, ...(opts.kind ? { kind: opts.kind } : {}), ...afterCursor(opts.cursor) },
    orderBy: newestFirst,
    take: opts.limit + 1,
    select: { ...BATCH_VIEW_SELECT, kind: true, webhookUrl: true },
  });
}

/** Deletes batches (with their chunks) created before the retention cutoff, and abandoned creations, a few at a time. */
export async function purgeExpiredBatches(db: Db, retentionDays: number): Promise<number> {
  const now = new Date();
  const cutoff = new Date(now.getTime() - retentionDays * 24 * 3600 * 1000);
  let deleted = 0;
  for (;;) {
    const ids = await db.batch.findMany({ where: { OR: [{ createdAt: { lt: cutoff } }, abandonedCreations(now)] }, select: { id: true }, take: 50 });
    if (ids.length === 0) return deleted;
    const res = await db.batch.deleteMany({ where: { id: { in: ids.map((r) => r.id) } } });
    deleted += res.count;
  }
}
