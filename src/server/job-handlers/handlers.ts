/**
 * What each job of src/server/jobs/registry.ts does: one handler per declared job, each calling
 * into the services. Only the runners (./runners.ts) read this file.
 */
import {
  attemptReconcileJob,
  attemptTimeoutJob,
  batchWorkJob,
  paymentExpiryJob,
  processorResultJob,
  processorWebhookJob,
  refundJob,
  retentionJob,
  sweepJob,
  webhookDeliveryJob,
} from "@/server/jobs/registry";
import { failBatch, workBatch, type BatchWorkDeps } from "@/server/services/batches/batch-worker";
import { completeAttempt, expirePayment, timeoutAttempt } from "@/server/services/payments/lifecycle";
import { applyProcessorWebhook } from "@/server/services/payments/processor-webhooks";
import { reconcileAttempt } from "@/server/services/payments/reconcile";
import { giveUpRefund, processRefund } from "@/server/services/refunds/refunds";
import { attemptDelivery } from "@/server/services/webhooks/deliver";
import { bindJob, bindRecurringJob, type BoundJob, type JobDeps } from "./bind";
import { purgeRetainedData, sweepUnfinishedWork } from "./maintenance";

function batchWorkDeps({ services }: JobDeps): BatchWorkDeps {
  const { db, config } = services;
  return {
    db,
    store: services.batchStore,
    providers: services.providers,
    baseUrl: config.baseUrl,
    retryBudgetMs: config.batchRetryBudgetMs,
    bulkPollLimitMs: config.batchBulkPollLimitMs,
    leaseMs: config.jobLeaseMs,
    chunkThread: services.batchChunkThread,
  };
}

export const JOB_HANDLERS: BoundJob[] = [
  // Payments
  bindJob(paymentExpiryJob, {
    handler: async ({ paymentId }, _job, { services }) => void (await expirePayment(services.db, paymentId)),
  }),
  bindJob(attemptTimeoutJob, {
    handler: async ({ attemptId }, _job, { services }) => void (await timeoutAttempt(services.db, attemptId)),
  }),
  bindJob(processorResultJob, {
    handler: async ({ attemptId, ...result }, _job, { services }) => void (await completeAttempt(services.db, attemptId, result, services.paymentProcessors)),
  }),
  bindJob(attemptReconcileJob, {
    handler: async ({ attemptId }, _job, { services }) => {
      const next = await reconcileAttempt(services.db, services.paymentProcessors, attemptId);
      return next ? { retryAt: next } : undefined;
    },
  }),
  bindJob(processorWebhookJob, {
    handler: async ({ webhookId }, _job, { services }) => applyProcessorWebhook(services, services.paymentProcessors, webhookId),
  }),

  // Refunds
  bindJob(refundJob, {
    handler: async ({ refundId }, _job, { services }) => processRefund(services.atomicWriter, services.paymentProcessors, refundId),
    onGiveUp: ({ refundId }, { services }) => giveUpRefund(services.db, services.atomicWriter, refundId),
  }),

  // Webhooks
  bindJob(webhookDeliveryJob, {
    handler: async ({ deliveryId }, _job, { services, deliverySlots }) => {
      const next = await attemptDelivery(services.db, deliveryId, {
        allowLoopbackInSandbox: services.config.webhookSandboxAllowLoopback,
        slots: deliverySlots,
      });
      return next ? { retryAt: next } : undefined;
    },
  }),

  // Batches
  bindJob(batchWorkJob, {
    handler: async ({ batchId }, job, deps) => {
      const next = await workBatch(batchWorkDeps(deps), batchId, job.signal);
      return next ? { retryAt: next } : undefined;
    },
    onGiveUp: ({ batchId }, deps) => failBatch(batchWorkDeps(deps), batchId),
  }),

  // Maintenance
  bindRecurringJob(retentionJob, ({ services }) => purgeRetainedData(services)),
  bindRecurringJob(sweepJob, ({ services }) => sweepUnfinishedWork(services)),
];
