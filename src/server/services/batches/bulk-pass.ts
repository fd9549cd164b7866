/**
 * Live PAN chunks through the vendor's bulk verification, before their single calls.
 *
 * A chunk's items waiting for an outcome go to the vendor in one bulk request (./batches.ts sizes a
 * live PAN chunk for it), which the vendor answers later: the chunk is put back to wait, as for a
 * retry, and each later claim reads the request back (a GET with the call's deadline and retries,
 * C2) until the vendor lists its entries. Each entry is read as a single call's answer is (the
 * adapter's panRecordFromAnswer, then the batch's panOutcome); the items it leaves out, or whose entry
 * failed at the vendor, go on to the single calls of the chunk pass (./chunk-pass.ts), under the
 * bulkhead, as every item did before.
 *
 * Paying once: the request's id is written on the chunk, under its lease, before the request is
 * sent, and the vendor knows the request by it. A worker that finds an id on a chunk it claims (its
 * predecessor died, or the submission failed after the vendor may have read it) never sends
 * another: it reads that one back, and only the vendor's word that it holds no such request (or the
 * overall limit) sends the items to single calls.
 */
import type { VendorConsent } from "@/lib/consent";
import type { Db } from "@/server/db/client";
import type { Lease } from "@/server/jobs/lease";
import { log } from "@/server/lib/logger";
import type { ProviderSet } from "@/server/providers";
import { newVerificationId } from "@/server/providers/cashfree/secure-id";
import type { PanBulkAnswerEntry, PanBulkEntry } from "@/server/providers/pan/types";
import { BATCH_ITEM_KINDS, panOutcomeOf } from "./batch-item-kinds";
import type { BatchKind, ItemOutcome, PanItemInput, StoredItem } from "./batches";
import { rememberedNameScores } from "./chunk-pass";

export { DEFAULT_BULK_POLL_LIMIT_MS } from "@/lib/limits";

/** A chunk's bulk request, stored on it as JSON (the `bulk` column). */
export interface BulkState {
  /** Parakh's id of the request (the vendor's `bulk_verification_id`), written before it is sent. */
  id: string;
  /** The vendor's reference for it, once its answer to the submission was read. */
  ref: string | null;
  /** When it was first sent (ms): the poll limit counts from here. */
  since: number;
  /** Reads made so far: the pauses between them grow with it. */
  polls: number;
  /** Entries the last read listed when they were fewer than the items sent: read once more before the rest go to single calls. */
  seen: number | null;
  /** The bulk request has given what it will: the items still without an outcome run as single calls. */
  over: boolean;
}

/** What the chunk's claim does next. */
export type BulkStep =
  /** Put the chunk back, with `bulk`, to read the request again at `at`. */
  | { next: "wait"; at: Date; bulk: BulkState }
  /** Run the chunk pass over `results` (the bulk outcomes filled in); `bulk` is kept with the chunk if it is put back. */
  | { next: "run"; results: string | null; bulk: BulkState | null }
  /** The chunk's lease was lost before the request was sent: nothing was sent, nothing is written. */
  | { next: "lost" };

export interface BulkContext {
  db: Db;
  providers: ProviderSet;
  pollLimitMs: number;
  now: () => number;
}

export interface BulkChunk {
  kind: BatchKind;
  items: string;
  results: string | null;
  bulk: string | null;
  lease: Lease;
  /** The batch's consent, told to the vendor (absent in sandbox). */
  consent?: VendorConsent;
}

/**
 * 1 s between reads for the first ten (a bulk request often takes seconds: each second of waiting
 * for an answer that came is a second of the batch), then 2, 2, 4, 4, 8, 8 and 10 s.
 */
export function bulkPollDelayMs(polls: number): number {
  return polls < 10 ? 1_000 : Math.min(1_000 * 2 ** Math.floor((polls - 8) / 2), 10_000);
}

const keyOf = (pan: string, name: string | null) => `${pan}\u0000${(name ?? "").replace(/\s+/g, " ").trim().toUpperCase()}`;

/** Writes the chunk's bulk state while this worker holds its lease; false when it does not any more. */
async function keepState(db: Db, lease: Lease, state: BulkState): Promise<boolean> {
  const { count } = await db.batchChunk.updateMany({
    where: { id: lease.id, status: "RUNNING", leaseToken: lease.token },
    data: { bulk: JSON.stringify(state) },
  });
  return count === 1;
}

/**
 * The bulk step of a claimed chunk: submit its items, read its request back, or nothing (not a live
 * PAN chunk, too few items for a request, or its request is over).
 */
