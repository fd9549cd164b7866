/**
 * A durable job queue on the `Job` table, shared by every app instance that uses the database.
 *
 * - `enqueueJob` writes a row (inside the caller's transaction when given one, so a state change
 *   and its follow-up work commit or roll back together). The app's jobs are typed definitions
 *   (./define.ts), all listed in ./registry.ts; they enqueue through here.
 * - `JobRunner` (./runner.ts) claims due jobs of the types it knows with a lease (./lease.ts), runs
 *   their handlers and records the outcome.
 *
 * Delivery is at-least-once: a handler may run again for the same job (its worker died or lost the
 * lease before recording the outcome), so handlers must be idempotent. A job that reached DONE is
 * never run again.
 *
 * Job states: QUEUED (waiting for runAt) → RUNNING (leased) → DONE, or back to QUEUED for a retry,
 * or DEAD once its attempts are used up.
 */
import type { Db, DbTx } from "@/server/db/client";
import { newId } from "@/server/lib/ids";

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
  /**
   * A key held for good: once a job with it exists, enqueueing it again returns that job's id
   * whatever its state, so it runs at most once. A recurring task's name and period start.
   */
  periodKey?: string;
  /** The record the job is about (a refund's id…), so that record's live jobs can be found. */
  subjectId?: string;
}

/**
 * The row for a job without a uniqueKey, for callers that write it in a batch transaction
 * (`db.$transaction([..., db.job.create({ data: newJobRow(...) })])`), the fastest way to make
 * a state change and its follow-up job commit together.
 */
export function newJobRow(input: Omit<EnqueueJobInput, "uniqueKey" | "periodKey">) {
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
    subjectId: input.subjectId ?? null,
  };
}

/**
 * Adds a job and returns its id (or, with `uniqueKey`, the id of the live job holding that key;
 * with `periodKey`, of the job ever made with that key).
 * Pass the transaction client to make the job part of a transaction. The job runs no earlier than
 * the commit; call `runner.poke()` after the commit to run it promptly in this process.
 */
export async function enqueueJob(db: Db | DbTx, input: EnqueueJobInput): Promise<string> {
  const data = newJobRow(input);
  if (input.uniqueKey !== undefined && input.periodKey !== undefined) throw new Error("enqueueJob: give uniqueKey or periodKey, not both");
  // A single INSERT … ON CONFLICT (key) DO UPDATE on both databases (Prisma uses the native upsert
  // when the update is non-empty): no race between concurrent enqueuers and no unique violation,
  // which on PostgreSQL would abort the caller's transaction. The no-op update only touches updatedAt.
  if (input.uniqueKey !== undefined) {
    const { uniqueKey } = input;
    return (await db.job.upsert({ where: { uniqueKey }, create: { ...data, uniqueKey }, update: { uniqueKey }, select: { id: true } })).id;
  }
  if (input.periodKey !== undefined) {
    const { periodKey } = input;
    return (await db.job.upsert({ where: { periodKey }, create: { ...data, periodKey }, update: { periodKey }, select: { id: true } })).id;
  }
  await db.job.create({ data, select: { id: true } });
  return data.id;
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
