/**
 * What a declared job does: its handler, bound to its declaration (src/server/jobs/registry.ts)
 * and added to the runner of its lane. Handlers call into the services; the services enqueue
 * through the declarations alone, so the two never import each other.
 */
import type { JobDefinition } from "@/server/jobs/define";
import type { RecurringJob } from "@/server/jobs/recurring";
import { PermanentJobError, type JobResult, type JobRunner, type RunningJob } from "@/server/jobs/runner";
import type { AppServices } from "@/server/services";
import type { DeliverySlots } from "@/server/services/webhooks/slots";

/** What a handler is given besides its payload: the app's services and this instance's shared state. */
export interface JobDeps {
  services: AppServices;
  /** Webhook deliveries running per endpoint and per merchant in this instance. */
  deliverySlots: DeliverySlots;
}

export interface JobHandling<P> {
  /** Runs the job with its checked payload; must be idempotent (a job may run again after its worker was lost). */
  handler: (payload: P, job: RunningJob, deps: JobDeps) => Promise<JobResult>;
  /** Called once the job fails for good (its last attempt failed, or PermanentJobError); its own errors are ignored. */
  onGiveUp?: (payload: P, deps: JobDeps) => Promise<void>;
}

/** A declared job with what it does, ready to be added to a runner. */
export interface BoundJob {
  readonly job: JobDefinition<any>;
  register(runner: JobRunner, deps: JobDeps): void;
}

export function bindJob<P>(job: JobDefinition<P>, handling: JobHandling<P>): BoundJob {
  return {
    job,
    register(runner, deps) {
      runner.register<P>(
        job.type,
        async (payload, running) => {
          try {
            return await handling.handler(payload, running, deps);
          } catch (err) {
            const givingUp = err instanceof PermanentJobError || running.attempts >= running.maxAttempts;
            if (givingUp && handling.onGiveUp) await handling.onGiveUp(payload, deps).catch(() => undefined);
            throw err;
          }
        },
        { backoff: job.backoff, payload: job.payload },
      );
    },
  };
}

/**
 * A recurring job's work: a period's run first books the next period, so the chain goes on if the
 * work fails; `periodStart` is null for a start-up run.
 */
export function bindRecurringJob(job: RecurringJob, run: (deps: JobDeps, periodStart: Date | null) => Promise<void>): BoundJob {
  return bindJob(job, {
    handler: async ({ periodStart }, _job, deps) => {
      if (periodStart !== null) await job.bookNext(deps.services.db, periodStart);
      await run(deps, periodStart === null ? null : new Date(periodStart));
    },
  });
}
