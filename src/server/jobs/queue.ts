/**
 * A durable job queue on the `Job` table, shared by every app instance that uses the database.
 *
 * - `enqueueJob` writes a row (inside the caller's transaction when given one, so a state change
 *   and its follow-up work commit or roll back together).
 * - `JobRunner` claims due jobs of the types it knows with a conditional update (a lease), runs
 *   their handlers and records the outcome. Any number of runners in any number of processes can
 *   share the table: a claim is won by exactly one of them, a crashed worker's job is claimed again
 *   once its lease runs out, and an outcome is written only by the claim that still holds the job.
 *
 * Delivery is at-least-once: a handler may run again for the same job (its worker died or lost the
 * lease before recording the outcome), so handlers must be idempotent. A job that reached DONE is
 * never run again.
 *
 * Job states: QUEUED (waiting for runAt) → RUNNING (leased) → DONE, or back to QUEUED for a retry,
 * or DEAD once its attempts are used up.
 */
import os from "node:os";
import type { Db, DbTx } from "@/server/db/client";
import { newId, randomToken } from "@/server/lib/ids";
import { log as defaultLogger } from "@/server/lib/logger";
import { defaultBackoff, jobErrorText, type Backoff } from "./policy";

export { exponentialBackoff, defaultBackoff, jobErrorText, type Backoff, type BackoffOptions } from "./policy";

export type JobStatus = "QUEUED" | "RUNNING" | "DONE" | "DEAD";

/** Schema default for `Job.maxAttempts`. */
export const DEFAULT_MAX_ATTEMPTS = 10;

export interface EnqueueJobInput {
  /** Handler name, e.g. "webhook.deliver". */
  type: string;
  /** Any JSON-serialisable value; stored as JSON text and handed to the handler parsed. */
  payload: unknown;
  /** Earliest time to run (default: now). */
  runAt?: Date;
  /** Failed or lost attempts allowed before the job is DEAD (default 10). */
  maxAttempts?: number;
  /**
   * Dedupe key: while a job with this key is QUEUED or RUNNING, enqueueing again returns that
   * job's id and changes nothing (its payload and runAt stay). The key is released when the job
   * ends (DONE or DEAD), so it can be used again. Note a RUNNING job may already have read the
   * state the new enqueue was about.
   */
  uniqueKey?: string;
}

/**
 * The row for a job without a uniqueKey, for callers that write it in a batch transaction
 * (`db.$transaction([..., db.job.create({ data: newJobRow(...) })])`), the fastest way to make
 * a state change and its follow-up job commit together.
 */
export function newJobRow(input: Omit<EnqueueJobInput, "uniqueKey">) {
  if (!input.type) throw new Error("enqueueJob: type is required");
  const maxAttempts = input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error("enqueueJob: maxAttempts must be an integer ≥ 1");
  return {
    id: newId("job"),
    type: input.type,
    payload: JSON.stringify(input.payload ?? null),
    status: "QUEUED" satisfies JobStatus,
    runAt: input.runAt ?? new Date(),
    maxAttempts,
  };
}

/**
 * Adds a job and returns its id (or, with `uniqueKey`, the id of the live job holding that key).
 * Pass the transaction client to make the job part of a transaction. The job runs no earlier than
 * the commit; call `runner.poke()` after the commit to run it promptly in this process.
 */
export async function enqueueJob(db: Db | DbTx, input: EnqueueJobInput): Promise<string> {
  const data = newJobRow(input);
  if (input.uniqueKey === undefined) {
    await db.job.create({ data, select: { id: true } });
    return data.id;
  }
  // A single INSERT … ON CONFLICT ("uniqueKey") DO UPDATE on both databases (Prisma uses the native
  // upsert when the update is non-empty): no race between concurrent enqueuers and no unique
  // violation, which on PostgreSQL would abort the caller's transaction. The no-op update only
  // touches updatedAt.
  const row = await db.job.upsert({
    where: { uniqueKey: input.uniqueKey },
    create: { ...data, uniqueKey: input.uniqueKey },
    update: { uniqueKey: input.uniqueKey },
    select: { id: true },
  });
  return row.id;
}

/**
 * Deletes DONE jobs (and DEAD ones with `includeDead`) last updated before `olderThan`, in chunks
 * so no single statement holds the table for long. Returns the number deleted.
 */
export async function purgeFinishedJobs(db: Db, olderThan: Date, options: { includeDead?: boolean; chunkSize?: number } = {}): Promise<number> {
  const statuses: JobStatus[] = options.includeDead ? ["DONE", "DEAD"] : ["DONE"];
  const chunkSize = options.chunkSize ?? 1_000;
  let deleted = 0;
  for (;;) {
    const ids = await db.job.findMany({
      where: { status: { in: statuses }, updatedAt: { lt: olderThan } },
      select: { id: true },
      take: chunkSize,
    });
    if (ids.length === 0) return deleted;
    const res = await db.job.deleteMany({
      where: { id: { in: ids.map((r) => r.id) }, status: { in: statuses } },
    });
    deleted += res.count;
    if (ids.length < chunkSize) return deleted;
  }
}

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

