import path from "node:path";
import { Worker } from "node:worker_threads";
import { log } from "@/server/lib/logger";
import type { ChunkPass, ChunkPassJob } from "./chunk-pass";

/** The thread runs TypeScript like the server, through tsx's require hook (a thread does not get `--import tsx`'s in time). */
const ENTRY = `require("tsx/cjs"); require(${JSON.stringify(path.join(__dirname, "chunk-thread-entry.ts"))});`;

export type ChunkThreadReply = { id: number; pass: ChunkPass } | { id: number; failure: string };

/**
 * The thread where chunks of sandbox batches run their items (./chunk-pass.ts): their fixtures
 * answer without I/O, so on the event loop a chunk's thousand items would take its time from
 * requests and from the commits of other chunks. Started on first use; one that exits fails its
 * passes (the worker then runs them on the event loop) and the next pass starts a new one.
 */
export class ChunkThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (pass: ChunkPass) => void; reject: (err: Error) => void }>();
  private nextId = 1;

  run(job: ChunkPassJob): Promise<ChunkPass> {
    const worker = this.worker ?? this.spawn();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // A thread at work keeps the process up; an idle one does not.
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, job });
    });
  }

  private spawn(): Worker {
    const worker = new Worker(ENTRY, { eval: true });
    worker.on("message", (reply: ChunkThreadReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (!waiting) return;
      if ("pass" in reply) waiting.resolve(reply.pass);
      else waiting.reject(new Error(`a batch chunk failed on its thread: ${reply.failure}`));
    });
    worker.on("error", (err) => log.error("the batch chunk thread failed", { err }));
    worker.on("exit", () => {
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(new Error("the batch chunk thread exited"));
      this.pending.clear();
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  async close() {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }
}
