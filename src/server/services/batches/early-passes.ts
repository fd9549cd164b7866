import type { ChunkPass, ChunkPassJob } from "./chunk-pass";

/** First passes started early and not yet taken, at most: about 300 KB each (a chunk's results and rows). */
const MAX_EARLY_PASSES = 32;
/** An early pass no worker took by then is dropped. */
const EARLY_PASS_TTL_MS = 5 * 60_000;

interface EarlyPass {
  job: ChunkPassJob;
  until: number;
  /** Started on a thread; undefined while it waits for an idle one. */
  pass?: Promise<ChunkPass>;
}

/**
 * A new sandbox batch's chunks start their first pass as soon as the batch is stored (`start`):
 * fixtures give the same answers whenever they are asked, so the items need not wait for a worker's
 * claim, and the worker that claims a chunk takes the pass (`take`) and commits it under its lease as
 * if it had run it. Only the chunk's first pass: one put back for a retry runs its next pass anew.
 *
 * Early passes use idle chunk threads only, oldest first: a worker's own pass never waits behind
 * another merchant's early ones. They are started only in a process whose job runners work batches
 * (`enable`): anywhere else no worker would take them.
 */
/** Where early passes run: the chunk threads, which start a pass only when one of them is idle (./chunk-thread.ts). */
export interface IdleThreads {
  runIfIdle(job: ChunkPassJob): Promise<ChunkPass> | null;
}

export class EarlyPasses {
  /** Early first passes so far: taken by the chunk's worker, or dropped (too old, or not what the worker needed). */
  readonly counts = { taken: 0, dropped: 0 };
  /** By chunk id, oldest first. */
  private readonly waiting = new Map<string, EarlyPass>();
  private enabled = false;

  constructor(
    private readonly threads: IdleThreads,
    private readonly ttlMs = EARLY_PASS_TTL_MS,
  ) {}

  /** This process's job runners work batches: early passes started here will be taken here. */
  enable() {
    this.enabled = true;
  }

  /** Starts a chunk's first pass (`job` as stored) when a thread is idle, unless too many wait to be taken. */
  start(chunkId: string, job: ChunkPassJob) {
    if (!this.enabled || job.retryingSince !== null) return;
    this.dropStale();
    if (this.waiting.size >= MAX_EARLY_PASSES) return;
    this.waiting.set(chunkId, { job, until: Date.now() + this.ttlMs });
    this.pump();
  }

  /**
   * The early first pass of a chunk, once, for a job that is that same first pass (the same stored
   * outcomes, never put back, the same retry budget); undefined otherwise, and for one that had not
   * started yet (the worker runs it itself now).
   */
  take(chunkId: string, job: ChunkPassJob): Promise<ChunkPass> | undefined {
    this.dropStale();
    const e = this.waiting.get(chunkId);
    if (!e) return undefined;
    this.waiting.delete(chunkId);
    const same = e.pass !== undefined && job.retryingSince === null && job.results === e.job.results && job.retryBudgetMs === e.job.retryBudgetMs;
    this.counts[same ? "taken" : "dropped"]++;
    return same ? e.pass : undefined;
  }

  /** Starts waiting early passes on idle threads, oldest first. */
  pump() {
    for (const e of this.waiting.values()) {
      if (e.pass) continue;
      const pass = this.threads.runIfIdle(e.job);
      if (!pass) return;
      // Taken later, or never: its failure is the taker's to handle.
      pass.catch(() => undefined);
      e.pass = pass;
    }
  }

  clear() {
    this.waiting.clear();
  }

  private dropStale() {
    const now = Date.now();
    for (const [id, e] of this.waiting) {
      if (e.until > now) break;
      this.waiting.delete(id);
      this.counts.dropped++;
    }
  }
}
