import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { log } from "@/server/lib/logger";
import { threadEntrySource } from "@/server/lib/runtime-files";
import type { ChunkPass, ChunkPassJob } from "./chunk-pass";
import { EarlyPasses } from "./early-passes";

const ENTRY = threadEntrySource(path.join(__dirname, "chunk-thread-entry.ts"));

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

/**
 * The threads where chunks of sandbox batches run their items (./chunk-pass.ts): their fixtures
 * answer without I/O, so on the event loop a chunk's thousand items would take its time from
 * requests and from the commits of other chunks. Two threads (one on a single core), at a lower CPU
 * priority than the event loop, so a batch's passes overlap each other and the commits. Started on
 * first use; one that exits fails its passes (the worker then runs them on the event loop) and is
 * replaced by the next pass. New batches' first passes start here early, on idle threads
 * (./early-passes.ts).
 */
export class ChunkThread {
  private readonly threads: (PassThread | null)[];
  private nextId = 1;
  readonly early: EarlyPasses;

  constructor(size = Math.min(2, os.availableParallelism()), earlyPassTtlMs?: number) {
    this.threads = Array.from({ length: size }, () => null);
    this.early = new EarlyPasses(this, earlyPassTtlMs);
  }

  /** Runs a pass on the least busy thread. */
  run(job: ChunkPassJob): Promise<ChunkPass> {
    let at = 0;
    for (let i = 0; i < this.threads.length; i++) {
      if (!this.threads[i]) {
        at = i;
        break;
      }
      if (this.threads[i]!.load < this.threads[at]!.load) at = i;
    }
    return this.runOn(at, job);
  }

  /** Runs a pass on a thread with nothing to do (starting one where there is none), or returns null. */
  runIfIdle(job: ChunkPassJob): Promise<ChunkPass> | null {
    const at = this.threads.findIndex((t) => !t || t.load === 0);
    return at === -1 ? null : this.runOn(at, job);
  }

  private runOn(at: number, job: ChunkPassJob): Promise<ChunkPass> {
    const thread = (this.threads[at] ??= this.spawn(at));
    // Whenever a pass ends, a waiting early pass may start on the thread it leaves idle.
    return thread.run(this.nextId++, job).finally(() => this.early.pump());
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
