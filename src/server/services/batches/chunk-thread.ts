import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { log } from "@/server/lib/logger";
import type { ChunkPass, ChunkPassJob } from "./chunk-pass";

/** The thread runs TypeScript like the server, through tsx's require hook (a thread does not get `--import tsx`'s in time). */
const ENTRY = `require("tsx/cjs"); require(${JSON.stringify(path.join(__dirname, "chunk-thread-entry.ts"))});`;

export type ChunkThreadReply = { id: number; pass: ChunkPass } | { id: number; failure: string };

type Waiting = { resolve: (pass: ChunkPass) => void; reject: (err: Error) => void };

/** One thread and the passes sent to it, each answered by its id. */
class PassThread {
  private readonly pending = new Map<number, Waiting>();

  constructor(
    readonly worker: Worker,
    onExit: () => void,
  ) {
    worker.on("message", (reply: ChunkThreadReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (!waiting) return;
      if ("pass" in reply) waiting.resolve(reply.pass);
      else waiting.reject(new Error(`a batch chunk failed on its thread: ${reply.failure}`));
    });
    worker.on("error", (err) => log.error("a batch chunk thread failed", { err }));
    worker.on("exit", () => {
      onExit();
      for (const waiting of this.pending.values()) waiting.reject(new Error("the batch chunk thread exited"));
      this.pending.clear();
    });
    worker.unref();
  }

  get load(): number {
    return this.pending.size;
  }

  run(id: number, job: ChunkPassJob): Promise<ChunkPass> {
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // A thread at work keeps the process up; an idle one does not.
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ id, job });
    });
  }
}

/** First passes started early and not yet taken, at most: about 300 KB each (a chunk's results and rows). */
const MAX_EARLY_PASSES = 32;
/** An early pass no worker took by then (the batch went to another instance) is dropped. */
const EARLY_PASS_TTL_MS = 5 * 60_000;

/**
 * The threads where chunks of sandbox batches run their items (./chunk-pass.ts): their fixtures
 * answer without I/O, so on the event loop a chunk's thousand items would take its time from
 * requests and from the commits of other chunks. Two threads (one on a single core), at a lower CPU
 * priority than the event loop, so a batch's passes overlap each other and the commits. Started on
 * first use; one that exits fails its passes (the worker then runs them on the event loop) and is
 * replaced by the next pass.
 *
 * A new sandbox batch's chunks start their first pass here as soon as the batch is stored
 * (`startEarly`): fixtures give the same answers whenever they are asked, so the items need not wait
 * for a worker's claim, and the worker that claims a chunk takes its pass (`takeEarly`) and commits
 * it under its lease as if it had run it. A chunk put back for a retry runs its later passes anew.
 */
export class ChunkThread {
  private readonly threads: (PassThread | null)[];
  private nextId = 1;
  /** Early first passes so far: taken by the chunk's worker, or dropped untaken (too old, or not the worker's first pass). */
  readonly earlyPasses = { taken: 0, dropped: 0 };
  /** Early first passes by chunk id, oldest first. */
  private readonly early = new Map<string, { pass: Promise<ChunkPass>; retryBudgetMs: number; until: number }>();

  constructor(
    size = Math.min(2, os.availableParallelism()),
    private readonly earlyPassTtlMs = EARLY_PASS_TTL_MS,
  ) {
    this.threads = Array.from({ length: size }, () => null);
  }

  /** Starts a chunk's first pass now (`job` as stored, never passed over), unless too many wait to be taken. */
  startEarly(chunkId: string, job: ChunkPassJob) {
    const now = Date.now();
    for (const [id, e] of this.early) {
      if (e.until > now) break;
      this.early.delete(id);
      this.earlyPasses.dropped++;
    }
    if (this.early.size >= MAX_EARLY_PASSES || job.retryingSince !== null) return;
    const pass = this.run(job);
    // Taken later, or never: its failure is the taker's to handle.
    pass.catch(() => undefined);
    this.early.set(chunkId, { pass, retryBudgetMs: job.retryBudgetMs, until: now + this.earlyPassTtlMs });
  }

  /** The early first pass of a chunk, once: only for a job that is the same first pass (never passed over, the same retry budget). */
  takeEarly(chunkId: string, job: ChunkPassJob): Promise<ChunkPass> | undefined {
    const e = this.early.get(chunkId);
    if (!e) return undefined;
    this.early.delete(chunkId);
    const same = job.retryingSince === null && e.retryBudgetMs === job.retryBudgetMs;
    this.earlyPasses[same ? "taken" : "dropped"]++;
    return same ? e.pass : undefined;
  }

  run(job: ChunkPassJob): Promise<ChunkPass> {
    // The least busy thread, starting one where there is none.
    let at = 0;
    for (let i = 0; i < this.threads.length; i++) {
      if (!this.threads[i]) {
        at = i;
        break;
      }
      if (this.threads[i]!.load < this.threads[at]!.load) at = i;
    }
    const thread = (this.threads[at] ??= this.spawn(at));
    return thread.run(this.nextId++, job);
  }

  private spawn(at: number): PassThread {
    const thread: PassThread = new PassThread(new Worker(ENTRY, { eval: true }), () => {
      if (this.threads[at] === thread) this.threads[at] = null;
    });
    return thread;
  }

  async close() {
    this.early.clear();
    const threads = this.threads.splice(0, this.threads.length, ...this.threads.map(() => null));
    await Promise.all(threads.map((t) => t?.worker.terminate()));
  }
}