export interface JobTypeOptions {
  /** Delay before retrying a failed attempt (default: exponential from 1 s, capped at 1 h, jittered). */
  backoff?: Backoff;
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
   * How long a claim holds a job; renewed every leaseMs/3 while the handler runs (default 30 s).
   * A dead worker's job is taken over once the lease ends (plus up to min(leaseMs/2, 5 s)). Leases
   * use each instance's clock: keep clocks in sync (NTP) to well under leaseMs.
   */
  leaseMs?: number;
  /** Candidate rows read per claim cycle (default 10). */
  batchSize?: number;
  /** Handlers running at once in this runner (default 4). */
  concurrency?: number;
  /** How long `stop()` waits for running handlers by default (default 10 s). */
  stopTimeoutMs?: number;
  logger?: JobLogger;
}

interface Registration {
  handler: JobHandler<unknown>;
  backoff: Backoff;
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
  /** `lockedBy` written by this claim: unique per claim, so outcomes apply only to this claim. */
  leaseToken: string;
  controller: AbortController;
  heartbeat: NodeJS.Timeout | undefined;
  /** Resolves when the handler has finished and its outcome is recorded (never rejects). */
  done: Promise<void>;
}

const CANDIDATE_SELECT = {
  id: true,
  type: true,
  payload: true,
  attempts: true,
  maxAttempts: true,
  runAt: true,
  createdAt: true,
} as const;

