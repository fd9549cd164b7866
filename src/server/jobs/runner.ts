/**
 * `JobRunner` claims due jobs of the types it knows with a lease (./lease.ts), runs their handlers
 * and records the outcome. Any number of runners in any number of processes can share the table: a
 * claim is won by exactly one of them, a crashed worker's job is claimed again once its lease runs
 * out, and an outcome is written only by the claim that still holds the job.
 */
import os from "node:os";
import type { z } from "zod";
import { DEFAULT_JOB_LEASE_MS } from "@/lib/limits";
import type { Db } from "@/server/db/client";
import { randomToken } from "@/server/lib/ids";
import { log as defaultLogger } from "@/server/lib/logger";
import type { AtomicWriter } from "@/server/db/atomic-write";
import { conditionalUpdates } from "@/server/db/conditional-update";
import { keepLease, LeasedRows, type Lease } from "./lease";
import { defaultBackoff, jobErrorText, payloadErrorText, type Backoff } from "./policy";
import type { JobStatus } from "./queue";

/** Thrown by a handler for a failure that retrying cannot fix: the job goes DEAD at once. */
export class PermanentJobError extends Error {
  override name = "PermanentJobError";
}

/** What a handler sees of the job it runs. */
export interface RunningJob {
  id: string;
  type: string;
  /** This attempt's number, from 1; `retryAt` reschedules do not count (see JobResult). */
  attempts: number;
  maxAttempts: number;
  runAt: Date;
  createdAt: Date;
  /**
   * Aborted when this worker no longer holds the job (lease lost, or `stop()` stopped waiting).
   * Long handlers should check it between steps and stop; their outcome would be discarded.
   */
  signal: AbortSignal;
}

/**
 * A handler's result. `void` → DONE. `{ retryAt }` → QUEUED again at that time, and the attempt
 * is not counted against maxAttempts: it is the handler's own schedule (webhook retries, a batch
 * working in slices), not a failure. A handler that reschedules must itself decide when to stop.
 * Throwing is a failure: retried with backoff until maxAttempts, then DEAD (PermanentJobError: DEAD
 * at once).
 */
export type JobResult = void | { retryAt: Date };

export type JobHandler<P = unknown> = (payload: P, job: RunningJob) => Promise<JobResult>;

export interface JobTypeOptions<P = unknown> {
  /** Delay before retrying a failed attempt (default: exponential from 1 s, capped at 1 h, jittered). */
  backoff?: Backoff;
  /**
   * What a payload must hold. A claimed job whose payload does not fit is DEAD at once with the
   * reason recorded, and its handler is never called: no retry can mend a payload.
   */
  payload?: z.ZodType<P>;
}

export interface JobLogger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface JobRunnerOptions {
  /** Names this runner in `Job.lockedBy` (default: host:pid:random). */
  workerId?: string;
  /** Idle wait between claim cycles (default 500 ms). */
  pollMs?: number;
  /**
   * How long a claim holds a job; renewed every leaseMs/3 while the handler runs (default DEFAULT_JOB_LEASE_MS).
   * A dead worker's job is taken over once the lease ends (plus up to min(leaseMs/2, 5 s)).
   */
  leaseMs?: number;
  /** Candidate rows read per claim cycle (default 10). */
  batchSize?: number;
  /** Handlers running at once in this runner (default 4). */
  concurrency?: number;
  /** How long `stop()` waits for running handlers by default (default 10 s). */
  stopTimeoutMs?: number;
  logger?: JobLogger;
  /**
   * Where claims, renewals and outcomes are written. With the app's atomic writer they join its
   * group commits on SQLite (a job then costs no fsync of its own on the event loop); without one,
   * through the Prisma client.
   */
  writer?: AtomicWriter;
}

interface Registration {
  handler: JobHandler<unknown>;
  backoff: Backoff;
  payload: z.ZodType | undefined;
}

interface Candidate {
  id: string;
  type: string;
  payload: string;
  attempts: number;
  maxAttempts: number;
  runAt: Date;
  createdAt: Date;
}

/** One claimed job in this process. */
interface ActiveRun {
  job: Candidate;
  lease: Lease;
  controller: AbortController;
  renewal: { stop(): void } | undefined;
  /** Resolves when the handler has finished and its outcome is recorded (never rejects). */
  done: Promise<void>;
}

type Outcome = { status: JobStatus; lastError?: string; runAt?: Date; uniqueKey?: null; attempts?: { decrement: number } };

