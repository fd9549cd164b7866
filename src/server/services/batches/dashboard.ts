/**
 * The dashboard's Batches pages: a merchant's batches of one mode (both kinds), one batch with how
 * it was submitted and its completion event's webhook deliveries, its results by page, and its
 * results as a CSV download. Batches are created through `createBatch`, as the API does.
 */
import type { ConsentSource } from "@/lib/consent";
import type { Mode } from "@/lib/mode";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { CSV_BOM, csvLine } from "@/server/lib/csv";
import { toPage } from "@/server/lib/pagination";
import {
  BATCH_VIEW_SELECT,
  batchView,
  listBatchResults,
  listBatches,
  type BatchItemStatus,
  type BatchKind,
  type BatchResultItem,
  type ItemOutcome,
} from "@/server/services/batches/batches";
import { deliveriesBySubject } from "@/server/services/webhooks/deliveries";
import { STORED_BATCHES } from "./batch-pieces";

/** A batch of the merchant's mode, of either kind: BATCH_NOT_FOUND for anyone else's, as for an unknown id. */
async function findDashboardBatch(db: Db, merchantId: string, mode: Mode, batchId: string) {
  const batch = await db.batch.findFirst({
    where: { id: batchId, merchantId, mode, ...STORED_BATCHES },
    select: { ...BATCH_VIEW_SELECT, kind: true, webhookUrl: true, requestId: true, apiKeyId: true, consent: true, purpose: true, consentSource: true },
  });
  if (!batch) throw new AppError("BATCH_NOT_FOUND");
  return { ...batch, kind: batch.kind as BatchKind };
}

/** The mode's batches, newest first, optionally of one kind, with their counts (the list polls this while any runs). */
export async function listDashboardBatches(db: Db, merchantId: string, mode: Mode, input: { kind?: BatchKind; cursor?: string; limit: number }) {
  const rows = await listBatches(db, merchantId, mode, { kind: input.kind, cursor: input.cursor, limit: input.limit });
  const { rows: page, nextCursor } = toPage(rows, input.limit);
  return { items: page.map((r) => ({ ...batchView(r), kind: r.kind as BatchKind, webhook_url: r.webhookUrl })), nextCursor };
}

/**
 * Items of a running batch that wait for the source after a transient error: how many, when the
 * next try is due and when their retries end (the retry budget from the chunk's first such error),
 * from the chunks put back for a retry. Null when nothing waits.
 */
async function waitingForSource(db: Db, batchId: string, retryBudgetMs: number) {
  const chunks = await db.batchChunk.findMany({
    where: { batchId, status: { not: "DONE" }, retryingSince: { not: null } },
    select: { results: true, availableAt: true, retryingSince: true },
  });
  let items = 0;
  let nextTry = Infinity;
  let until = 0;
  for (const c of chunks) {
    const waiting = ((c.results ? JSON.parse(c.results) : []) as (ItemOutcome | null)[]).filter((o) => o === null).length;
    if (waiting === 0) continue;
    items += waiting;
    nextTry = Math.min(nextTry, c.availableAt.getTime());
    until = Math.max(until, c.retryingSince!.getTime() + retryBudgetMs);
  }
  return items === 0 ? null : { items, next_try_at: new Date(nextTry).toISOString(), retrying_until: new Date(until).toISOString() };
}

/** One batch: its counts and timings, what it waits for, how it was submitted and under which consent, and the deliveries of its completion event. */
export async function getDashboardBatch(db: Db, merchantId: string, mode: Mode, batchId: string, retryBudgetMs: number) {
  const b = await findDashboardBatch(db, merchantId, mode, batchId);
  const running = b.status === "QUEUED" || b.status === "PROCESSING";
  const [apiKey, webhooks, waiting] = await Promise.all([
    b.apiKeyId ? db.apiKey.findFirst({ where: { id: b.apiKeyId, merchantId }, select: { label: true, secretHint: true } }) : null,
    deliveriesBySubject(db, merchantId, mode, b.id),
    running ? waitingForSource(db, b.id, retryBudgetMs) : null,
  ]);
  return {
    batch: { ...batchView(b), kind: b.kind, webhook_url: b.webhookUrl },
    waitingForSource: waiting,
    /** The API (with the key and the request that submitted it, for the request log) or the dashboard. */
    source: b.apiKeyId
      ? { via: "API" as const, requestId: b.requestId, apiKey: apiKey ? { label: apiKey.label, secretHint: apiKey.secretHint } : null }
      : { via: "DASHBOARD" as const, requestId: null, apiKey: null },
    /** The consent, purpose and source (C6) every item of the batch was checked under. */
    consent: { consent: b.consent, purpose: b.purpose, source: b.consentSource as ConsentSource | null },
    webhooks,
  };
}

