/** What the customer chose on the hosted page. Card number and CVV never go further than the processor call. */
export type PaymentMethodInput =
  | { method: "UPI"; flow: "collect"; vpa: string }
  | { method: "UPI"; flow: "qr" | "intent" }
  | { method: "CARD"; flow?: "form"; number: string; expiryMonth: number; expiryYear: number; cvv: string; name?: string | null }
  /** A live card: paid on the processor's own checkout page, so no card data at all comes here. */
  | { method: "CARD"; flow: "hosted" }
  | { method: "NETBANKING"; bank: string };

/** How an attempt resolves: now, after a delay (processor callback), or by the customer's action (simulator, bank page). */
export type AttemptPlan =
  | { kind: "succeed"; afterMs: number }
  | { kind: "fail"; afterMs: number; errorCode: string; errorMessage: string }
  | { kind: "await-customer" }
  | { kind: "await-processor" };

/** What the hosted page shows or opens next for a live attempt: the UPI intent link, the QR image, or the bank's page. */
export type AttemptNext =
  | { kind: "intent"; url: string }
  | { kind: "qr"; image: string }
  | { kind: "redirect"; url: string }
  /** The processor's own checkout for this payment session (live cards). */
  | { kind: "hosted-checkout"; sessionId: string };

export interface AttemptStart {
  plan: AttemptPlan;
  /** The processor's own id for the attempt, by which its webhooks name it. */
  processorRef?: string | null;
  next?: AttemptNext;
  /** Stored on the attempt: only what may be kept (card network and last four, VPA, bank). */
  vpa?: string | null;
  cardNetwork?: string | null;
  cardLast4?: string | null;
  bank?: string | null;
}

/** What the processor did with a refund: money sent back, or refused with a reason. */
export type RefundOutcome = { outcome: "PROCESSED" } | { outcome: "FAILED"; failureReason: string };

/** A processor's first answer to a refund: its end, or accepted and still on its way (the end comes by webhook). */
export type RefundAnswer = RefundOutcome | { outcome: "PENDING" };

/** The payment as the processor sees it: a live processor's order takes its expiry and customer. */
export interface ProcessorPayment {
  id: string;
  amountPaise: number;
  expiresAt?: Date;
  customerName?: string | null;
  customerEmail?: string | null;
  customerPhone?: string | null;
}

/** A processor's current word on one attempt. */
export type ProcessorAttemptResult =
  { result: "SUCCESS"; bankReference: string | null } | { result: "FAILED"; errorCode: string; errorMessage: string } | { result: "PENDING" };

/**
 * The processor's word on a payment as a whole, for an attempt made on its own checkout page (where
 * the customer may try several times): paid (by which of its payments), paid another amount, still
 * paying, failed (its latest payment there was declined or dropped, nothing else under way), or
 * nothing paid and nothing under way.
 */
export type ProcessorOrderResult =
  | { result: "SUCCESS"; processorRef: string; bankReference: string | null }
  | { result: "FAILED"; processorRef: string; errorCode: string; errorMessage: string }
  | { result: "PENDING" }
  | { result: "UNPAID" };

/** Which of the processor's payments of an order `checkOrder` weighs for the attempt on its own page. */
export interface ProcessorOrderQuery {
  paymentId: string;
  amountPaise: number;
  /** When the attempt started: a failed or pending payment begun before it belongs to an earlier visit. */
  startedAt: Date;
  /** The processor's ids Parakh's other attempts already account for (theirs to settle, never this attempt's). */
  known: readonly string[];
}

/** What `prepareAttempt` found or made at the processor before an attempt is claimed (a live order's payment session). */
export interface PreparedAttempt {
  sessionId: string;
}

export interface PaymentProcessor {
  /** False until a live processor is configured: live payments and refunds then answer 503 SERVICE_UNAVAILABLE. */
  readonly configured: boolean;
  /**
   * Before an attempt is claimed: what the processor needs first (a live processor's one order per
   * payment, made at the first attempt and found again on a retry). A failure here leaves the
   * payment as it was.
   */
  prepareAttempt?(payment: ProcessorPayment): Promise<PreparedAttempt>;
  startAttempt(payment: ProcessorPayment, input: PaymentMethodInput, prepared?: PreparedAttempt): Promise<AttemptStart>;
  /** Sends money back for a refund. Called by the durable refund job, so at least once per refund. */
  refund(refund: { id: string; paymentId: string; attemptId: string | null; amountPaise: number; reason: string | null }): Promise<RefundAnswer>;
  /** The customer left a pending attempt: withdraw a collect request where the network allows. Best effort. */
  cancelAttempt(attempt: { id: string; paymentId: string; method: string }): Promise<void>;
  /**
   * Reads the processor's record of one attempt now: a failure report may be older than a success
   * the processor has since recorded, so a reported failure is confirmed before it is applied.
   */
  checkAttempt?(attempt: { paymentId: string; processorRef: string; amountPaise: number }): Promise<ProcessorAttemptResult>;
  /** Reads the processor's record of a whole payment (every attempt on its own checkout page). */
  checkOrder?(query: ProcessorOrderQuery): Promise<ProcessorOrderResult>;
  /** The payment was cancelled: nothing may pay it any more (a live order is terminated where the vendor allows). Best effort. */
  closePayment?(paymentId: string): Promise<void>;
}
