import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isProcessorWebhookPath, PROCESSOR_WEBHOOK_MAX_BYTES } from "@/server/http/processor-webhook-door";
import { CashfreePgClient } from "@/server/providers/payments/cashfree-pg";
import { summariseCashfreeWebhook } from "@/server/services/payments/processor-webhooks";
import { startFakeCashfreePg, type FakeCashfreePg } from "../helpers/fake-cashfree-pg";

const CREDENTIALS = { clientId: "CF_PG_TEST_CLIENT", clientSecret: "cfsk_ma_pg_summary" };
let fake: FakeCashfreePg;
let pg: CashfreePgClient;

beforeAll(async () => {
  fake = await startFakeCashfreePg(CREDENTIALS);
  const quiet = { warn: () => undefined, error: () => undefined };
  pg = new CashfreePgClient({ baseUrl: fake.url, ...CREDENTIALS, timeoutMs: 2_000, maxConcurrency: 4 }, "https://parakh.example", quiet, { listed: false });
});
afterAll(async () => {
  await fake.close();
  expect(fake.problems).toEqual([]);
});

async function paidOrder(paymentId: string) {
  const order = await pg.createOrder({
    paymentId,
    amountPaise: 17_000,
    expiresAt: new Date(Date.now() + 600_000),
    customer: { name: "Meera Iyer", email: "meera@example.com", phone: "9812345678" },
  });
  await pg.pay(order.paymentSessionId!, { kind: "upi-collect", upiId: "meera@okbank" });
  return fake.settle(paymentId, "SUCCESS");
}

describe("a processor webhook's record", () => {
  it("keeps the payment's order, vendor id, status, amount and bank reference, and nothing about the customer", async () => {
    const webhook = await paidOrder("pay_1764230400000_SummaryPay001");
    const { eventType, summary } = summariseCashfreeWebhook(webhook);
    expect(eventType).toBe("PAYMENT_SUCCESS_WEBHOOK");
    expect(summary).toEqual({
      kind: "payment",
      orderId: "pay_1764230400000_SummaryPay001",
      cfPaymentId: webhook.data.payment.cf_payment_id,
      paymentStatus: "SUCCESS",
      amountPaise: 17_000,
      currency: "INR",
      bankReference: webhook.data.payment.bank_reference,
      refundId: null,
      refundStatus: null,
    });
    expect(JSON.stringify(summary)).not.toMatch(/meera|9812345678/i);
  });

  it("keeps a refund's id, status and amount", async () => {
    await paidOrder("pay_1764230400000_SummaryPay002");
    await pg.createRefund("pay_1764230400000_SummaryPay002", { refundId: "rfnd_summary_1", amountPaise: 5_000 });
    const { eventType, summary } = summariseCashfreeWebhook(fake.settleRefund("rfnd_summary_1", "SUCCESS"));
    expect(eventType).toBe("REFUND_STATUS_WEBHOOK");
    expect(summary).toMatchObject({
      kind: "refund",
      orderId: "pay_1764230400000_SummaryPay002",
      refundId: "rfnd_summary_1",
      refundStatus: "SUCCESS",
      amountPaise: 5_000,
    });
  });

  it("keeps nothing to act on for any other body", () => {
    expect(summariseCashfreeWebhook({ type: "PAYMENT_CHARGES_WEBHOOK", data: {} }).summary.kind).toBe("other");
    expect(summariseCashfreeWebhook([1, 2]).eventType).toBe("UNKNOWN");
  });

  it("is served at the one path registered with the vendor, up to 64 KiB", () => {
    expect(isProcessorWebhookPath("/api/providers/cashfree/webhook")).toBe(true);
    expect(isProcessorWebhookPath("/api/providers/cashfree/webhook/")).toBe(false);
    expect(PROCESSOR_WEBHOOK_MAX_BYTES).toBe(65_536);
  });
});
