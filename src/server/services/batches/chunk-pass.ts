/**
 * One pass over a batch chunk's items: run those without an outcome yet, then either the pieces of
 * the chunk's commit (results, counts, verification-history rows) or, when some items met a
 * transient source error within their retry budget, what the chunk is put back with.
 *
 * It touches no database, so a chunk whose sources answer from fixtures (sandbox) can run it on the
 * chunk thread (./chunk-thread.ts) while the event loop commits another chunk; live sources run it
 * on the event loop, where their breakers and bulkheads live.
 */
import type { VendorConsent } from "@/lib/consent";
import { verificationColumns, type BatchVerificationColumns, type BatchVerificationRow } from "@/server/db/verification-columns";
import { AppError, isAppError, type ErrorCode } from "@/server/errors";
import { newSortableId } from "@/server/lib/ids";
import type { ProviderSet } from "@/server/providers";
import { nameMatchScore, type NameHolder } from "@/server/services/identity/name-match";
import { BATCH_ITEM_KINDS, UNUSABLE_ITEM_ERROR, type BatchItemKind, type NameScorer } from "./batch-item-kinds";
import type { BatchKind, ItemOutcome, StoredItem } from "./batch-items";

/** Items of one chunk sent to the source at once. */
const ITEM_CONCURRENCY = 16;
const TRANSIENT: ReadonlySet<ErrorCode> = new Set(["SOURCE_UNAVAILABLE", "SOURCE_TIMEOUT"]);

/** A chunk as a pass needs it: its stored items and outcomes (JSON, as stored), and its retry window. */
export interface ChunkPassJob {
  kind: BatchKind;
  items: string;
  results: string | null;
  /** When the chunk's first transient error happened (ms), if it has had one. */
  retryingSince: number | null;
  /** How long an item's transient errors are retried. */
  retryBudgetMs: number;
  /** The batch's consent, told to live vendors with each item (absent in sandbox). */
  consent?: VendorConsent;
}

/** The chunk's items that have an outcome, as the batch counts them; rejected items were counted at submission. */
export interface ChunkCounts {
  succeeded: number;
  failed: number;
}

export type ChunkPass =
  /** Every item has its outcome: the commit's pieces. */
  | ({ done: true; results: string; rows: BatchVerificationColumns } & ChunkCounts)
  /** Some items wait for a retry: the outcomes so far, the longest Retry-After among them, and when the first failed. */
  | ({ done: false; results: string; waitMs: number; firstTransientAt: number } & ChunkCounts);

/**
 * The name match, remembering each pair it scored: a chunk often checks one name against the same
 * name on record again (the same person, or a payroll's one name format), and the score is the
 * same every time.
 */
export function rememberedNameScores(): NameScorer {
  // A pair scores differently for a person and a business (legal-form words), so each holder has its own.
  const byHolder: Record<NameHolder, Map<string, Map<string, number>>> = { PERSON: new Map(), BUSINESS: new Map(), UNKNOWN: new Map() };
  return (queried, onRecord, holder) => {
    const byQueried = byHolder[holder];
    let byRecord = byQueried.get(queried);
    if (!byRecord) byQueried.set(queried, (byRecord = new Map()));
    let score = byRecord.get(onRecord);
    if (score === undefined) byRecord.set(onRecord, (score = nameMatchScore(queried, onRecord, holder)));
    return score;
  };
}

type RunOutcome = ItemOutcome & { transient?: number };

/** An item's error as its outcome; a transient one also says how long its source asks to wait. */
function failedOutcome(err: unknown): RunOutcome {
  const e = isAppError(err) ? err : new AppError("SOURCE_UNAVAILABLE");
  const error = { code: e.code, message: e.message };
  if (TRANSIENT.has(e.code)) return { result: null, error, transient: (e.retryAfterSeconds ?? 1) * 1000 };
  return { result: null, error };
}

async function runItem(providers: ProviderSet, kind: BatchItemKind, stored: unknown, scoreNames: NameScorer, consent?: VendorConsent): Promise<RunOutcome> {
  const input = kind.inputOf(stored);
  if (input === null) return { result: null, error: { ...UNUSABLE_ITEM_ERROR } };
  try {
    return await kind.run(providers, input, scoreNames, consent);
  } catch (err) {
    return failedOutcome(err);
  }
}

