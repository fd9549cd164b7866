/**
 * Recurring tasks (retention purges, sweeps) as jobs: one run per period across every instance on
 * the database, instead of a timer in each.
 *
 * Each period has one job row keyed by the task's name and the period's start (`Job.periodKey`,
 * unique and kept after the run), so however many instances schedule a period, one row exists
 * and one runner claims it. A run books the next period's row before it works, so the chain goes
 * on if the work fails; periods missed while no instance ran are skipped, not caught up. Each
 * instance books the next period at start-up, which also mends a broken chain.
 */
import type { Db } from "@/server/db/client";
import { defineJob, type JobDefinition, type JobDeps } from "./define";

export interface RecurringSpec {
  periodMs: number;
  /**
   * Each instance's start also asks for a run this long after it, so a fresh start does not wait
   * out the period (instances starting together share that run). Default: none.
   */
  runAfterStartMs?: number;
  /** The work; `periodStart` is null for a start-up run. */
  run: (deps: JobDeps, periodStart: Date | null) => Promise<void>;
}

/** A period run names its period; a start-up run has none. */
export type RecurringPayload = { periodStart: string | null };

export interface RecurringJob extends JobDefinition<RecurringPayload> {
  readonly periodMs: number;
  /** Books the next period's run (and the start-up run, for a task that has one). */
  schedule(db: Db, now?: Date): Promise<void>;
}

/** The start of the period after the one holding `at`: periods are aligned to the epoch. */
function nextPeriodStart(at: number, periodMs: number): number {
  return (Math.floor(at / periodMs) + 1) * periodMs;
}

export function defineRecurringJob(type: string, spec: RecurringSpec): RecurringJob {
  if (!Number.isInteger(spec.periodMs) || spec.periodMs < 1) throw new Error(`${type}: periodMs must be a positive integer`);
  const bookPeriod = (db: Db, start: number) => {
    const periodStart = new Date(start).toISOString();
    return job.enqueue(db, { periodStart }, { runAt: new Date(start), periodKey: `${type}@${periodStart}` });
  };
  const job = defineJob<RecurringPayload>(type, {
    handler: async ({ periodStart }, _job, deps) => {
      // After the period being run (it may run late), never before: two runs of one chain book the same row.
      if (periodStart !== null) await bookPeriod(deps.services.db, nextPeriodStart(Math.max(Date.now(), Date.parse(periodStart)), spec.periodMs));
      await spec.run(deps, periodStart === null ? null : new Date(periodStart));
    },
  });
  return {
    ...job,
    periodMs: spec.periodMs,
    async schedule(db, now = new Date()) {
      await bookPeriod(db, nextPeriodStart(now.getTime(), spec.periodMs));
      if (spec.runAfterStartMs !== undefined) {
        await job.enqueue(db, { periodStart: null }, { runAt: new Date(now.getTime() + spec.runAfterStartMs), uniqueKey: `${type}@start` });
      }
    },
  };
}
