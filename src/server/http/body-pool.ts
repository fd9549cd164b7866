import os from "node:os";
import path from "node:path";
import { threadId as mainThreadId, Worker } from "node:worker_threads";
import { AppError, isAppError } from "@/server/errors";
import { log } from "@/server/lib/logger";
import { threadEntrySource } from "@/server/lib/runtime-files";
import { processMetrics } from "@/server/metrics/registry";
import { readJsonBody, type ReadJsonBody } from "@/server/http/json-body";
import type { BatchKind } from "@/server/services/batches/batches";

/**
 * Large request bodies are parsed, checked, redacted for the audit record and (for batches)
 * validated and cut into chunks on a small pool of threads, so that one merchant's 8 MiB batches
 * do not stall everyone else's calls on the one event loop. Smaller bodies are read in place: the
 * hand-over would cost more than the parse.
 */
export const OFF_THREAD_BYTES = 64 * 1024;
/** Big-body requests (batch routes) read and served at once; each may hold its body and its chunks. */
const BIG_BODY_SLOTS = 4;
/** Big-body requests that may wait (their bodies unread) for a slot; past that, 503 with Retry-After. */
const BIG_BODY_WAITERS = 32;
/** Longest wait for a slot before the 503. */
const BIG_BODY_WAIT_MS = 30_000;
/** Bodies queued for a thread; past that, 503 with Retry-After. */
const POOL_QUEUE_LIMIT = 64;
const RETRY_AFTER_SECONDS = 2;

export interface BodyJob {
  id: number;
  body: Uint8Array;
  batchKind: BatchKind | null;
  /** Items per chunk for a batch (the caller's mode decides). */
  chunkSize: number;
}

type Reply = { id: number; read: ReadJsonBody; threadId: number } | { id: number; failure: string };

/** A body read on a thread, and which thread read it (the main thread's id is 0). */
export interface ThreadRead {
  read: ReadJsonBody;
  threadId: number;
}

interface Pending {
  job: BodyJob;
  resolve: (read: ThreadRead) => void;
  reject: (err: Error) => void;
}

const busy = (what: string) =>
  new AppError("SERVICE_UNAVAILABLE", `Too many ${what} are being read; retry after the time in Retry-After.`, { retryAfterSeconds: RETRY_AFTER_SECONDS });

const WORKER_SOURCE = threadEntrySource(path.join(__dirname, "body-worker.ts"));

/** Threads that read bodies one at a time each, fed from a bounded queue. */
export class BodyPool {
  private readonly idle: Worker[] = [];
  private readonly working = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private threads = 0;
  private nextId = 1;

  constructor(
    private readonly size: number,
    private readonly queueLimit = POOL_QUEUE_LIMIT,
  ) {}

  /** Reads on a thread; the body is copied to it, so the caller's buffer stays whole. */
  read(raw: Buffer, batchKind: BatchKind | null, chunkSize: number): Promise<ThreadRead> {
    if (this.queue.length >= this.queueLimit) return Promise.reject(busy("request bodies"));
    return new Promise((resolve, reject) => {
      this.queue.push({ job: { id: this.nextId++, body: raw, batchKind, chunkSize }, resolve, reject });
      this.dispatch();
    });
  }

  /** Threads started so far (they start on first use and stay). */
  get started(): number {
    return this.threads;
  }

  private dispatch() {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.threads < this.size ? this.spawn() : undefined);
      if (!worker) return;
      const pending = this.queue.shift()!;
      this.working.set(worker, pending);
      // A thread at work keeps the process up; an idle one does not.
      worker.ref();
      worker.postMessage(pending.job);
    }
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    this.threads++;
    worker.on("message", (reply: Reply) => {
      const pending = this.working.get(worker);
      this.working.delete(worker);
      worker.unref();
      this.idle.push(worker);
      if (pending) {
        if ("read" in reply) pending.resolve({ read: reply.read, threadId: reply.threadId });
        else pending.reject(new Error(`a body thread failed: ${reply.failure}`));
      }
      this.dispatch();
    });
    // An error ends the thread: its job fails (a 500), and the next job starts a new one.
    worker.on("error", (err) => log.error("a body thread failed", { err }));
    worker.on("exit", () => {
      this.threads--;
      const at = this.idle.indexOf(worker);
      if (at !== -1) this.idle.splice(at, 1);
      const pending = this.working.get(worker);
      this.working.delete(worker);
      pending?.reject(new Error("a body thread exited"));
      this.dispatch();
    });
    worker.unref();
    return worker;
  }

  async close() {
    for (const pending of this.queue.splice(0)) pending.reject(busy("request bodies"));
    await Promise.all([...this.idle, ...this.working.keys()].map((w) => w.terminate()));
  }
}

/** Admission for big-body requests: a few at a time, the next ones waiting unread in order, then 503. */
export class BodyGate {
  private inside = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly slots = BIG_BODY_SLOTS,
    private readonly waitLimit = BIG_BODY_WAITERS,
    private readonly waitMs = BIG_BODY_WAIT_MS,
  ) {}

  /** Resolves with the function that gives the slot back. */
  async enter(): Promise<() => void> {
    if (this.inside < this.slots) {
      this.inside++;
      return this.leaver();
    }
    if (this.waiting.length >= this.waitLimit) throw busy("large request bodies");
    // A slot given back goes straight to the first waiter, so no newcomer overtakes it.
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(turn), 1);
        reject(busy("large request bodies"));
      }, this.waitMs);
      this.waiting.push(turn);
    });
    return this.leaver();
  }

  private leaver(): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.inside--;
    };
  }
}

/** A body read for its operation: in place when small, on the pool when large; counted in the process's metrics. */
export function createBodyReader(size = Math.max(1, Math.min(2, os.availableParallelism() - 1))) {
  const pool = new BodyPool(size);
  const gate = new BodyGate();
  const counted = processMetrics().requestBodies;
  const refusedWhenBusy = (err: unknown) => {
    if (isAppError(err) && err.code === "SERVICE_UNAVAILABLE") counted.inc({ outcome: "refused_busy" });
    throw err;
  };
  return {
    enter: () => gate.enter().catch(refusedWhenBusy),
    read: (raw: Buffer, batchKind: BatchKind | null, chunkSize: number): Promise<ReadJsonBody> => {
      if (raw.length < OFF_THREAD_BYTES) {
        counted.inc({ outcome: "read_in_place" });
        return Promise.resolve(readJsonBody(raw, batchKind, chunkSize));
      }
      return pool.read(raw, batchKind, chunkSize).then(({ read, threadId }) => {
        // Counted by where it was read, as the reading thread says.
        counted.inc({ outcome: threadId === mainThreadId ? "read_in_place" : "read_on_thread" });
        return read;
      }, refusedWhenBusy);
    },
  };
}

export type BodyReader = ReturnType<typeof createBodyReader>;
