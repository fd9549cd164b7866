import type { Mode } from "@/lib/mode";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { SANDBOX_BANKS } from "@/server/providers/payments/sandbox";
import type { AttemptStart, PaymentMethodInput, PaymentProcessor } from "@/server/providers/payments/types";
import { abandonAttempt, completeAttempt, mayReportLate, startAttempt } from "@/server/services/payments/lifecycle";
import { findMerchantPayment, statusView } from "@/server/services/payments/payments";

export const SIMULATE_OUTCOMES = ["SUCCESS", "FAILED", "PENDING", "ABANDONED"] as const;
export const SIMULATE_METHODS = ["upi", "card", "netbanking"] as const;

export interface SimulateInput {
  outcome: (typeof SIMULATE_OUTCOMES)[number];
  method?: (typeof SIMULATE_METHODS)[number] | null;
  attemptId?: string | null;
}

/** What a simulated attempt keeps: the sandbox fixture that gives the same outcome on the hosted page. */
const FIXTURES: Record<(typeof SIMULATE_METHODS)[number], Record<"SUCCESS" | "FAILED" | "PENDING", PaymentMethodInput>> = {
  upi: {
    SUCCESS: { method: "UPI", flow: "collect", vpa: "success@parakh" },
    FAILED: { method: "UPI", flow: "collect", vpa: "failure@parakh" },
    PENDING: { method: "UPI", flow: "collect", vpa: "pending@parakh" },
  },
  card: {
    SUCCESS: { method: "CARD", number: "4111111111111111", expiryMonth: 12, expiryYear: 2099, cvv: "123" },
    FAILED: { method: "CARD", number: "4000000000000002", expiryMonth: 12, expiryYear: 2099, cvv: "123" },
    PENDING: { method: "CARD", number: "4111111111111111", expiryMonth: 12, expiryYear: 2099, cvv: "123" },
  },
  netbanking: {
    SUCCESS: { method: "NETBANKING", bank: SANDBOX_BANKS[0] },
    FAILED: { method: "NETBANKING", bank: SANDBOX_BANKS[0] },
    PENDING: { method: "NETBANKING", bank: SANDBOX_BANKS[0] },
  },
};

/** The sandbox processor with the outcome decided by the caller instead of by the fixture. */
function scripted(base: PaymentProcessor, outcome: "SUCCESS" | "FAILED" | "PENDING", method: string): PaymentProcessor {
  return {
    ...base,
    async startAttempt(payment, input) {
      const started: AttemptStart = await base.startAttempt(payment, input);
      if (outcome === "SUCCESS") return { ...started, plan: { kind: "succeed", afterMs: 0 } };
      if (outcome === "PENDING") return { ...started, plan: { kind: "await-processor" } };
      const errorMessage = method === "card" ? "The card was declined by the issuing bank." : "The payment was declined (simulated).";
      return { ...started, plan: { kind: "fail", afterMs: 0, errorCode: method === "card" ? "CARD_DECLINED" : "PAYMENT_DECLINED", errorMessage } };
    },
  };
}

/**
 * Drives a sandbox payment without a browser: starts an attempt with an outcome, or reports a
 * (late) result for an attempt, or leaves a pending one; all through the hosted page's state machine.
 */
export async function simulatePayment(db: Db, processor: PaymentProcessor, scope: { merchantId: string; mode: Mode }, paymentId: string, input: SimulateInput) {
  // Live keys do not see this route at all.
  if (scope.mode !== "sandbox") throw new AppError("NOT_FOUND");
  const payment = await findMerchantPayment(db, scope.merchantId, scope.mode, paymentId);
  let attemptId: string;
  if (!input.attemptId) {
    if (input.outcome === "ABANDONED") {
      throw new AppError("VALIDATION_ERROR", "ABANDONED needs the attemptId of a pending attempt.", { field: "attemptId" });
    }
    const method = input.method ?? "upi";
    ({ attemptId } = await startAttempt(db, scripted(processor, input.outcome, method), payment.id, FIXTURES[method][input.outcome]));
  } else {
    const attempt = payment.attempts.find((a) => a.id === input.attemptId);
    if (!attempt) throw new AppError("ATTEMPT_NOT_FOUND", `This payment has no attempt ${input.attemptId}.`, { field: "attemptId" });
    attemptId = attempt.id;
    if (input.outcome === "PENDING")
      throw new AppError("VALIDATION_ERROR", "An existing attempt can be reported SUCCESS, FAILED or ABANDONED.", { field: "outcome" });
    if (input.outcome === "ABANDONED") {
      if (attempt.status !== "PENDING") throw new AppError("CONFLICT", `Attempt ${attempt.id} is ${attempt.status}, not PENDING.`);
      await abandonAttempt(db, processor, payment.id, { attemptId });
    } else {
      if (attempt.status !== "PENDING" && !mayReportLate(attempt))
        throw new AppError("CONFLICT", `Attempt ${attempt.id} already has its result (${attempt.status}).`);
      await completeAttempt(
        db,
        attemptId,
        input.outcome === "SUCCESS"
          ? { outcome: "SUCCESS" }
          : { outcome: "FAILED", errorCode: "PAYMENT_DECLINED", errorMessage: "The payment was declined (simulated)." },
        { sandbox: processor },
      );
    }
  }
  return { payment: statusView(await findMerchantPayment(db, scope.merchantId, scope.mode, paymentId)), attemptId };
}
