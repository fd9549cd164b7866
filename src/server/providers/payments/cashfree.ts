/**
 * The live payment processor on the Cashfree Payment Gateway.
 *
 * One vendor order per payment, `order_id` = the Parakh payment id: made before the first attempt
 * is claimed and found again on every retry (the vendor's "already exists" is answered by reading
 * it), so a payment never has two orders. Attempts go through the order's payment session: UPI
 * collect waits for the vendor's webhook; UPI intent and QR give the page the vendor's link or
 * image; netbanking sends the customer to the bank page the vendor returns. Card numbers never come
 * here: a live card attempt hands the page the order's payment session, and the customer pays on the
 * vendor's own checkout page (where they may try several cards), so its result is read off the order.
 */
import { AppError } from "@/server/errors";
import {
  CashfreePgClient,
  isRefusal,
  type CashfreePgSettings,
  type CashfreePgTuning,
  type PgAttempt,
  type PgAttemptMethod,
} from "@/server/providers/payments/cashfree-pg";
import { attemptOutcome, refundOutcome } from "@/server/providers/payments/cashfree-outcomes";
import type { UpstreamLogger } from "@/server/providers/upstream/client";
import type {
  AttemptNext,
  AttemptStart,
  PaymentMethodInput,
  PaymentProcessor,
  ProcessorOrderResult,
  ProcessorPayment,
} from "@/server/providers/payments/types";

/**
 * The vendor's netbanking bank codes, only those read from the vendor itself: its "Appendix" page of
 * netbanking codes (https://www.cashfree.com/docs/payments/online/element/appendix) for Axis and
 * HDFC, and its OpenAPI document's own example for ICICI. Each code's source is in
 * tests/fixtures/cashfree-pg/netbanking-codes.json. A bank outside this table is refused before any call.
 */
export const CASHFREE_BANK_CODES: Readonly<Record<string, number>> = {
  "Axis Bank": 3003,
  "HDFC Bank": 3021,
  "ICICI Bank": 3022,
};

/** The banks a live netbanking payment can go to, in the order a page should list them. */
export const LIVE_NETBANKING_BANKS: readonly string[] = Object.keys(CASHFREE_BANK_CODES);

export interface CashfreeProcessorOptions {
  settings: CashfreePgSettings;
  /** Parakh's public origin: the vendor's webhooks come back under it. */
  appUrl: string;
  /** The hosted page's origin: the vendor's pages send the customer back to `/checkout/{paymentId}` there. */
  checkoutUrl: string;
  logger: UpstreamLogger;
  tuning?: CashfreePgTuning;
}

function vendorMethod(input: PaymentMethodInput): PgAttemptMethod {
  switch (input.method) {
    case "UPI":
      if (input.flow === "collect") return { kind: "upi-collect", upiId: input.vpa.trim().toLowerCase() };
      return input.flow === "intent" ? { kind: "upi-intent" } : { kind: "upi-qr" };
    case "NETBANKING": {
      const bankCode = CASHFREE_BANK_CODES[input.bank];
      if (!bankCode) throw new AppError("VALIDATION_ERROR", "Choose a bank from the list.", { field: "bank" });
      return { kind: "netbanking", bankCode };
    }
    case "CARD":
      // The card form is a sandbox page: live card payments happen on the vendor's own checkout.
      throw new AppError("VALIDATION_ERROR", "In live mode a card is paid on the payment processor's own page.", { field: "method" });
  }
}

function nextStep(attempt: PgAttempt): AttemptNext | undefined {
  if (attempt.intentUrl) return { kind: "intent", url: attempt.intentUrl };
  if (attempt.qrCode) return { kind: "qr", image: attempt.qrCode };
  if (attempt.redirectUrl) return { kind: "redirect", url: attempt.redirectUrl };
  return undefined;
}