const CANDIDATE_SELECT = {
  id: true,
  type: true,
  payload: true,
  attempts: true,
  maxAttempts: true,
  runAt: true,
  createdAt: true,
} as const;

/** The Job table's lease: QUEUED until runAt, RUNNING under `lockedBy` until `lockedUntil`. */
function jobLeases(db: Db, writer: AtomicWriter | undefined): LeasedRows {
  const rows = writer ? conditionalUpdates(writer, "Job", { updatedAt: true }) : null;
  return new LeasedRows(() => rows ?? db.job, { free: "QUEUED", held: "RUNNING", token: "lockedBy", until: "lockedUntil", due: "runAt" });
}

/** Runners reading the same head of the queue try it in different orders, so fewer claims collide. */
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Claims and runs jobs of the registered types. Use one per process and set of types: `register` the handlers,
 * `start()` at boot, `stop()` at shutdown, `poke()` after enqueueing work this process should pick
 * up at once. Handlers must be idempotent (at-least-once delivery).
 */
export class JobRunner {
  readonly workerId: string;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly stopTimeoutMs: number;
  private readonly log: JobLogger;
  private readonly leases: LeasedRows;
  private readonly handlers = new Map<string, Registration>();
  /** Keyed by lease token: after a stop() timeout an abandoned run and a new claim of the same job can coexist. */
  private readonly active = new Map<string, ActiveRun>();
  private loopDone: Promise<void> | undefined;
  private stopping = false;
  private wakeRequested = false;
  private wakeSleeper: (() => void) | undefined;
  private readonly expiredLeaseCheckMs: number;
  private lastExpiredLeaseCheck = 0;

  constructor(
    private readonly db: Db,
    options: JobRunnerOptions = {},
  ) {
    this.workerId = options.workerId ?? `${os.hostname()}:${process.pid}:${randomToken(6)}`;
    this.pollMs = options.pollMs ?? 500;
    this.leaseMs = options.leaseMs ?? DEFAULT_JOB_LEASE_MS;
    this.batchSize = options.batchSize ?? 10;
    this.concurrency = options.concurrency ?? 4;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
    this.log = options.logger ?? defaultLogger;
    this.leases = jobLeases(db, options.writer);
    this.expiredLeaseCheckMs = Math.min(this.leaseMs / 2, 5_000);
    if (this.leaseMs < 30) throw new Error("JobRunner: leaseMs must be at least 30");
    if (this.concurrency < 1 || this.batchSize < 1) throw new Error("JobRunner: concurrency and batchSize must be ≥ 1");
  }

  /** Adds the handler for a job type; with `options.payload`, each payload is checked against it before the handler sees it. */
  register<P = unknown>(type: string, handler: JobHandler<P>, options: JobTypeOptions<P> = {}): this {
    if (this.handlers.has(type)) throw new Error(`JobRunner: a handler for "${type}" is already registered`);
    this.handlers.set(type, { handler: handler as JobHandler<unknown>, backoff: options.backoff ?? defaultBackoff, payload: options.payload });
    return this;
  }

  /** Starts the claim loop in the background. Idempotent. */
  start(): void {
    if (this.loopDone) return;
    this.stopping = false;
    this.loopDone = this.loop();
  }

  /** Runs a claim cycle soon instead of waiting out pollMs. No-op when not started. */
  poke(): void {
    this.wakeRequested = true;
    this.wakeSleeper?.();
  }

  /**
   * Stops claiming, waits up to `timeoutMs` for running handlers to finish and record their
   * outcome, then resolves. Handlers still running after that get their signal aborted and stop
   * renewing their lease, so another instance takes the jobs over when the lease runs out.
   * Returns how many handlers were left running.
   */
  async stop(timeoutMs = this.stopTimeoutMs): Promise<{ unfinished: number }> {
    this.stopping = true;
    this.poke();
    await this.loopDone;
    this.loopDone = undefined;
    const runs = [...this.active.values()];
    if (runs.length === 0) return { unfinished: 0 };
    const allDone = Promise.all(runs.map((r) => r.done)).then(() => true);
    const finished = await Promise.race([allDone, delay(timeoutMs).then(() => false)]);
    if (finished) return { unfinished: 0 };
    const left = [...this.active.values()];
    for (const run of left) this.release(run, new Error("job runner stopped"));
    this.log.warn("job runner stopped with handlers still running", {
      workerId: this.workerId,
      jobIds: left.map((r) => r.job.id),
    });
    return { unfinished: left.length };
  }

