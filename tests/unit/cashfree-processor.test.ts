import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configFrom } from "@/server/config";
import { AppError } from "@/server/errors";
import fs from "node:fs";
import path from "node:path";
import { CASHFREE_BANK_CODES, LIVE_NETBANKING_BANKS, createCashfreeProcessor } from "@/server/providers/payments/cashfree";
import { PLACEHOLDER_CUSTOMER_PHONE } from "@/server/providers/payments/cashfree-pg";
import { unconfiguredProcessor } from "@/server/providers/payments/sandbox";
import type { PaymentProcessor, ProcessorPayment } from "@/server/providers/payments/types";
import type { UpstreamLogger } from "@/server/providers/upstream/client";
import { createLivePaymentProcessor } from "@/server/services";
import { PG_FIXTURE, startFakeCashfreePg, type FakeCashfreePg } from "../helpers/fake-cashfree-pg";
import { settingsEnv } from "../helpers/settings-env";

const CREDENTIALS = { clientId: "CF_PG_TEST_CLIENT", clientSecret: "cfsk_ma_pg_do_not_log_me" };
const warnings: unknown[] = [];
const logger: UpstreamLogger = { warn: (msg, fields) => void warnings.push({ msg, ...fields }), error: () => undefined };

let fake: FakeCashfreePg;
let live: PaymentProcessor;
let serial = 0;

function payment(overrides: Partial<ProcessorPayment> = {}): ProcessorPayment {
  serial++;
  return {
    id: `pay_1764230400000_Processor${String(serial).padStart(4, "0")}`,
    amountPaise: 49_900,
    expiresAt: new Date(Date.now() + 30 * 60_000),
    customerName: "Rahul Sharma",
    customerEmail: "rahul@example.com",
    customerPhone: "+919876543210",
    ...overrides,
  };
}

async function failure(call: () => Promise<unknown>): Promise<AppError> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("the call answered instead of failing");
}

beforeEach(async () => {
  fake = await startFakeCashfreePg(CREDENTIALS);
  warnings.length = 0;
  live = createCashfreeProcessor({
    settings: { baseUrl: fake.url, ...CREDENTIALS, timeoutMs: 2_000, maxConcurrency: 8 },
    appUrl: "https://parakh.example",
    checkoutUrl: "https://pay.parakh.example",
    logger,
    tuning: { retryDelayMs: 10, listed: false },
  });
});

afterEach(async () => {
  await fake.close();
  expect(fake.problems).toEqual([]);
});

describe("the live processor's order", () => {
  it("is made once per payment, with its amount, expiry, customer and hosted page, and found again on a retry", async () => {
    const p = payment();
    const first = await live.prepareAttempt!(p);
    const again = await live.prepareAttempt!(p);
    expect(again).toEqual(first);
    expect(fake.orders.size).toBe(1);
    const body = fake.requests.find((r) => r.operation === "PGCreateOrder")!.body;
    expect(body).toMatchObject({
      order_id: p.id,
      order_amount: 499,
      order_expiry_time: p.expiresAt!.toISOString(),
      customer_details: { customer_id: p.id, customer_phone: "9876543210", customer_name: "Rahul Sharma" },
      order_meta: { notify_url: "https://parakh.example/api/providers/cashfree/webhook", return_url: `https://pay.parakh.example/checkout/${p.id}` },
    });
  });

  it("answers the vendor's outage with 503 SERVICE_UNAVAILABLE", async () => {
    fake.fail("500", { operation: "PGCreateOrder", times: 1 });
    const err = await failure(() => live.prepareAttempt!(payment()));
    expect([err.code, err.status]).toEqual(["SERVICE_UNAVAILABLE", 503]);
  });

  it("refuses an order the vendor no longer takes payments on", async () => {
    const p = payment();
    await live.prepareAttempt!(p);
    await live.closePayment!(p.id);
    expect((await failure(() => live.prepareAttempt!(p))).code).toBe("PAYMENT_NOT_PAYABLE");
  });
});

