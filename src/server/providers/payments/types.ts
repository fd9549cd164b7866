/** What the customer chose on the hosted page. Card number and CVV never go further than the processor call. */
export type PaymentMethodInput =
  | { method: "UPI"; flow: "collect"; vpa: string }
  | { method: "UPI"; flow: "qr" | "intent" }
  | { method: "CARD"; number: string; expiryMonth: number; expiryYear: number; cvv: string; name?: string | null }
  | { method: "NETBANKING"; bank: string };

/** How an attempt resolves: now, after a delay (processor callback), or by the customer's action (simulator, bank page). */
export type AttemptPlan =
  | { kind: "succeed"; afterMs: number }
  | { kind: "fail"; afterMs: number; errorCode: string; errorMessage: string }
  | { kind: "await-customer" }
  | { kind: "await-processor" };

export interface AttemptStart {
  plan: AttemptPlan;
  /** Stored on the attempt: only what may be kept (card network and last four, VPA, bank). */
  vpa?: string | null;
  cardNetwork?: string | null;
  cardLast4?: string | null;
  bank?: string | null;
}

/** What the processor did with a refund: money sent back, or refused with a reason. */
export type RefundOutcome = { outcome: "PROCESSED" } | { outcome: "FAILED"; failureReason: string };

export interface PaymentProcessor {
  /** False until a live processor is configured: live payments and refunds then answer 503 SERVICE_UNAVAILABLE. */
  readonly configured: boolean;
  startAttempt(payment: { id: string; amountPaise: number }, input: PaymentMethodInput): Promise<AttemptStart>;
  /** Sends money back for a refund. Called by the durable refund job, so at least once per refund. */
  refund(refund: { id: string; paymentId: string; attemptId: string | null; amountPaise: number; reason: string | null }): Promise<RefundOutcome>;
  /** The customer left a pending attempt: withdraw a collect request where the network allows. Best effort. */
  cancelAttempt(attempt: { id: string; paymentId: string; method: string }): Promise<void>;
}
