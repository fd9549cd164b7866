/** Job types of the payment lifecycle (handlers in src/server/jobs/handlers.ts). */
export const PAYMENT_JOBS = {
  expire: "payment.expire",
  attemptTimeout: "payment.attempt_timeout",
  processorResult: "payment.processor_result",
} as const;
