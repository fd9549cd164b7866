import type { AppServices } from "@/server/services";
import { JobRunner } from "@/server/jobs/queue";
import { completeAttempt, expirePayment, timeoutAttempt, type AttemptResult } from "@/server/services/payments/lifecycle";
import { PAYMENT_JOBS as JOBS } from "@/server/services/payments/jobs";
import { BATCH_WORK_JOB, failBatch, workBatch } from "@/server/services/batches/batches";
import { giveUpRefund, processRefund, REFUND_JOB } from "@/server/services/refunds/refunds";
import { attemptDelivery } from "@/server/services/webhooks/deliver";
import { DELIVER_JOB } from "@/server/services/webhooks/events";
import { DeliverySlots } from "@/server/services/webhooks/slots";

/** Webhook deliveries running at once per instance; each holds its slot at most about 5 s. */
export const DELIVERY_WORKERS = 8;
/** Deliveries to one endpoint (or one URL without an endpoint) running at once per instance. */
export const DELIVERIES_PER_ENDPOINT = 2;
/** One merchant's share of the delivery workers. */
export const DELIVERIES_PER_MERCHANT = DELIVERY_WORKERS / 2;

/** The app's background work on the durable queue: expiry, attempt timeouts, processor results, refunds (webhooks and batches have runners of their own). */
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
  return runner;
}

/**
 * Webhook deliveries on their own runner, so payment expiry, attempt timeouts and refunds never wait
 * behind a slow receiver. Within it, one endpoint gets at most two workers and one merchant half of
 * them; a delivery that finds its share taken is rescheduled (not counted as an attempt) instead of
 * holding a worker.
 */
export function createDeliveryRunner(services: AppServices): JobRunner {
  const { db, config } = services;
  const slots = new DeliverySlots({ perDestination: DELIVERIES_PER_ENDPOINT, perMerchant: DELIVERIES_PER_MERCHANT });
  const runner = new JobRunner(db, { pollMs: 250, leaseMs: config.jobLeaseMs, concurrency: DELIVERY_WORKERS });
  runner.register<{ deliveryId: string }>(DELIVER_JOB, async ({ deliveryId }) => {
    const next = await attemptDelivery(db, deliveryId, { allowLoopbackInSandbox: config.webhookSandboxAllowLoopback, slots });
    return next ? { retryAt: next } : undefined;
  });
  return runner;
}

/**
 * Batches on their own runner: their jobs hold a slot for a slice at a time, and however many
 * batches wait, payment expiry and refunds keep the main runner's slots (and deliveries theirs).
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
