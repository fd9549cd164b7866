import { AppError } from "@/server/errors";
import { cardNetwork, luhnValid, normaliseCardNumber } from "@/lib/cards";
import type { AttemptStart, PaymentMethodInput, PaymentProcessor } from "@/server/providers/payments/types";

/** How long a sandbox UPI collect stays PENDING before its scripted outcome. */
export const SANDBOX_UPI_DELAY_MS = 2500;

export const SANDBOX_BANKS = ["HDFC Bank", "ICICI Bank", "State Bank of India", "Axis Bank", "Kotak Mahindra Bank", "Punjab National Bank"] as const;

/** A refund whose reason contains this ends FAILED in sandbox. */
export const SANDBOX_REFUND_FAILURE = "fail_refund";

/** The sandbox payment fixtures (UPI ids and test cards, listed in docs/payments.md); never calls out. */
export const sandboxProcessor: PaymentProcessor = {
  configured: true,
  async startAttempt(_payment, input: PaymentMethodInput): Promise<AttemptStart> {
    switch (input.method) {
      case "UPI": {
        if (input.flow !== "collect") return { plan: { kind: "await-customer" } };
        const vpa = input.vpa.trim().toLowerCase();
        if (vpa === "failure@parakh")
          return {
            vpa,
            plan: { kind: "fail", afterMs: SANDBOX_UPI_DELAY_MS, errorCode: "PAYMENT_DECLINED", errorMessage: "The payment was declined in the UPI app." },
          };
        if (vpa === "pending@parakh") return { vpa, plan: { kind: "await-processor" } };
        return { vpa, plan: { kind: "succeed", afterMs: SANDBOX_UPI_DELAY_MS } };
      }
      case "CARD": {
        // The processor's own card page exists in live mode only; the sandbox takes its test cards on the form.
        if (input.flow === "hosted") throw new AppError("VALIDATION_ERROR", "Enter the card on this page.", { field: "method" });
        const digits = normaliseCardNumber(input.number);
        if (!luhnValid(digits)) throw new AppError("VALIDATION_ERROR", "The card number is not valid.", { field: "number" });
        const card = { cardNetwork: cardNetwork(digits), cardLast4: digits.slice(-4) };
        if (digits === "4000000000000002")
          return { ...card, plan: { kind: "fail", afterMs: 0, errorCode: "CARD_DECLINED", errorMessage: "The card was declined by the issuing bank." } };
        if (digits === "4000000000009995")
          return { ...card, plan: { kind: "fail", afterMs: 0, errorCode: "INSUFFICIENT_FUNDS", errorMessage: "The card has insufficient funds." } };
        return { ...card, plan: { kind: "succeed", afterMs: 0 } };
      }
      case "NETBANKING":
        return { bank: input.bank, plan: { kind: "await-customer" } };
    }
  },
  async refund(refund) {
    if (refund.reason?.toLowerCase().includes(SANDBOX_REFUND_FAILURE)) {
      return { outcome: "FAILED", failureReason: "The bank refused the refund (sandbox: the reason contains fail_refund)." };
    }
    return { outcome: "PROCESSED" };
  },
  async cancelAttempt() {
    // The sandbox network keeps no collect requests to withdraw.
  },
};

/** Live mode until a processor is configured: every attempt is refused with 503. */
export const unconfiguredProcessor: PaymentProcessor = {
  configured: false,
  async startAttempt() {
    throw new AppError("SERVICE_UNAVAILABLE", "No payment processor is configured for live mode yet.");
  },
  async refund() {
    throw new AppError("SERVICE_UNAVAILABLE", "No payment processor is configured for live mode yet.");
  },
  async cancelAttempt() {},
};