export function createCashfreeProcessor(options: CashfreeProcessorOptions): PaymentProcessor & { client: CashfreePgClient } {
  const client = new CashfreePgClient(options.settings, options.appUrl, options.logger, options.tuning);
  const checkoutBase = options.checkoutUrl.replace(/\/$/, "");

  async function prepare(payment: ProcessorPayment) {
    if (!payment.expiresAt) throw new Error("a live order needs the payment's expiry");
    // The vendor documents no minimum lifetime for an order; one already past its expiry is never sent.
    if (payment.expiresAt.getTime() <= Date.now()) throw new AppError("PAYMENT_NOT_PAYABLE", "This payment has expired.");
    const order = await client.createOrder({
      paymentId: payment.id,
      amountPaise: payment.amountPaise,
      expiresAt: payment.expiresAt,
      customer: { name: payment.customerName, email: payment.customerEmail, phone: payment.customerPhone },
      returnUrl: `${checkoutBase}/checkout/${encodeURIComponent(payment.id)}`,
    });
    if (order.status !== "ACTIVE" || !order.paymentSessionId) {
      throw new AppError("PAYMENT_NOT_PAYABLE", "The payment processor no longer accepts payments for this payment.");
    }
    return { sessionId: order.paymentSessionId };
  }

  return {
    configured: true,
    client,

    prepareAttempt: prepare,

    async startAttempt(payment, input, prepared): Promise<AttemptStart> {
      if (input.method === "CARD" && input.flow === "hosted") {
        // No vendor call: the page opens the vendor's checkout on the order's session; the vendor makes the payment there.
        const sessionId = prepared?.sessionId ?? (await prepare(payment)).sessionId;
        return { plan: { kind: "await-processor" }, next: { kind: "hosted-checkout", sessionId } };
      }
      const method = vendorMethod(input);
      const sessionId = prepared?.sessionId ?? (await prepare(payment)).sessionId;
      const vpa = method.kind === "upi-collect" ? method.upiId : undefined;
      const bank = input.method === "NETBANKING" ? input.bank : undefined;
      const answer = await client.pay(sessionId, method);
      if (isRefusal(answer)) {
        const invalidUpi = answer.vendorCode === "upi_id_invalid";
        const errorMessage = invalidUpi ? "This UPI ID is not valid." : "The payment processor refused this attempt.";
        return { vpa, bank, plan: { kind: "fail", afterMs: 0, errorCode: "PAYMENT_DECLINED", errorMessage } };
      }
      return { vpa, bank, processorRef: answer.cfPaymentId, next: nextStep(answer), plan: { kind: "await-processor" } };
    },

    async refund(refund) {
      const answer = await client.createRefund(refund.paymentId, { refundId: refund.id, amountPaise: refund.amountPaise, note: refund.reason });
      if (isRefusal(answer)) {
        return { outcome: "FAILED", failureReason: `The payment processor refused the refund (${answer.vendorCode ?? `HTTP ${answer.httpStatus}`}).` };
      }
      return refundOutcome(answer) ?? { outcome: "PENDING" };
    },

    async checkAttempt(attempt) {
      const payment = (await client.getPayments(attempt.paymentId)).find((p) => p.cfPaymentId === attempt.processorRef);
      return payment ? attemptOutcome(payment, attempt.amountPaise) : { result: "PENDING" };
    },

    async checkOrder({ paymentId, amountPaise, startedAt, known }): Promise<ProcessorOrderResult> {
      // The order's payments made on the vendor's page: Parakh's own attempts' payments are theirs to settle.
      const payments = (await client.getPayments(paymentId)).filter((p) => !known.includes(p.cfPaymentId));
      // Money is never passed over, whenever it was paid.
      const paid = payments.find((p) => p.status === "SUCCESS");
      if (paid) {
        const outcome = attemptOutcome(paid, amountPaise);
        if (outcome.result === "SUCCESS") return { result: "SUCCESS", processorRef: paid.cfPaymentId, bankReference: outcome.bankReference };
        if (outcome.result === "FAILED")
          return { result: "FAILED", errorCode: "AMOUNT_MISMATCH", errorMessage: outcome.errorMessage, processorRef: paid.cfPaymentId };
      }
      // A payment begun before this attempt is an earlier visit's: it neither keeps this one waiting nor fails it.
      const since = payments.filter((p) => p.startedAt === null || p.startedAt >= startedAt.getTime());
      if (since.some((p) => attemptOutcome(p, amountPaise).result === "PENDING")) return { result: "PENDING" };
      // Several cards may have been declined there: the latest one speaks.
      const failures = since.flatMap((p) => {
        const outcome = attemptOutcome(p, amountPaise);
        return outcome.result === "FAILED" ? [{ ref: p.cfPaymentId, at: p.startedAt ?? 0, ...outcome }] : [];
      });
      const latest = failures.sort((a, b) => b.at - a.at)[0];
      if (latest) return { result: "FAILED", processorRef: latest.ref, errorCode: latest.errorCode, errorMessage: latest.errorMessage };
      return { result: "UNPAID" };
    },

    async cancelAttempt() {
      // The vendor withdraws no single UPI request; the order stays open so the customer can retry on it.
    },

    async closePayment(paymentId) {
      const ended = await client.terminateOrder(paymentId);
      if (ended.refusal) options.logger.warn("payment order not terminated", { paymentId, vendorCode: ended.refusal.vendorCode });
    },
  };
}
