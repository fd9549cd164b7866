import cluster, { type Worker } from "node:cluster";
import { log } from "@/server/lib/logger";
import { LocalLimitStore } from "@/server/services/limits/shared";
import { INSTANCE_ID_ENV, instanceId, isControl, WORKER_SLOT_ENV } from "./control";
import { answerLimits, type Channel } from "./limits-ipc";
import { aggregateClusterMetrics } from "@/server/metrics/cluster";

export interface PrimaryOptions {
  workers: number;
  /** How long a new worker may take to become ready before a rolling restart gives up on it. */
  readyTimeoutMs: number;
  /** How long a stopping or draining worker may take before it is killed. */
  stopTimeoutMs: number;
}

/** Restarts after a crash wait firstMs, doubling per crash up to maxMs; a worker up for stableMs starts the count again. */
export const RESTART_BACKOFF = { firstMs: 250, maxMs: 30_000, stableMs: 30_000 };

/** The wait before restarting a worker after its `crashes`-th crash in a row. */
export function restartDelay(crashes: number): number {
  return Math.min(RESTART_BACKOFF.maxMs, RESTART_BACKOFF.firstMs * 2 ** Math.max(0, crashes - 1));
}

interface Slot {
  index: number;
  worker: Worker | undefined;
  startedAt: number;
  crashes: number;
  restart: NodeJS.Timeout | undefined;
}

const ignore = () => {};

function channelOf(worker: Worker): Channel {
  return { send: (message, callback) => worker.send(message as object, undefined, callback), on: (event, listener) => worker.on(event, listener) };
}

/** Resolves true once the worker says it is ready, false if it exits or the time runs out first. */
function whenReady(worker: Worker, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("exit", onExit);
      resolve(ok);
    };
    const onMessage = (m: unknown) => isControl(m) && "event" in m && m.event === "ready" && done(true);
    const onExit = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    worker.on("message", onMessage);
    worker.on("exit", onExit);
  });
}

/**
 * The cluster's primary: forks the workers, restarts one that dies (with backoff), owns the limits
 * every worker shares, replaces the workers one at a time on SIGHUP, and on SIGTERM/SIGINT stops them
 * all gracefully, then exits. It serves no request itself.
 */
export class Primary {
  private readonly limits = new LocalLimitStore();
  private readonly slots: Slot[];
  /** Workers on their way out (replaced, or the server stopping): their exit is expected. */
  private readonly leaving = new Set<Worker>();
  /** Workers whose process has not exited (cluster.workers keeps them until their channel closes too). */
  private readonly live = new Set<Worker>();
  private stopping = false;
  private rolling = false;

  constructor(private readonly options: PrimaryOptions) {
    this.slots = Array.from({ length: options.workers }, (_, index) => ({ index, worker: undefined, startedAt: 0, crashes: 0, restart: undefined }));
  }

  start() {
    process.on("SIGTERM", () => this.stop("SIGTERM"));
    process.on("SIGINT", () => this.stop("SIGINT"));
    process.on("SIGHUP", () => void this.replaceAll());
    // Before the first fork: a scrape on any worker then answers for them all.
    aggregateClusterMetrics();
    for (const slot of this.slots) this.place(slot, this.fork(slot.index));
    log.info("cluster started", { workers: this.options.workers, pid: process.pid });
  }

  private fork(index: number): Worker {
    const worker = cluster.fork({ [WORKER_SLOT_ENV]: String(index), [INSTANCE_ID_ENV]: instanceId() });
    this.live.add(worker);
    const answering = answerLimits(channelOf(worker), this.limits);
    worker.on("error", (err) => log.warn("worker channel error", { worker: index, err }));
    worker.on("exit", (code, signal) => {
      // Its upstream calls in flight died with it: their slots (and a trial call) come back.
      answering.close();
      this.exited(index, worker, code, signal);
    });
    return worker;
  }

