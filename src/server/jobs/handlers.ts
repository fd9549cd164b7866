import type { AppServices } from "@/server/services";
import { JobRunner } from "@/server/jobs/queue";
import { completeAttempt, expirePayment, timeoutAttempt, type AttemptResult } from "@/server/services/payments/lifecycle";
import { PAYMENT_JOBS as JOBS } from "@/server/services/payments/jobs";
import { BATCH_WORK_JOB, workBatch } from "@/server/services/batches/batches";
import { attemptDelivery } from "@/server/services/webhooks/deliver";
import { DELIVER_JOB } from "@/server/services/webhooks/events";

/** The app's background work, all on the durable queue: expiry, attempt timeouts, processor results, webhooks, batches. */
export function createJobRunner(services: AppServices): JobRunner {
  const { db, config } = services;
  const runner = new JobRunner(db, { pollMs: 250, leaseMs: config.jobLeaseMs });
  runner.register<{ paymentId: string }>(JOBS.expire, async ({ paymentId }) => {
    await expirePayment(db, paymentId);
  });
  runner.register<{ attemptId: string }>(JOBS.attemptTimeout, async ({ attemptId }) => {
    await timeoutAttempt(db, attemptId);
  });
  runner.register<{ attemptId: string } & AttemptResult>(JOBS.processorResult, async ({ attemptId, ...result }) => {
    await completeAttempt(db, attemptId, result as AttemptResult);
  });
  runner.register<{ deliveryId: string }>(DELIVER_JOB, async ({ deliveryId }) => {
    const next = await attemptDelivery(db, deliveryId, { allowLoopbackInSandbox: config.webhookSandboxAllowLoopback });
    return next ? { retryAt: next } : undefined;
  });
  runner.register<{ batchId: string }>(BATCH_WORK_JOB, async ({ batchId }, job) => {
    const next = await workBatch(
      {
        db,
        store: services.batchStore,
        providers: services.providers,
        baseUrl: config.baseUrl,
        retryBudgetMs: config.batchRetryBudgetMs,
        leaseMs: config.jobLeaseMs,
      },
      batchId,
      job.signal,
    );
    return next ? { retryAt: next } : undefined;
  });
  return runner;
}