describe("the live processor's attempts", () => {
  it("sends a UPI collect through the order's session and waits for the vendor, keeping its payment id", async () => {
    const p = payment();
    const started = await live.startAttempt(p, { method: "UPI", flow: "collect", vpa: " Rahul@OkBank " }, await live.prepareAttempt!(p));
    const pending = fake.orders.get(p.id)!.payments[0]!;
    expect(started).toEqual({ vpa: "rahul@okbank", bank: undefined, processorRef: pending.cf_payment_id, next: undefined, plan: { kind: "await-processor" } });
    expect(pending.payment_method).toEqual({ upi: { channel: "collect", upi_id: "rahul@okbank" } });
  });

  it("gives the page the vendor's UPI link, QR image and bank page", async () => {
    const p = payment();
    const prepared = await live.prepareAttempt!(p);
    const intent = await live.startAttempt(p, { method: "UPI", flow: "intent" }, prepared);
    expect(intent.next).toMatchObject({ kind: "intent", url: expect.stringMatching(/^upi:\/\/pay\?/) });
    const qr = await live.startAttempt(p, { method: "UPI", flow: "qr" }, prepared);
    expect(qr.next).toMatchObject({ kind: "qr", image: expect.stringMatching(/^data:image\/png;base64,/) });
    const bank = await live.startAttempt(p, { method: "NETBANKING", bank: "ICICI Bank" }, prepared);
    expect(bank).toMatchObject({ bank: "ICICI Bank", plan: { kind: "await-processor" }, next: { kind: "redirect", url: expect.stringMatching(/^http/) } });
    expect(fake.requests.filter((r) => r.operation === "PGPayOrder").at(-1)!.body.payment_method).toEqual({
      netbanking: { channel: "link", netbanking_bank_code: 3022 },
    });
    expect(fake.orders.get(p.id)!.payments).toHaveLength(3);
    expect(fake.orders.size).toBe(1);
  });

  it("reads the vendor's current word on an attempt: pending, paid, paid another amount, declined", async () => {
    const p = payment();
    const prepared = await live.prepareAttempt!(p);
    const ref = async () => (await live.startAttempt(p, { method: "UPI", flow: "collect", vpa: "a@okbank" }, prepared)).processorRef!;
    const check = (processorRef: string, amountPaise = p.amountPaise) => live.checkAttempt!({ paymentId: p.id, processorRef, amountPaise });
    const first = await ref();
    expect(await check(first)).toEqual({ result: "PENDING" });
    expect(await check("5114999999")).toEqual({ result: "PENDING" });
    fake.settle(p.id, "FAILED");
    expect(await check(first)).toMatchObject({ result: "FAILED", errorCode: "PAYMENT_DECLINED" });
    const second = await ref();
    const webhook = fake.settle(p.id, "SUCCESS");
    expect(await check(second)).toEqual({ result: "SUCCESS", bankReference: webhook.data.payment.bank_reference });
    expect(await check(second, 100)).toMatchObject({ result: "FAILED", errorCode: "AMOUNT_MISMATCH" });
  });

  it("makes the order itself when nothing was prepared", async () => {
    const p = payment();
    const started = await live.startAttempt(p, { method: "UPI", flow: "collect", vpa: "a@okbank" });
    expect(started.plan).toEqual({ kind: "await-processor" });
    expect(fake.orders.size).toBe(1);
  });

  it("fails an attempt the vendor refuses, and refuses a card or an unknown bank before any call", async () => {
    const p = payment();
    const prepared = await live.prepareAttempt!(p);
    const refused = await live.startAttempt(p, { method: "UPI", flow: "collect", vpa: "someone@invalid" }, prepared);
    expect(refused.plan).toEqual({ kind: "fail", afterMs: 0, errorCode: "PAYMENT_DECLINED", errorMessage: "This UPI ID is not valid." });
    const calls = fake.count();
    const card = { method: "CARD" as const, number: "4111111111111111", expiryMonth: 12, expiryYear: 2030, cvv: "123" };
    expect((await failure(() => live.startAttempt(p, card, prepared))).code).toBe("VALIDATION_ERROR");
    expect((await failure(() => live.startAttempt(p, { method: "NETBANKING", bank: "Bank of Nowhere" }, prepared))).code).toBe("VALIDATION_ERROR");
    expect(fake.count()).toBe(calls);
  });
});