  private place(slot: Slot, worker: Worker) {
    slot.worker = worker;
    slot.startedAt = Date.now();
  }

  private exited(index: number, worker: Worker, code: number | null, signal: string | null) {
    this.live.delete(worker);
    if (this.leaving.delete(worker)) return this.stopped();
    const slot = this.slots[index]!;
    // A replacement that died before it was ready: the rolling restart reports it.
    if (slot.worker !== worker || this.stopping) return;
    slot.worker = undefined;
    slot.crashes = Date.now() - slot.startedAt >= RESTART_BACKOFF.stableMs ? 1 : slot.crashes + 1;
    const delay = restartDelay(slot.crashes);
    const fields = { worker: index, pid: worker.process.pid, code, signal, crashes: slot.crashes, restartInMs: delay };
    if (delay >= RESTART_BACKOFF.maxMs) log.error("worker keeps crashing; restarting it at the slowest pace", fields);
    else log.warn("worker exited; restarting it", fields);
    slot.restart = setTimeout(() => {
      slot.restart = undefined;
      if (!this.stopping && !slot.worker) this.place(slot, this.fork(index));
    }, delay);
  }

  /** SIGHUP: each worker in turn gets a ready replacement before it drains; nobody's request fails. */
  private async replaceAll() {
    if (this.stopping) return;
    if (this.rolling) return log.info("SIGHUP ignored: a restart is already under way");
    this.rolling = true;
    log.info("replacing workers one at a time", { workers: this.slots.length });
    try {
      for (const slot of this.slots) {
        if (this.stopping) return;
        const fresh = this.fork(slot.index);
        if (!(await whenReady(fresh, this.options.readyTimeoutMs))) {
          log.error("a new worker did not become ready; restart abandoned, the running workers keep serving", { worker: slot.index, pid: fresh.process.pid });
          this.leaving.add(fresh);
          if (fresh.isDead()) this.leaving.delete(fresh);
          else fresh.process.kill("SIGKILL");
          return;
        }
        const old = slot.worker;
        clearTimeout(slot.restart);
        slot.crashes = 0;
        this.place(slot, fresh);
        if (old) await this.retire(old);
      }
      log.info("workers replaced", { pids: this.slots.map((s) => s.worker?.process.pid) });
    } finally {
      this.rolling = false;
    }
  }

  /** Tells a replaced worker to drain; resolves once it has stopped accepting connections (or exited). */
  private retire(worker: Worker): Promise<void> {
    this.leaving.add(worker);
    if (worker.isDead()) {
      this.leaving.delete(worker);
      return Promise.resolve();
    }
    this.killLater(worker);
    return new Promise((resolve) => {
      const onMessage = (m: unknown) => isControl(m) && "event" in m && m.event === "draining" && finish();
      const finish = () => {
        worker.off("message", onMessage);
        worker.off("exit", finish);
        resolve();
      };
      worker.on("message", onMessage);
      worker.on("exit", finish);
      worker.send({ parakh: "control", command: "drain" }, undefined, ignore);
    });
  }

  /** A worker that does not finish in time is killed. */
  private killLater(worker: Worker) {
    const timer = setTimeout(() => {
      if (worker.isDead()) return;
      log.warn("worker did not stop in time; killing it", { pid: worker.process.pid });
      worker.process.kill("SIGKILL");
    }, this.options.stopTimeoutMs);
    timer.unref();
  }

  private stop(signal: string) {
    if (this.stopping) return;
    this.stopping = true;
    log.info("stopping workers", { signal });
    for (const slot of this.slots) clearTimeout(slot.restart);
    for (const worker of this.live) {
      this.leaving.add(worker);
      this.killLater(worker);
      worker.send({ parakh: "control", command: "stop", signal }, undefined, ignore);
    }
    this.stopped();
  }

  /** Once stopping and every worker has exited, so does the primary. */
  private stopped() {
    if (!this.stopping || this.live.size > 0) return;
    log.info("stopped");
    process.exit(0);
  }
}
