/**
 * A typed job: one object names the job, enqueues it with a checked payload and runs it. Every job
 * of the app is defined in ./registry.ts; services enqueue through the definitions found there.
 */
import type { Db, DbTx } from "@/server/db/client";
import type { AppServices } from "@/server/services";
import type { DeliverySlots } from "@/server/services/webhooks/slots";
import type { Backoff } from "./policy";
import { enqueueJob, newJobRow, type JobStatus } from "./queue";
import { PermanentJobError, type JobResult, type JobRunner, type RunningJob } from "./runner";
import { wakeLane } from "./wake";

/** What a handler is given besides its payload: the app's services and this instance's shared state. */
export interface JobDeps {
  services: AppServices;
  /** Webhook deliveries running per endpoint and per merchant in this instance. */
  deliverySlots: DeliverySlots;
}

/**
 * The runner a job runs on: webhook deliveries and batches have their own, so payment expiry,
 * attempt timeouts and refunds never wait behind a slow receiver or a big batch.
 */
export type JobLane = "main" | "deliveries" | "batches";

export interface JobSpec<P> {
  /** Default "main". */
  lane?: JobLane;
  /** The record the payload is about, stored as the job's subjectId so that record's jobs can be found. */
  subject?: (payload: P) => string;
  /** Failed or lost attempts before the job is DEAD (default 10). */
  maxAttempts?: number;
  backoff?: Backoff;
  /** Runs the job; must be idempotent (a job may run again after its worker was lost). */
  handler: (payload: P, job: RunningJob, deps: JobDeps) => Promise<JobResult>;
  /** Called once the job fails for good (its last attempt failed, or PermanentJobError); its own errors are ignored. */
  onGiveUp?: (payload: P, deps: JobDeps) => Promise<void>;
}

export interface EnqueueOptions {
  /** Earliest time to run (default: now). */
  runAt?: Date;
  maxAttempts?: number;
  /** One live job per key (see EnqueueJobInput.uniqueKey). */
  uniqueKey?: string;
  /** One job ever per key (see EnqueueJobInput.periodKey). */
  periodKey?: string;
}

export interface JobDefinition<P> {
  readonly type: string;
  readonly lane: JobLane;
  /** Adds the job (in the caller's transaction when given one) and returns its id. */
  enqueue(db: Db | DbTx, payload: P, options?: EnqueueOptions): Promise<string>;
  /** The job's row, for a caller that inserts it with other rows in one write (createMany, the bulk inserter). */
  row(payload: P, options?: Pick<EnqueueOptions, "runAt" | "maxAttempts">): ReturnType<typeof newJobRow>;
  /** Jobs of this type about `subjectId` that are still waiting or running. */
  countLive(db: Db | DbTx, subjectId: string): Promise<number>;
  /** Adds the handler to a runner. */
  register(runner: JobRunner, deps: JobDeps): void;
  /** After the commit that enqueued jobs of this type: this process's runners of its lane claim them now. */
  wake(): void;
}

const LIVE: JobStatus[] = ["QUEUED", "RUNNING"];

export function defineJob<P>(type: string, spec: JobSpec<P>): JobDefinition<P> {
  const base = (payload: P, options: Pick<EnqueueOptions, "runAt" | "maxAttempts">) => ({
    type,
    payload,
    runAt: options.runAt,
    maxAttempts: options.maxAttempts ?? spec.maxAttempts,
    subjectId: spec.subject?.(payload),
  });
  return {
    type,
    lane: spec.lane ?? "main",
    enqueue: (db, payload, options = {}) => enqueueJob(db, { ...base(payload, options), uniqueKey: options.uniqueKey, periodKey: options.periodKey }),
    row: (payload, options = {}) => newJobRow(base(payload, options)),
    countLive: (db, subjectId) => db.job.count({ where: { type, subjectId, status: { in: LIVE } } }),
    wake: () => wakeLane(spec.lane ?? "main"),
    register(runner, deps) {
      runner.register<P>(
        type,
        async (payload, job) => {
          try {
            return await spec.handler(payload, job, deps);
          } catch (err) {
            const givingUp = err instanceof PermanentJobError || job.attempts >= job.maxAttempts;
            if (givingUp && spec.onGiveUp) await spec.onGiveUp(payload, deps).catch(() => undefined);
            throw err;
          }
        },
        { backoff: spec.backoff },
      );
    },
  };
}
