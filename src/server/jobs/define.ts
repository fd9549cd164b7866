/**
 * A typed job: one object names the job, its payload's schema, its lane and its retry policy, and
 * enqueues it with a checked payload. Every job of the app is declared in ./registry.ts; services
 * enqueue through the declarations found there. What a job does is bound apart, above the services
 * (src/server/job-handlers), so the services that enqueue a job never import the code that runs it.
 */
import type { z } from "zod";
import type { Db, DbTx } from "@/server/db/client";
import type { Backoff } from "./policy";
import { enqueueJob, newJobRow, type JobStatus } from "./queue";
import { wakeLane, type JobLane } from "./wake";

export interface JobSpec<S extends z.ZodType> {
  /** What a payload holds: checked when the job is claimed, so a handler is given only what fits. */
  payload: S;
  /** Default "main". */
  lane?: JobLane;
  /** The record the payload is about, stored as the job's subjectId so that record's jobs can be found. */
  subject?: (payload: z.output<S>) => string;
  /** Failed or lost attempts before the job is DEAD (default 10). */
  maxAttempts?: number;
  backoff?: Backoff;
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
  /** The payload's schema; the runner checks each claimed job's payload against it. */
  readonly payload: z.ZodType<P>;
  /** Delay before retrying a failed attempt (undefined: the runner's default). */
  readonly backoff: Backoff | undefined;
  /** Adds the job (in the caller's transaction when given one) and returns its id. */
  enqueue(db: Db | DbTx, payload: P, options?: EnqueueOptions): Promise<string>;
  /** The job's row, for a caller that inserts it with other rows in one write (createMany, the bulk inserter). */
  row(payload: P, options?: Pick<EnqueueOptions, "runAt" | "maxAttempts">): ReturnType<typeof newJobRow>;
  /** Jobs of this type about `subjectId` that are still waiting or running. */
  countLive(db: Db | DbTx, subjectId: string): Promise<number>;
  /** After the commit that enqueued jobs of this type: this process's runners of its lane claim them now. */
  wake(): void;
}

const LIVE: JobStatus[] = ["QUEUED", "RUNNING"];

export function defineJob<S extends z.ZodType>(type: string, spec: JobSpec<S>): JobDefinition<z.output<S>> {
  type P = z.output<S>;
  const base = (payload: P, options: Pick<EnqueueOptions, "runAt" | "maxAttempts">) => ({
    type,
    payload,
    runAt: options.runAt,
    maxAttempts: options.maxAttempts ?? spec.maxAttempts,
    subjectId: spec.subject?.(payload),
  });
  const lane = spec.lane ?? "main";
  return {
    type,
    lane,
    payload: spec.payload as z.ZodType<P>,
    backoff: spec.backoff,
    enqueue: (db, payload, options = {}) => enqueueJob(db, { ...base(payload, options), uniqueKey: options.uniqueKey, periodKey: options.periodKey }),
    row: (payload, options = {}) => newJobRow(base(payload, options)),
    countLive: (db, subjectId) => db.job.count({ where: { type, subjectId, status: { in: LIVE } } }),
    wake: () => wakeLane(lane),
  };
}
