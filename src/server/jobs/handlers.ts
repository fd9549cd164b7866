import type { AppServices } from "@/server/services";
import { JobRunner } from "@/server/jobs/queue";
import { completeAttempt, expirePayment, timeoutAttempt, type AttemptResult } from "@/server/services/payments/lifecycle";
import { PAYMENT_JOBS as JOBS } from "@/server/services/payments/jobs";
import { BATCH_WORK_JOB, failBatch, workBatch } from "@/server/services/batches/batches";
import { giveUpRefund, processRefund, REFUND_JOB } from "@/server/services/refunds/refunds";
import { attemptDelivery } from "@/server/services/webhooks/deliver";
import { DELIVER_JOB } from "@/server/services/webhooks/events";

/** The app's background work, all on the durable queue: expiry, attempt timeouts, processor results, refunds, webhooks, batches. */
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
    await completeAttempt(db, attemptId, result as AttemptResult, services.paymentProcessors);
  });
  runner.register<{ refundId: string }>(REFUND_JOB, async ({ refundId }, job) => {
    try {
      await processRefund(db, services.paymentProcessors, refundId);
    } catch (err) {
      if (job.attempts >= job.maxAttempts) await giveUpRefund(db, refundId).catch(() => undefined);
      throw err;
    }
  });
  runner.register<{ deliveryId: string }>(DELIVER_JOB, async ({ deliveryId }) => {
    const next = await attemptDelivery(db, deliveryId, { allowLoopbackInSandbox: config.webhookSandboxAllowLoopback });
    return next ? { retryAt: next } : undefined;
  });
  return runner;
}

/**
 * Batches on their own runner: their jobs hold a slot for a slice at a time, and however many
 * batches wait, payment expiry and webhook deliveries keep the main runner's slots.
 */
export function createBatchRunner(services: AppServices): JobRunner {
  const { db, config } = services;
  const deps = {
    db,
    store: services.batchStore,
    providers: services.providers,
    baseUrl: config.baseUrl,
    retryBudgetMs: config.batchRetryBudgetMs,
    leaseMs: config.jobLeaseMs,
  };
  const runner = new JobRunner(db, { pollMs: 250, leaseMs: config.jobLeaseMs, concurrency: 3 });
  runner.register<{ batchId: string }>(BATCH_WORK_JOB, async ({ batchId }, job) => {
    try {
      const next = await workBatch(deps, batchId, job.signal);
      return next ? { retryAt: next } : undefined;
    } catch (err) {
      if (job.attempts >= job.maxAttempts) await failBatch(deps, batchId).catch(() => undefined);
      throw err;
    }
  });
  return runner;
}