  /**
   * One claim cycle: claims up to the free concurrency (at most batchSize) and runs them to the
   * end. Returns how many jobs were run. For tests and scripts; a started runner does this itself.
   */
  async runOnce(): Promise<number> {
    const runs = await this.claimAndStart({ checkExpiredLeases: true });
    await Promise.all(runs);
    return runs.length;
  }

  /** Jobs this runner is running now. */
  get runningCount(): number {
    return this.active.size;
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      let started = 0;
      try {
        started = (await this.claimAndStart()).length;
        failures = 0;
      } catch (err) {
        failures++;
        this.log.warn("job claim failed", { workerId: this.workerId, failures, err });
      }
      if (this.stopping) break;
      // Claimed something and slots are left: there may be more due now.
      if (started > 0 && this.active.size < this.concurrency) continue;
      // While the database is unreachable, poll less often (up to 30 s) instead of logging twice a second.
      await this.sleep(failures ? Math.min(this.pollMs * 2 ** failures, 30_000) : this.pollMs);
    }
  }

  /** Waits pollMs, or less when poked or a handler finishes. */
  private sleep(ms: number): Promise<void> {
    if (this.wakeRequested) {
      this.wakeRequested = false;
      // A macrotask, not a resolved promise: on SQLite every query settles without I/O, and a loop
      // of microtasks would keep timers and sockets (the HTTP server) from ever running.
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        this.wakeRequested = false;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref();
      this.wakeSleeper = wake;
    });
  }

  /** Reads due jobs (and, now and then, jobs under an expired lease) of the registered types. */
  private async candidates(types: string[], checkExpiredLeases: boolean): Promise<Candidate[]> {
    const now = new Date();
    // Two simple queries rather than one OR: each is a short index range scan, while the OR
    // sorts every due row when a backlog builds up.
    const candidates = shuffle(
      await this.db.job.findMany({
        where: { type: { in: types }, ...this.leases.dueWhere(now) },
        orderBy: { runAt: "asc" },
        take: this.batchSize,
        select: CANDIDATE_SELECT,
      }),
    );
    // Expired leases are rare (a worker died), so they are looked for less often than due jobs.
    if (checkExpiredLeases || now.getTime() - this.lastExpiredLeaseCheck >= this.expiredLeaseCheckMs) {
      this.lastExpiredLeaseCheck = now.getTime();
      const expired = await this.db.job.findMany({
        where: { type: { in: types }, ...this.leases.expiredWhere(now) },
        take: this.batchSize,
        select: CANDIDATE_SELECT,
      });
      candidates.unshift(...expired);
    }
    return candidates;
  }

  /**
   * Claims due jobs, one conditional update each, as many at once as there are free slots (a new
   * batch's workers start together, not one claim after another), and starts their handlers.
   */
  private async claimAndStart(options: { checkExpiredLeases?: boolean } = {}): Promise<Promise<void>[]> {
    const types = [...this.handlers.keys()];
    const want = Math.min(this.batchSize, this.concurrency - this.active.size);
    if (types.length === 0 || want <= 0 || this.stopping) return [];
    const candidates = await this.candidates(types, options.checkExpiredLeases ?? false);
    const runs: Promise<void>[] = [];
    let next = 0;
    while (next < candidates.length && runs.length < want && !this.stopping) {
      const wave = candidates.slice(next, next + want - runs.length);
      next += wave.length;
      // `attempts` pins the row version we read, so the attempt number we report is exact.
      const leases = await Promise.all(
        wave.map((candidate) =>
          this.leases.claim(candidate.id, { attempts: candidate.attempts }, this.leaseMs, { owner: this.workerId, data: { attempts: { increment: 1 } } }),
        ),
      );
      for (const [k, lease] of leases.entries()) {
        if (!lease) continue; // another runner won it
        const candidate = wave[k]!;
        if (this.stopping) {
          // stop() came while this claim was on its way: give the job back untouched, to run elsewhere or later.
          await this.leases.retryAt(lease, candidate.runAt, { attempts: { decrement: 1 } });
          continue;
        }
        runs.push(this.begin({ ...candidate, attempts: candidate.attempts + 1 }, lease));
      }
    }
    return runs;
  }

  private begin(job: Candidate, lease: Lease): Promise<void> {
    const run: ActiveRun = { job, lease, controller: new AbortController(), renewal: undefined, done: Promise.resolve() };
    this.active.set(lease.token, run);
    run.done = this.execute(run).finally(() => {
      this.release(run);
      this.active.delete(lease.token);
      this.poke(); // a slot is free
    });
    return run.done;
  }

  /** Stops renewing the lease and, with a reason, tells the handler it no longer holds the job. */
  private release(run: ActiveRun, reason?: Error): void {
    run.renewal?.stop();
    run.renewal = undefined;
    if (reason && !run.controller.signal.aborted) run.controller.abort(reason);
  }

  private async execute(run: ActiveRun): Promise<void> {
    const { job } = run;
    const registration = this.handlers.get(job.type)!;

    // The previous holder's lease ran out during the final attempt (the worker died or hung).
    if (job.attempts > job.maxAttempts) {
      await this.finish(run, { status: "DEAD", lastError: "lease expired during the final attempt (worker lost)", uniqueKey: null });
      return;
    }

    let payload: unknown;
    try {
      payload = JSON.parse(job.payload);
    } catch {
      await this.finish(run, { status: "DEAD", lastError: "payload is not valid JSON", uniqueKey: null });
      return;
    }
    if (registration.payload) {
      const checked = registration.payload.safeParse(payload);
      if (!checked.success) {
        await this.finish(run, { status: "DEAD", lastError: payloadErrorText(checked.error), uniqueKey: null });
        return;
      }
      payload = checked.data;
    }

    this.keepLease(run);
    let result: JobResult;
    try {
      result = await registration.handler(payload, {
        id: job.id,
        type: job.type,
        attempts: job.attempts,
        maxAttempts: job.maxAttempts,
        runAt: job.runAt,
        createdAt: job.createdAt,
        signal: run.controller.signal,
      });
    } catch (err) {
      this.release(run);
      const lastError = jobErrorText(err);
      if (err instanceof PermanentJobError || job.attempts >= job.maxAttempts) {
        await this.finish(run, { status: "DEAD", lastError, uniqueKey: null });
      } else {
        const retryInMs = Math.max(0, registration.backoff(job.attempts));
        await this.finish(run, { status: "QUEUED", lastError, runAt: new Date(Date.now() + retryInMs) });
      }
      return;
    }
    this.release(run);
    if (result && result.retryAt instanceof Date && !Number.isNaN(result.retryAt.getTime())) {
      // The handler's own schedule: give the attempt back.
      await this.finish(run, { status: "QUEUED", runAt: result.retryAt, attempts: { decrement: 1 } });
    } else {
      await this.finish(run, { status: "DONE", uniqueKey: null });
    }
  }

  /** Renews the lease while the handler runs; a renewal that finds the job taken aborts the handler. */
  private keepLease(run: ActiveRun): void {
    const fields = { jobId: run.job.id, type: run.job.type, workerId: this.workerId };
    run.renewal = keepLease(this.leases, run.lease, {
      leaseMs: this.leaseMs,
      onLost: (why) => {
        if (why === "lost") this.log.warn("job lease lost", fields);
        this.release(run, new Error(`job lease ${why}`));
      },
      onError: (err) => this.log.warn("job lease renewal failed", { jobId: run.job.id, workerId: this.workerId, err }),
    });
  }

  /**
   * Records an outcome if this claim still holds the job. A few quick retries ride out a brief
   * database hiccup; if they all fail the job stays RUNNING and is run again after its lease.
   */
  private async finish(run: ActiveRun, outcome: Outcome): Promise<void> {
    const fields = { jobId: run.job.id, type: run.job.type, attempts: run.job.attempts, workerId: this.workerId };
    for (let attempt = 1; ; attempt++) {
      try {
        const held = await this.leases.release(run.lease, outcome);
        if (!held) {
          this.log.warn("job outcome discarded: lease lost to another worker", { ...fields, outcome: outcome.status });
        } else if (outcome.status === "DEAD") {
          this.log.error("job dead", { ...fields, lastError: outcome.lastError });
        } else if (outcome.lastError) {
          this.log.warn("job attempt failed; retrying", { ...fields, runAt: outcome.runAt, lastError: outcome.lastError });
        }
        return;
      } catch (err) {
        if (attempt >= 3) {
          this.log.error("job outcome not recorded; the job will run again after its lease", { ...fields, outcome: outcome.status, err });
          return;
        }
        await delay(100 * attempt);
      }
    }
  }
}