/**
 * Up to `limit` items of a batch from index `from` on, in index order (PENDING until run); with
 * `status`, only items in that state; with `search`, only items whose reference id, PAN, UAN or PF
 * number contains it.
 */
export async function listDashboardBatchResults(
  db: Db,
  merchantId: string,
  mode: Mode,
  input: { batchId: string; from: number; limit: number; status?: BatchItemStatus; search?: string },
) {
  const b = await findDashboardBatch(db, merchantId, mode, input.batchId);
  const page = await listBatchResults(db, { merchantId, mode, kind: b.kind, batchId: b.id }, input.from, input.limit, input.status, input.search);
  return { kind: b.kind, total: b.total, status: b.status, items: page.items, next: page.next };
}

// ---------------------------------------------------------------------------------------------
// CSV

const EXPORT_PAGE = 500;

const COMMON_HEAD = ["index", "reference_id"] as const;
const COMMON_TAIL = ["error_code", "error_message"] as const;

/**
 * Per kind: the input's fields, then `item_status` (whether Parakh got an answer: SUCCEEDED, FAILED or
 * PENDING), then the answer's fields, its own verification outcome first (`pan_status` VALID,
 * INVALID…; `member_status`), so the two are never read as one.
 */
export const BATCH_RESULTS_CSV_COLUMNS: Record<BatchKind, readonly string[]> = {
  PAN: [
    ...COMMON_HEAD,
    "pan",
    "name",
    "item_status",
    "pan_status",
    "registered_name",
    "category",
    "name_match",
    "name_match_result",
    "aadhaar_seeding_status",
    ...COMMON_TAIL,
  ],
  EPFO: [
    ...COMMON_HEAD,
    "uan",
    "pf_number",
    "item_status",
    "member_status",
    "member_name",
    "employer",
    "result_uan",
    "result_pf_number",
    "last_contribution_month",
    "date_of_exit",
    ...COMMON_TAIL,
  ],
};

type Cell = string | number | null | undefined;

/** A field of an item's input: what was sent, as text (a rejected item's input is kept as submitted, whatever its type). */
function inputCell(input: unknown, field: string): Cell {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return null;
  const v = (input as Record<string, unknown>)[field];
  if (v === undefined || v === null) return null;
  if (typeof v === "string" || typeof v === "number") return v;
  return JSON.stringify(v);
}

function resultField(result: unknown, field: string): Cell {
  if (result === null || typeof result !== "object") return null;
  const v = (result as Record<string, unknown>)[field];
  return typeof v === "string" || typeof v === "number" ? v : null;
}

function resultsCsvLine(kind: BatchKind, item: BatchResultItem): string {
  const r = item.result;
  const fields: Cell[] =
    kind === "PAN"
      ? [
          inputCell(item.input, "pan"),
          inputCell(item.input, "name"),
          item.status,
          resultField(r, "status"),
          resultField(r, "name"),
          resultField(r, "category"),
          resultField(r, "name_match"),
          resultField(r, "name_match_result"),
          resultField(r, "aadhaar_seeding_status"),
        ]
      : [
          inputCell(item.input, "uan"),
          inputCell(item.input, "pf_number"),
          item.status,
          resultField(r, "member_status"),
          resultField(r, "member_name"),
          resultField(r, "employer"),
          resultField(r, "uan"),
          resultField(r, "pf_number"),
          resultField(r, "last_contribution_month"),
          resultField(r, "date_of_exit"),
        ];
  // csvLine quotes cells and neutralises text a spreadsheet would run as a formula (names and references are the merchant's own text).
  return csvLine([item.index, item.reference_id, ...fields, item.error?.code, item.error?.message]);
}

/**
 * A batch's results as CSV, every item once in index order (items still running as PENDING). The
 * batch is looked up before the header is produced, so an unknown id is an error, not an empty file.
 */
export async function* exportBatchResultsCsv(db: Db, merchantId: string, mode: Mode, batchId: string): AsyncGenerator<string, void, undefined> {
  const b = await findDashboardBatch(db, merchantId, mode, batchId);
  yield `${CSV_BOM}${csvLine([...BATCH_RESULTS_CSV_COLUMNS[b.kind]])}`;
  const scope = { merchantId, mode, kind: b.kind, batchId: b.id };
  for (let from: number | null = 0; from !== null;) {
    const page = await listBatchResults(db, scope, from, EXPORT_PAGE);
    if (page.items.length) yield page.items.map((item) => resultsCsvLine(b.kind, item)).join("");
    from = page.next;
  }
}