describe("what the live processor sends for banks, phones and expiry", () => {
  const fixtures = path.dirname(PG_FIXTURE);
  const document = JSON.parse(fs.readFileSync(PG_FIXTURE, "utf8"));
  const confirmed = JSON.parse(fs.readFileSync(path.join(fixtures, "netbanking-codes.json"), "utf8")).banks as { bank: string; code: number; source: string }[];

  it("sends each bank the code read from the vendor's own pages, and offers no bank without one", async () => {
    expect(confirmed.every((b) => /cashfree\.com\/docs|pg-openapi\.json/.test(b.source))).toBe(true);
    expect(CASHFREE_BANK_CODES).toEqual(Object.fromEntries(confirmed.map((b) => [b.bank, b.code])));
    expect([...LIVE_NETBANKING_BANKS].sort()).toEqual(confirmed.map((b) => b.bank).sort());
    // The vendor's document names ICICI's code in its own example.
    expect(document.components.schemas.Netbanking.example.netbanking_bank_code).toBe(confirmed.find((b) => b.bank === "ICICI Bank")!.code);
    for (const { bank, code } of confirmed) {
      const p = payment();
      await live.startAttempt(p, { method: "NETBANKING", bank }, await live.prepareAttempt!(p));
      expect(fake.requests.at(-1)!.body.payment_method, bank).toEqual({ netbanking: { channel: "link", netbanking_bank_code: code } });
    }
    // Not confirmed from the vendor: refused before any call rather than sent with a guessed code.
    const p = payment();
    const prepared = await live.prepareAttempt!(p);
    const calls = fake.count();
    for (const bank of ["State Bank of India", "Kotak Mahindra Bank", "Punjab National Bank"]) {
      expect((await failure(() => live.startAttempt(p, { method: "NETBANKING", bank }, prepared))).code, bank).toBe("VALIDATION_ERROR");
    }
    expect(fake.count()).toBe(calls);
  });

  it("sends a placeholder phone that fits the vendor's customer_phone when the payment has no Indian mobile", async () => {
    const phone = document.components.schemas.CustomerDetails.properties.customer_phone;
    expect(document.components.schemas.CustomerDetails.required).toContain("customer_phone");
    expect(PLACEHOLDER_CUSTOMER_PHONE).toMatch(/^\d+$/);
    expect(PLACEHOLDER_CUSTOMER_PHONE.length).toBeGreaterThanOrEqual(phone.minLength);
    expect(PLACEHOLDER_CUSTOMER_PHONE.length).toBeLessThanOrEqual(phone.maxLength);
    for (const customerPhone of [null, "12345", "+14155550123"]) {
      const p = payment({ customerPhone });
      await live.prepareAttempt!(p);
      expect(fake.requests.at(-1)!.body.customer_details.customer_phone, String(customerPhone)).toBe(PLACEHOLDER_CUSTOMER_PHONE);
    }
    const own = payment({ customerPhone: "+919876543210" });
    await live.prepareAttempt!(own);
    expect(fake.requests.at(-1)!.body.customer_details.customer_phone).toBe("9876543210");
  });

  it("sends the payment's own expiry, never one already past, and answers the vendor's refusal of it clearly", async () => {
    const calls = fake.count();
    const past = await failure(() => live.prepareAttempt!(payment({ expiresAt: new Date(Date.now() - 1_000) })));
    expect([past.code, past.message]).toEqual(["PAYMENT_NOT_PAYABLE", "This payment has expired."]);
    expect(fake.count()).toBe(calls);
    const soon = payment({ expiresAt: new Date(Date.now() + 60_000) });
    fake.fail("expiry-refused", { operation: "PGCreateOrder", times: 1 });
    const refused = await failure(() => live.prepareAttempt!(soon));
    expect([refused.code, refused.status]).toEqual(["PAYMENT_NOT_PAYABLE", 409]);
    expect(refused.message).toContain("expires too soon");
    await live.prepareAttempt!(soon);
    expect(fake.requests.at(-1)!.body.order_expiry_time).toBe(soon.expiresAt!.toISOString());
  });
});

describe("the live processor's refunds and cancels", () => {
  async function paid() {
    const p = payment();
    await live.startAttempt(p, { method: "UPI", flow: "collect", vpa: "a@okbank" }, await live.prepareAttempt!(p));
    fake.settle(p.id, "SUCCESS");
    return p;
  }

  it("asks for a refund under the Parakh refund id, once however often the job runs, and reads its end", async () => {
    const p = await paid();
    const refund = { id: "rfnd_1764230400000_Processor01", paymentId: p.id, attemptId: null, amountPaise: 10_000, reason: "customer asked" };
    expect(await live.refund(refund)).toEqual({ outcome: "PENDING" });
    expect(fake.requests.at(-1)!.body).toEqual({ refund_amount: 100, refund_id: refund.id, refund_note: "customer asked" });
    expect(await live.refund(refund)).toEqual({ outcome: "PENDING" });
    expect(fake.orders.get(p.id)!.refunds.size).toBe(1);
    fake.settleRefund(refund.id, "SUCCESS");
    expect(await live.refund(refund)).toEqual({ outcome: "PROCESSED" });
  });

  it("fails a refund the vendor refuses", async () => {
    const p = await paid();
    const answer = await live.refund({ id: "rfnd_1764230400000_Processor02", paymentId: p.id, attemptId: null, amountPaise: 99_900, reason: null });
    expect(answer).toMatchObject({ outcome: "FAILED", failureReason: expect.stringContaining("refund_amount_invalid") });
  });

  it("terminates a cancelled payment's order, and only warns when the vendor refuses (already paid)", async () => {
    const open = payment();
    await live.prepareAttempt!(open);
    await live.cancelAttempt({ id: "att_x", paymentId: open.id, method: "UPI" });
    expect(fake.orders.get(open.id)!.entity.order_status).toBe("ACTIVE");
    await live.closePayment!(open.id);
    expect(fake.orders.get(open.id)!.entity.order_status).toBe("TERMINATED");
    const p = await paid();
    await live.closePayment!(p.id);
    expect(fake.orders.get(p.id)!.entity.order_status).toBe("PAID");
    expect(warnings).toEqual([{ msg: "payment order not terminated", paymentId: p.id, vendorCode: "order_terminate_failed" }]);
  });
});

describe("the live processor's selection", () => {
  const env = () => settingsEnv("parakh-live-proc-");

  it("is the vendor's only when LIVE_PAYMENT_PROVIDER=cashfree", () => {
    expect(createLivePaymentProcessor(configFrom(env()))).toBe(unconfiguredProcessor);
    const chosen = createLivePaymentProcessor(
      configFrom({ ...env(), LIVE_PAYMENT_PROVIDER: "cashfree", CASHFREE_PG_CLIENT_ID: "id", CASHFREE_PG_CLIENT_SECRET: "secret" }),
    );
    expect(chosen.configured).toBe(true);
    expect(chosen.prepareAttempt).toBeTypeOf("function");
  });
});
