/**
 * Recurring tasks (retention purges, sweeps) as jobs: one run per period across every instance on
 * the database, instead of a timer in each.
 *
 * Each period has one job row keyed by the task's name and the period's start (`Job.periodKey`,
 * unique and kept after the run), so however many instances schedule a period, one row exists
 * and one runner claims it. A run books the next period's row before it works, so the chain goes
 * on if the work fails; periods missed while no instance ran are skipped, not caught up. Each
 * instance books the next period at start-up, which also mends a broken chain. The work itself is
 * bound apart (src/server/job-handlers), like every job's.
 */
import { z } from "zod";
import type { Db } from "@/server/db/client";
import { defineJob, type JobDefinition } from "./define";

export interface RecurringSpec {
  periodMs: number;
  /**
   * Each instance's start also asks for a run this long after it, so a fresh start does not wait
   * out the period (instances starting together share that run). Default: none.
   */
  runAfterStartMs?: number;
}

/** A period run names its period; a start-up run has none. */
const recurringPayload = z.object({ periodStart: z.iso.datetime().nullable() });
export type RecurringPayload = z.output<typeof recurringPayload>;

export interface RecurringJob extends JobDefinition<RecurringPayload> {
  readonly periodMs: number;
  /** Books the next period's run (and the start-up run, for a task that has one). */
  schedule(db: Db, now?: Date): Promise<void>;
  /** Books the run after the period `periodStart` (at the earliest after now): the first step of a period's run. */
  bookNext(db: Db, periodStart: string): Promise<void>;
}

/** The start of the period after the one holding `at`: periods are aligned to the epoch. */
function nextPeriodStart(at: number, periodMs: number): number {
  return (Math.floor(at / periodMs) + 1) * periodMs;
}

export function defineRecurringJob(type: string, spec: RecurringSpec): RecurringJob {
  if (!Number.isInteger(spec.periodMs) || spec.periodMs < 1) throw new Error(`${type}: periodMs must be a positive integer`);
  const job = defineJob(type, { payload: recurringPayload });
  const bookPeriod = async (db: Db, start: number) => {
    const periodStart = new Date(start).toISOString();
    await job.enqueue(db, { periodStart }, { runAt: new Date(start), periodKey: `${type}@${periodStart}` });
  };
  return {
    ...job,
    periodMs: spec.periodMs,
    async schedule(db, now = new Date()) {
      await bookPeriod(db, nextPeriodStart(now.getTime(), spec.periodMs));
      if (spec.runAfterStartMs !== undefined) {
        await job.enqueue(db, { periodStart: null }, { runAt: new Date(now.getTime() + spec.runAfterStartMs), uniqueKey: `${type}@start` });
      }
    },
    // After the period being run (it may run late), never before: two runs of one chain book the same row.
    bookNext: (db, periodStart) => bookPeriod(db, nextPeriodStart(Math.max(Date.now(), Date.parse(periodStart)), spec.periodMs)),
  };
}
