import type { JobLane } from "@/server/jobs/wake";
import { ALL_JOBS, RECURRING_JOBS } from "@/server/jobs/registry";
import { JobRunner, type JobRunnerOptions } from "@/server/jobs/runner";
import { wakeOnEnqueue } from "@/server/jobs/wake";
import type { AppServices } from "@/server/services";
import { WORKERS_PER_BATCH } from "@/server/services/batches/batches";
import { DeliverySlots } from "@/server/services/webhooks/slots";
import type { BoundJob, JobDeps } from "./bind";
import { JOB_HANDLERS } from "./handlers";

/** Webhook deliveries running at once per instance; each holds its slot at most about 5 s. */
export const DELIVERY_WORKERS = 8;
/** Deliveries to one endpoint (or one URL without an endpoint) running at once per instance. */
export const DELIVERIES_PER_ENDPOINT = 2;
/** One merchant's share of the delivery workers. */
export const DELIVERIES_PER_MERCHANT = DELIVERY_WORKERS / 2;

/**
 * One runner per lane, so payment expiry, attempt timeouts, refunds and maintenance never wait
 * behind a slow webhook receiver or a big batch: batch jobs hold a slot for a slice at a time,
 * however many batches wait.
 */
const LANES: Record<JobLane, Pick<JobRunnerOptions, "concurrency">> = {
  main: {},
  deliveries: { concurrency: DELIVERY_WORKERS },
  // One slot more than a batch's own workers: a batch never takes them all, so another merchant's starts at once.
  batches: { concurrency: WORKERS_PER_BATCH + 1 },
};

/** The handlers, checked against the registry: every declared job has one, and only declared jobs do. */
function handlersOfRegistry(handlers: BoundJob[]): BoundJob[] {
  const declared = new Set<string>(ALL_JOBS.map((job) => job.type));
  const bound = new Set(handlers.map(({ job }) => job.type));
  for (const type of declared) if (!bound.has(type)) throw new Error(`The job ${type} is declared but has no handler.`);
  for (const { job } of handlers) if (!declared.has(job.type)) throw new Error(`The job ${job.type} has a handler but is not in the registry.`);
  if (bound.size !== handlers.length) throw new Error("A job has two handlers.");
  return handlers;
}

/** This instance's runners for every job in the registry (not started). */
export function createJobRunners(services: AppServices, handlers: BoundJob[] = JOB_HANDLERS): JobRunner[] {
  const bound = handlersOfRegistry(handlers);
  const deps: JobDeps = {
    services,
    deliverySlots: new DeliverySlots({ perDestination: DELIVERIES_PER_ENDPOINT, perMerchant: DELIVERIES_PER_MERCHANT }),
  };
  // Batches are worked here: their early passes started here will be taken.
  services.batchChunkThread.early.enable();
  return (Object.keys(LANES) as JobLane[]).map((lane) => {
    const runner = new JobRunner(services.db, { pollMs: 250, leaseMs: services.config.jobLeaseMs, writer: services.atomicWriter, ...LANES[lane] });
    for (const handler of bound) if (handler.job.lane === lane) handler.register(runner, deps);
    wakeOnEnqueue(lane, runner);
    return runner;
  });
}

/** Books the next run of every recurring job (and the start-up runs); idempotent across instances. */
export async function scheduleRecurringJobs(services: AppServices): Promise<void> {
  for (const job of RECURRING_JOBS) await job.schedule(services.db);
}