export async function bulkStep(ctx: BulkContext, chunk: BulkChunk): Promise<BulkStep> {
  const source = ctx.providers.pan.bulk;
  const stored = chunk.bulk ? (JSON.parse(chunk.bulk) as BulkState) : null;
  if (chunk.kind !== "PAN" || !source || stored?.over) return { next: "run", results: chunk.results, bulk: stored };
  const items = JSON.parse(chunk.items) as StoredItem[];
  const outcomes = (chunk.results ? JSON.parse(chunk.results) : items.map(() => null)) as (ItemOutcome | null)[];
  const kind = BATCH_ITEM_KINDS.PAN;
  const waiting: { k: number; input: PanItemInput }[] = [];
  items.forEach((item, k) => {
    const input = outcomes[k] === null ? (kind.inputOf(item.input) as PanItemInput | null) : null;
    if (input) waiting.push({ k, input });
  });
  const now = ctx.now();
  const over = (state: BulkState, results: string | null = chunk.results): BulkStep => ({ next: "run", results, bulk: { ...state, over: true } });
  const again = (state: BulkState): BulkStep => {
    const at = Math.min(now + bulkPollDelayMs(state.polls), state.since + ctx.pollLimitMs);
    return { next: "wait", at: new Date(Math.max(at, now)), bulk: state };
  };
  const lane = <T>(call: () => Promise<T>) => ctx.providers.batchLane("pan", call);

  if (!stored) {
    // One entry per PAN and name: the vendor bills each entry.
    const entries = new Map<string, PanBulkEntry>();
    for (const { input } of waiting) entries.set(keyOf(input.pan, input.name), { pan: input.pan, name: input.name });
    if (entries.size < source.minEntries || entries.size > source.maxEntries) return { next: "run", results: chunk.results, bulk: null };
    const state: BulkState = { id: newVerificationId("bulk"), ref: null, since: now, polls: 0, seen: null, over: false };
    // Written before it is sent: whoever claims the chunk next reads this request back rather than sending another.
    if (!(await keepState(ctx.db, chunk.lease, state))) return { next: "lost" };
    const sent = await lane(() => source.submit(state.id, [...entries.values()], chunk.consent ? { consent: chunk.consent } : undefined));
    if (sent.sent) return again({ ...state, ref: sent.reference });
    if (sent.maybe) {
      log.warn("a batch's bulk PAN request may have reached the vendor: it is read back, not sent again", { bulkId: state.id, reason: sent.reason });
      return again(state);
    }
    log.warn("a batch's bulk PAN request was refused: its items run as single calls", { bulkId: state.id, reason: sent.reason });
    return over(state);
  }

  const state: BulkState = { ...stored, polls: stored.polls + 1 };
  const laterOrOver = () => {
    if (now < stored.since + ctx.pollLimitMs) return again(state);
    log.warn("a batch's bulk PAN request was not answered in time: its items left run as single calls", { bulkId: stored.id });
    return over(state);
  };
  let read;
  try {
    read = await lane(() => source.status(stored.id, stored.ref));
  } catch {
    // Not readable now (the vendor failing, the breaker open, no slot): read again later, within the limit.
    return laterOrOver();
  }
  if (read.state === "PENDING") return laterOrOver();
  if (read.state === "UNKNOWN") return over(state);
  const answered = matchEntries(waiting, read.entries);
  // Fewer entries than items: the vendor may still be filling them in. Once the same count comes twice, the rest go to single calls.
  if (answered.size < waiting.length && stored.seen !== read.entries.length) return again({ ...state, seen: read.entries.length });
  const scoreNames = rememberedNameScores();
  for (const { k, input } of waiting) {
    const record = answered.get(k)?.record;
    if (record) outcomes[k] = panOutcomeOf(record, input.name, scoreNames);
  }
  return over(state, JSON.stringify(outcomes));
}

/**
 * The entry answering each waiting item (by its index): the entry of its PAN and name, or the one
 * entry of its PAN (the vendor may write the name otherwise).
 */
function matchEntries(waiting: { k: number; input: PanItemInput }[], entries: PanBulkAnswerEntry[]): Map<number, PanBulkAnswerEntry> {
  const byKey = new Map<string, PanBulkAnswerEntry>();
  const byPan = new Map<string, PanBulkAnswerEntry[]>();
  for (const e of entries) {
    if (e.pan === null) continue;
    byKey.set(keyOf(e.pan, e.nameProvided), e);
    byPan.set(e.pan, [...(byPan.get(e.pan) ?? []), e]);
  }
  const answered = new Map<number, PanBulkAnswerEntry>();
  for (const { k, input } of waiting) {
    const only = byPan.get(input.pan);
    const entry = byKey.get(keyOf(input.pan, input.name)) ?? (only?.length === 1 ? only[0] : undefined);
    if (entry) answered.set(k, entry);
  }
  return answered;
}
