/**
 * Every job of the app, with its payload type, its runner and its handler. Services enqueue
 * through these definitions (`refundJob.enqueue(tx, { refundId })`); ./runners.ts runs them.
 *
 * Handlers only call into the services, and services import this file to enqueue, so nothing here
 * may use an imported service value at load time: only inside a handler.
 */
import { type AttemptResult, completeAttempt, expirePayment, timeoutAttempt } from "@/server/services/payments/lifecycle";
import { failBatch, workBatch, type BatchWorkDeps } from "@/server/services/batches/batch-worker";
import { applyProcessorWebhook } from "@/server/services/payments/processor-webhooks";
import { giveUpRefund, processRefund } from "@/server/services/refunds/refunds";
import { attemptDelivery } from "@/server/services/webhooks/deliver";
import { reconcileAttempt } from "@/server/services/payments/reconcile";
import { defineJob, type JobDeps } from "./define";
import { purgeRetainedData, sweepUnfinishedWork } from "./maintenance";
import { defineRecurringJob } from "./recurring";

// Payments

/** An open payment that was never paid expires at its expiresAt. */
export const paymentExpiryJob = defineJob<{ paymentId: string }>("payment.expire", {
  subject: (p) => p.paymentId,
  handler: async ({ paymentId }, _job, { services }) => void (await expirePayment(services.db, paymentId)),
});

/** An attempt the processor never answered fails once its time is up. */
export const attemptTimeoutJob = defineJob<{ attemptId: string }>("payment.attempt_timeout", {
  subject: (p) => p.attemptId,
  handler: async ({ attemptId }, _job, { services }) => void (await timeoutAttempt(services.db, attemptId)),
});

/** A processor's result that arrives later (the sandbox's delayed outcomes). */
export const processorResultJob = defineJob<{ attemptId: string } & AttemptResult>("payment.processor_result", {
  subject: (p) => p.attemptId,
  handler: async ({ attemptId, ...result }, _job, { services }) =>
    void (await completeAttempt(services.db, attemptId, result as AttemptResult, services.paymentProcessors)),
});

/** Asks the processor about a live attempt still pending, in case its webhook was lost. */
export const attemptReconcileJob = defineJob<{ attemptId: string }>("payment.reconcile", {
  subject: (p) => p.attemptId,
  handler: async ({ attemptId }, _job, { services }) => {
    const next = await reconcileAttempt(services.db, services.paymentProcessors, attemptId);
    return next ? { retryAt: next } : undefined;
  },
});

/** A live processor's verified webhook (recorded before its answer): moves its attempt or refund through the state machines. */
export const processorWebhookJob = defineJob<{ webhookId: string }>("payment.processor_webhook", {
  subject: (p) => p.webhookId,
  handler: async ({ webhookId }, _job, { services }) => applyProcessorWebhook(services, services.paymentProcessors, webhookId),
});

// Refunds

/** Asks the mode's processor for a refund until it answers; a merchant refund that never gets an answer fails. */
export const refundJob = defineJob<{ refundId: string }>("refund.process", {
  subject: (p) => p.refundId,
  handler: async ({ refundId }, _job, { services }) => processRefund(services.atomicWriter, services.paymentProcessors, refundId),
  onGiveUp: ({ refundId }, { services }) => giveUpRefund(services.db, services.atomicWriter, refundId),
});

// Webhooks

/**
 * One webhook delivery. Within the deliveries runner, one endpoint gets at most two workers and
 * one merchant half of them; a delivery that finds its share taken is rescheduled (not counted as
 * an attempt) instead of holding a worker.
 */
export const webhookDeliveryJob = defineJob<{ deliveryId: string }>("webhook.deliver", {
  lane: "deliveries",
  subject: (p) => p.deliveryId,
  handler: async ({ deliveryId }, _job, { services, deliverySlots }) => {
    const next = await attemptDelivery(services.db, deliveryId, { allowLoopbackInSandbox: services.config.webhookSandboxAllowLoopback, slots: deliverySlots });
    return next ? { retryAt: next } : undefined;
  },
});

// Batches

function batchWorkDeps({ services }: JobDeps): BatchWorkDeps {
  const { db, config } = services;
  return {
    db,
    store: services.batchStore,
    providers: services.providers,
    baseUrl: config.baseUrl,
    retryBudgetMs: config.batchRetryBudgetMs,
    leaseMs: config.jobLeaseMs,
    chunkThread: services.batchChunkThread,
  };
}

/** Works a batch's chunks a slice at a time; a batch whose workers give up ends FAILED. */
export const batchWorkJob = defineJob<{ batchId: string }>("batch.work", {
  lane: "batches",
  subject: (p) => p.batchId,
  maxAttempts: 20,
  handler: async ({ batchId }, job, deps) => {
    const next = await workBatch(batchWorkDeps(deps), batchId, job.signal);
    return next ? { retryAt: next } : undefined;
  },
  onGiveUp: ({ batchId }, deps) => failBatch(batchWorkDeps(deps), batchId),
});

// Maintenance, once per period across all instances

/** Retention purges every 6 hours, and 10 s after an instance starts. */
export const retentionJob = defineRecurringJob("maintenance.retention", {
  periodMs: 6 * 60 * 60 * 1000,
  runAfterStartMs: 10_000,
  run: ({ services }) => purgeRetainedData(services),
});

/** Every minute: wallet holds and OTP claims left by a crashed call are undone (they count as stale after minutes), lost refund jobs requeued. */
export const sweepJob = defineRecurringJob("maintenance.sweep", {
  periodMs: 60 * 1000,
  run: ({ services }) => sweepUnfinishedWork(services),
});

export const ALL_JOBS = [
  paymentExpiryJob,
  attemptTimeoutJob,
  processorResultJob,
  processorWebhookJob,
  attemptReconcileJob,
  refundJob,
  webhookDeliveryJob,
  batchWorkJob,
  retentionJob,
  sweepJob,
] as const;

export const RECURRING_JOBS = [retentionJob, sweepJob] as const;