/** Where a job is claimable at `now`: due and queued, or running under an expired lease. */
function claimableWhere(now: Date) {
  return {
    OR: [
      { status: "QUEUED", runAt: { lte: now } },
      { status: "RUNNING", lockedUntil: { lt: now } },
    ],
  };
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
 * up at once. Handlers must be idempotent (at-least-once delivery, see the module comment).
 */
export class JobRunner {
  readonly workerId: string;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly stopTimeoutMs: number;
  private readonly log: JobLogger;
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
    this.leaseMs = options.leaseMs ?? 30_000;
    this.batchSize = options.batchSize ?? 10;
    this.concurrency = options.concurrency ?? 4;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
    this.log = options.logger ?? defaultLogger;
    this.expiredLeaseCheckMs = Math.min(this.leaseMs / 2, 5_000);
    if (this.leaseMs < 30) throw new Error("JobRunner: leaseMs must be at least 30");
    if (this.concurrency < 1 || this.batchSize < 1) throw new Error("JobRunner: concurrency and batchSize must be ≥ 1");
  }

  /** Adds the handler for a job type. The payload type is not checked: validate it in the handler. */
  register<P = unknown>(type: string, handler: JobHandler<P>, options: JobTypeOptions = {}): this {
    if (this.handlers.has(type)) throw new Error(`JobRunner: a handler for "${type}" is already registered`);
    this.handlers.set(type, { handler: handler as JobHandler<unknown>, backoff: options.backoff ?? defaultBackoff });
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

  /** Claims due jobs one conditional update at a time and starts their handlers. */
  private async claimAndStart(options: { checkExpiredLeases?: boolean } = {}): Promise<Promise<void>[]> {
    const types = [...this.handlers.keys()];
    const want = Math.min(this.batchSize, this.concurrency - this.active.size);
    if (types.length === 0 || want <= 0 || this.stopping) return [];
    const now = new Date();
    // Two simple queries rather than one OR: each is a short index range scan, while the OR
    // sorts every due row when a backlog builds up.
    const candidates = shuffle(
      await this.db.job.findMany({
        where: { type: { in: types }, status: "QUEUED", runAt: { lte: now } },
        orderBy: { runAt: "asc" },
        take: this.batchSize,
        select: CANDIDATE_SELECT,
      }),
    );
    // Expired leases are rare (a worker died), so they are looked for less often than due jobs.
    if (options.checkExpiredLeases || now.getTime() - this.lastExpiredLeaseCheck >= this.expiredLeaseCheckMs) {
      this.lastExpiredLeaseCheck = now.getTime();
      const expired = await this.db.job.findMany({
        where: { type: { in: types }, status: "RUNNING", lockedUntil: { lt: now } },
        take: this.batchSize,
        select: CANDIDATE_SELECT,
      });
      candidates.unshift(...expired);
    }
    const runs: Promise<void>[] = [];
    for (const candidate of candidates) {
      if (runs.length >= want || this.stopping) break;
      const leaseToken = `${this.workerId}/${randomToken(8)}`;
      const claimedAt = new Date();
      const { count } = await this.db.job.updateMany({
        // `attempts` pins the row version we read, so the attempt number we report is exact.
        where: { id: candidate.id, attempts: candidate.attempts, ...claimableWhere(claimedAt) },
        data: {
          status: "RUNNING",
          lockedBy: leaseToken,
          lockedUntil: new Date(claimedAt.getTime() + this.leaseMs),
          attempts: { increment: 1 },
        },
      });
      if (count !== 1) continue; // another runner won it
      runs.push(this.begin({ ...candidate, attempts: candidate.attempts + 1 }, leaseToken, claimedAt));
    }
    return runs;
  }

  private begin(job: Candidate, leaseToken: string, claimedAt: Date): Promise<void> {
    const run: ActiveRun = {
      job,
      leaseToken,
      controller: new AbortController(),
      heartbeat: undefined,
      done: Promise.resolve(),
    };
    this.active.set(leaseToken, run);
    run.done = this.execute(run, claimedAt.getTime() + this.leaseMs).finally(() => {
      this.release(run);
      this.active.delete(leaseToken);
      this.poke(); // a slot is free
    });
    return run.done;
  }

  /** Stops the heartbeat and, with a reason, tells the handler it no longer holds the job. */
  private release(run: ActiveRun, reason?: Error): void {
    if (run.heartbeat) clearInterval(run.heartbeat);
    run.heartbeat = undefined;
    if (reason && !run.controller.signal.aborted) run.controller.abort(reason);
  }

  private async execute(run: ActiveRun, initialLeaseEnd: number): Promise<void> {
    const { job } = run;
    const registration = this.handlers.get(job.type)!;

    // The previous holder's lease ran out during the final attempt (the worker died or hung).
    if (job.attempts > job.maxAttempts) {
      await this.finish(run, {
        status: "DEAD",
        lastError: "lease expired during the final attempt (worker lost)",
        uniqueKey: null,
      });
      return;
    }

    let payload: unknown;
    try {
      payload = JSON.parse(job.payload);
    } catch {
      await this.finish(run, { status: "DEAD", lastError: "payload is not valid JSON", uniqueKey: null });
      return;
    }

    this.startHeartbeat(run, initialLeaseEnd);
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

  /** Renews the lease every leaseMs/3; a renewal that finds the job taken aborts the handler. */
  private startHeartbeat(run: ActiveRun, initialLeaseEnd: number): void {
    let leaseEnd = initialLeaseEnd;
    let inFlight = false;
    const beat = async () => {
      if (inFlight || run.controller.signal.aborted) return;
      inFlight = true;
      try {
        const nextEnd = Date.now() + this.leaseMs;
        const { count } = await this.db.job.updateMany({
          where: { id: run.job.id, lockedBy: run.leaseToken, status: "RUNNING" },
          data: { lockedUntil: new Date(nextEnd) },
        });
        if (!run.heartbeat) return; // finished meanwhile
        if (count === 1) {
          leaseEnd = nextEnd;
        } else {
          this.log.warn("job lease lost", { jobId: run.job.id, type: run.job.type, workerId: this.workerId });
          this.release(run, new Error("job lease lost"));
        }
      } catch (err) {
        this.log.warn("job lease renewal failed", { jobId: run.job.id, workerId: this.workerId, err });
        if (Date.now() >= leaseEnd) this.release(run, new Error("job lease expired"));
      } finally {
        inFlight = false;
      }
    };
    run.heartbeat = setInterval(() => void beat(), Math.max(10, Math.floor(this.leaseMs / 3)));
    run.heartbeat.unref();
  }

  /**
   * Records an outcome if this claim still holds the job. A few quick retries ride out a brief
   * database hiccup; if they all fail the job stays RUNNING and is run again after its lease.
   */
  private async finish(
    run: ActiveRun,
    data: {
      status: JobStatus;
      lastError?: string;
      runAt?: Date;
      uniqueKey?: null;
      attempts?: { decrement: number };
    },
  ): Promise<void> {
    const fields = { jobId: run.job.id, type: run.job.type, attempts: run.job.attempts, workerId: this.workerId };
    for (let attempt = 1; ; attempt++) {
      try {
        const { count } = await this.db.job.updateMany({
          where: { id: run.job.id, lockedBy: run.leaseToken, status: "RUNNING" },
          data: { ...data, lockedBy: null, lockedUntil: null },
        });
        if (count !== 1) {
          this.log.warn("job outcome discarded: lease lost to another worker", { ...fields, outcome: data.status });
        } else if (data.status === "DEAD") {
          this.log.error("job dead", { ...fields, lastError: data.lastError });
        } else if (data.lastError) {
          this.log.warn("job attempt failed; retrying", { ...fields, runAt: data.runAt, lastError: data.lastError });
        }
        return;
      } catch (err) {
        if (attempt >= 3) {
          this.log.error("job outcome not recorded; the job will run again after its lease", { ...fields, outcome: data.status, err });
          return;
        }
        await delay(100 * attempt);
      }
    }
  }
}