function runItemLocally(
  run: (input: unknown, scoreNames: NameScorer) => ItemOutcome,
  kind: BatchItemKind,
  stored: unknown,
  scoreNames: NameScorer,
): RunOutcome {
  const input = kind.inputOf(stored);
  if (input === null) return { result: null, error: { ...UNUSABLE_ITEM_ERROR } };
  try {
    return run(input, scoreNames);
  } catch (err) {
    return failedOutcome(err);
  }
}

/**
 * Runs the items that have no outcome yet, filling `outcomes`; a transient error within the budget
 * leaves its item for a retry. With `local`, a source that answers at once (fixtures) is asked item
 * after item without a promise each: for a thread that serves nothing else meanwhile.
 */
async function runPendingItems(
  job: ChunkPassJob,
  providers: ProviderSet,
  items: StoredItem[],
  outcomes: (ItemOutcome | null)[],
  now: () => number,
  local: boolean,
) {
  const deadline = job.retryingSince === null ? null : job.retryingSince + job.retryBudgetMs;
  const todo = items.map((_, k) => k).filter((k) => outcomes[k] === null);
  const pass = { transientLeft: 0, waitMs: 0, firstTransientAt: null as number | null };
  const scoreNames = rememberedNameScores();
  const kind = BATCH_ITEM_KINDS[job.kind];
  const settle = (k: number, { transient, ...outcome }: RunOutcome) => {
    if (transient !== undefined) {
      const t = now();
      pass.firstTransientAt ??= t;
      // Out of budget: the error is the item's outcome.
      if ((deadline ?? t + job.retryBudgetMs) > t) {
        pass.transientLeft++;
        pass.waitMs = Math.max(pass.waitMs, transient);
        return;
      }
    }
    outcomes[k] = outcome;
  };
  const runLocal = local ? kind.runLocal?.(providers) : undefined;
  if (runLocal) {
    for (const k of todo) settle(k, runItemLocally(runLocal, kind, items[k]!.input, scoreNames));
    return pass;
  }
  let cursor = 0;
  await Promise.all(
    Array.from({ length: Math.min(ITEM_CONCURRENCY, todo.length) }, async () => {
      for (let k = todo[cursor++]; k !== undefined; k = todo[cursor++]) settle(k, await runItem(providers, kind, items[k]!.input, scoreNames, job.consent));
    }),
  );
  return pass;
}

function finishedCounts(items: StoredItem[], outcomes: (ItemOutcome | null)[]): ChunkCounts {
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

/** The merchant's verification-history rows of a finished chunk, one per item that was run. */
function historyRows(kind: BatchItemKind, items: StoredItem[], outcomes: ItemOutcome[], ranAt: number): BatchVerificationColumns {
  const rows: BatchVerificationRow[] = [];
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!;
    if (item.error) continue; // rejected at submission: no check made
    // An item that could not be run (its error says so) checked nothing: no history row.
    const input = kind.inputOf(item.input);
    if (input === null) continue;
    const record = kind.record(input, outcomes[k]!);
    rows.push({
      // Time-ordered: a chunk's thousand rows extend the end of the id index rather than touch a page each.
      id: newSortableId("ver", ranAt),
      subject: record.subject,
      nameQueried: record.nameQueried,
      outcome: record.outcome,
      nameMatch: record.nameMatch,
      sourceNameMatch: record.sourceNameMatch ?? null,
      vendor: record.vendor ?? null,
      errorCode: record.errorCode,
    });
  }
  return verificationColumns(rows);
}

/**
 * One pass over a chunk (see the top of this file); `now` times its transient errors. `local`: the
 * caller serves nothing else meanwhile (the chunk thread), so fixtures may answer in one go.
 */
export async function runChunkPass(job: ChunkPassJob, providers: ProviderSet, now: () => number = Date.now, local = false): Promise<ChunkPass> {
  const items = JSON.parse(job.items) as StoredItem[];
  const outcomes = (job.results ? JSON.parse(job.results) : items.map(() => null)) as (ItemOutcome | null)[];
  const pass = await runPendingItems(job, providers, items, outcomes, now, local);
  const results = JSON.stringify(outcomes);
  const counts = finishedCounts(items, outcomes);
  if (pass.transientLeft > 0) return { done: false, results, ...counts, waitMs: pass.waitMs, firstTransientAt: pass.firstTransientAt! };
  return { done: true, results, ...counts, rows: historyRows(BATCH_ITEM_KINDS[job.kind], items, outcomes as ItemOutcome[], Date.now()) };
}
