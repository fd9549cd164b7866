import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { attemptOutcome, refundOutcome } from "@/server/providers/payments/cashfree-outcomes";
import { CashfreePgClient, paymentFromWire, refundFromWire, type PgPayment, type PgRefund } from "@/server/providers/payments/cashfree-pg";
import { startFakeCashfreePg, type FakeCashfreePg } from "../helpers/fake-cashfree-pg";

const CREDENTIALS = { clientId: "CF_PG_TEST_CLIENT", clientSecret: "cfsk_ma_pg_do_not_log_me" };

const payment = (status: string, amountPaise: number | null = 49_900, currency: string | null = "INR"): PgPayment => ({
  cfPaymentId: "5114910000",
  orderId: "pay_1764230400000_TestPayment001",
  status,
  amountPaise,
  currency,
  group: "upi",
  bankReference: status === "SUCCESS" ? "234928698581" : null,
  errorCode: null,
  errorDescription: null,
  startedAt: null,
});

const refund = (status: string): PgRefund => ({ refundId: "rfnd_AbCdEfGh12345678", cfRefundId: "1553338", status, amountPaise: 100, statusDescription: null });

describe("attemptOutcome", () => {
  it("follows the documented table", () => {
    expect(attemptOutcome(payment("SUCCESS"), 49_900)).toEqual({ result: "SUCCESS", bankReference: "234928698581" });
    for (const status of ["FAILED", "VOID", "CANCELLED"])
      expect(attemptOutcome(payment(status), 49_900)).toMatchObject({ result: "FAILED", errorCode: "PAYMENT_DECLINED" });
    expect(attemptOutcome(payment("USER_DROPPED"), 49_900)).toMatchObject({ result: "FAILED", errorCode: "PAYMENT_NOT_COMPLETED" });
    for (const status of ["PENDING", "NOT_ATTEMPTED", "SOMETHING_NEW"]) expect(attemptOutcome(payment(status), 49_900)).toEqual({ result: "PENDING" });
  });

  it("never reads a success of another amount, or of an amount it cannot read, as a success", () => {
    expect(attemptOutcome(payment("SUCCESS", 49_800), 49_900)).toMatchObject({ result: "FAILED", errorCode: "AMOUNT_MISMATCH" });
    expect(attemptOutcome(payment("SUCCESS", 100_000), 49_900)).toMatchObject({ result: "FAILED", errorCode: "AMOUNT_MISMATCH" });
    expect(attemptOutcome(payment("SUCCESS", null), 49_900)).toMatchObject({ result: "FAILED", errorCode: "AMOUNT_MISMATCH" });
  });

  it("never reads a success in another currency than INR as a success, whatever its amount", () => {
    for (const currency of ["USD", "EUR"]) {
      expect(attemptOutcome(payment("SUCCESS", 49_900, currency), 49_900)).toMatchObject({ result: "FAILED", errorCode: "AMOUNT_MISMATCH" });
    }
    // A failure stays the failure it is.
    expect(attemptOutcome(payment("FAILED", 49_900, "USD"), 49_900)).toMatchObject({ result: "FAILED", errorCode: "PAYMENT_DECLINED" });
    // The vendor names the currency of every payment; one it leaves out is the order's own (INR).
    expect(attemptOutcome(payment("SUCCESS", 49_900, null), 49_900)).toMatchObject({ result: "SUCCESS" });
  });
});

describe("refundOutcome", () => {
  it("follows the documented table", () => {
    expect(refundOutcome(refund("SUCCESS"))).toEqual({ outcome: "PROCESSED" });
    expect(refundOutcome(refund("CANCELLED"))).toMatchObject({ outcome: "FAILED" });
    expect(refundOutcome(refund("FAILED"))).toMatchObject({ outcome: "FAILED" });
    for (const status of ["PENDING", "ONHOLD"]) expect(refundOutcome(refund(status))).toBeNull();
  });
});

describe("outcomes read from the vendor's webhooks", () => {
  let fake: FakeCashfreePg;
  let pg: CashfreePgClient;

  beforeEach(async () => {
    fake = await startFakeCashfreePg(CREDENTIALS);
    pg = new CashfreePgClient(
      { baseUrl: fake.url, ...CREDENTIALS, timeoutMs: 2_000, maxConcurrency: 8 },
      "https://parakh.example",
      { warn() {}, error() {} },
      { listed: false },
    );
  });

  afterEach(async () => {
    await fake.close();
    expect(fake.problems).toEqual([]);
  });

  it("reads a payment webhook's payment and a refund webhook's refund (numbers where the document says strings)", async () => {
    const input = { paymentId: "pay_1764230400000_WebhookOutcome1", amountPaise: 49_900, expiresAt: new Date("2026-11-27T12:30:00Z"), customer: null };
    const order = await pg.createOrder(input);
    await pg.pay(order.paymentSessionId!, { kind: "upi-collect", upiId: "rahul@okbank" });
    await pg.pay(order.paymentSessionId!, { kind: "upi-qr" });
    const mismatch = fake.settle(input.paymentId, "SUCCESS", { amountPaise: 100 });
    expect(attemptOutcome(paymentFromWire(mismatch.data.payment), input.amountPaise)).toMatchObject({ result: "FAILED", errorCode: "AMOUNT_MISMATCH" });
    expect(paymentFromWire(mismatch.data.payment).currency).toBe("INR");
    const [, second] = fake.orders.get(input.paymentId)!.payments;
    const dollars = fake.settle(input.paymentId, "SUCCESS", { cfPaymentId: second!.cf_payment_id as string, amountPaise: 49_900, currency: "USD" });
    expect(attemptOutcome(paymentFromWire(dollars.data.payment), input.amountPaise)).toMatchObject({ result: "FAILED", errorCode: "AMOUNT_MISMATCH" });
    const [first] = fake.orders.get(input.paymentId)!.payments;
    const dropped = fake.settle(input.paymentId, "USER_DROPPED", { cfPaymentId: first!.cf_payment_id as string });
    expect(attemptOutcome(paymentFromWire(dropped.data.payment), input.amountPaise)).toMatchObject({ result: "FAILED", errorCode: "PAYMENT_NOT_COMPLETED" });

    const other = { ...input, paymentId: "pay_1764230400000_WebhookOutcome2" };
    const paid = await pg.createOrder(other);
    await pg.pay(paid.paymentSessionId!, { kind: "upi-intent" });
    const success = fake.settle(other.paymentId, "SUCCESS");
    expect(attemptOutcome(paymentFromWire(success.data.payment), other.amountPaise)).toMatchObject({ result: "SUCCESS" });

    await pg.createRefund(other.paymentId, { refundId: "rfnd_Outcome000000001", amountPaise: 100 });
    const refunded = fake.settleRefund("rfnd_Outcome000000001", "CANCELLED");
    expect(typeof refunded.data.refund.cf_refund_id).toBe("number");
    const read = refundFromWire(refunded.data.refund);
    expect(read).toMatchObject({ refundId: "rfnd_Outcome000000001", status: "CANCELLED", amountPaise: 100 });
    expect(read.cfRefundId).toMatch(/^\d+$/);
    expect(refundOutcome(read)).toMatchObject({ outcome: "FAILED" });
  });
});
