/**
 * Every job of the app: its type, its payload's schema, its lane and its retry policy. Services
 * enqueue through these declarations (`refundJob.enqueue(tx, { refundId })`); what each job does
 * is bound in src/server/job-handlers, above the services, and run by the runners created there.
 */
import { z } from "zod";
import { defineJob } from "./define";
import { defineRecurringJob } from "./recurring";

const id = z.string().min(1);

// Payments

/** An open payment that was never paid expires at its expiresAt. */
export const paymentExpiryJob = defineJob("payment.expire", {
  payload: z.object({ paymentId: id }),
  subject: (p) => p.paymentId,
});

/** An attempt the processor never answered fails once its time is up. */
export const attemptTimeoutJob = defineJob("payment.attempt_timeout", {
  payload: z.object({ attemptId: id }),
  subject: (p) => p.attemptId,
});

/** A processor's result that arrives later (the sandbox's delayed outcomes). */
export const processorResultJob = defineJob("payment.processor_result", {
  payload: z.discriminatedUnion("outcome", [
    z.object({ attemptId: id, outcome: z.literal("SUCCESS"), bankReference: z.string().optional() }),
    z.object({ attemptId: id, outcome: z.literal("FAILED"), errorCode: z.string(), errorMessage: z.string() }),
  ]),
  subject: (p) => p.attemptId,
});

/** Asks the processor about a live attempt still pending, in case its webhook was lost. */
export const attemptReconcileJob = defineJob("payment.reconcile", {
  payload: z.object({ attemptId: id }),
  subject: (p) => p.attemptId,
});

/** A live processor's verified webhook (recorded before its answer): moves its attempt or refund through the state machines. */
export const processorWebhookJob = defineJob("payment.processor_webhook", {
  payload: z.object({ webhookId: id }),
  subject: (p) => p.webhookId,
});

// Refunds

/** Asks the mode's processor for a refund until it answers; a merchant refund that never gets an answer fails. */
export const refundJob = defineJob("refund.process", {
  payload: z.object({ refundId: id }),
  subject: (p) => p.refundId,
});

// Webhooks

/**
 * One webhook delivery. Within the deliveries runner, one endpoint gets at most two workers and
 * one merchant half of them; a delivery that finds its share taken is rescheduled (not counted as
 * an attempt) instead of holding a worker.
 */
export const webhookDeliveryJob = defineJob("webhook.deliver", {
  payload: z.object({ deliveryId: id }),
  lane: "deliveries",
  subject: (p) => p.deliveryId,
});

// Batches

/** Works a batch's chunks a slice at a time; a batch whose workers give up ends FAILED. */
export const batchWorkJob = defineJob("batch.work", {
  payload: z.object({ batchId: id }),
  lane: "batches",
  subject: (p) => p.batchId,
  maxAttempts: 20,
});

// Maintenance, once per period across all instances

/** Retention purges every 6 hours, and 10 s after an instance starts. */
export const retentionJob = defineRecurringJob("maintenance.retention", { periodMs: 6 * 60 * 60 * 1000, runAfterStartMs: 10_000 });

/** Every minute: wallet holds and OTP claims left by a crashed call are undone (they count as stale after minutes), lost refund jobs requeued. */
export const sweepJob = defineRecurringJob("maintenance.sweep", { periodMs: 60 * 1000 });

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
