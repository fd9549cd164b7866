import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configFrom, PAYMENTS_TIMEOUT_MS } from "@/server/config";
import { AppError } from "@/server/errors";
import {
  CashfreePgClient,
  isRefusal,
  PG_API_VERSION,
  PLACEHOLDER_CUSTOMER_PHONE,
  vendorPhone,
  type PgAttempt,
  type PgOrderInput,
  type PgRefund,
  type PgRefusal,
} from "@/server/providers/payments/cashfree-pg";
import { verifyCashfreeWebhook } from "@/server/providers/payments/cashfree-webhook";
import { UpstreamAccountRefused, type UpstreamLogger } from "@/server/providers/upstream/client";
import { INVALID_UPI_SUFFIX, loadPgValidators, startFakeCashfreePg, type FakeCashfreePg } from "../helpers/fake-cashfree-pg";
import { settingsEnv } from "../helpers/settings-env";

const CREDENTIALS = { clientId: "CF_PG_TEST_CLIENT", clientSecret: "cfsk_ma_pg_do_not_log_me" };
const APP_URL = "https://parakh.example";
const quiet: UpstreamLogger = { warn: () => undefined, error: () => undefined };

let fake: FakeCashfreePg;
let pg: CashfreePgClient;

function client(timeoutMs = 2_000): CashfreePgClient {
  return new CashfreePgClient({ baseUrl: fake.url, ...CREDENTIALS, timeoutMs, maxConcurrency: 8 }, APP_URL, quiet, { retryDelayMs: 10, listed: false });
}

let serial = 0;
function order(overrides: Partial<PgOrderInput> = {}): PgOrderInput {
  serial++;
  return {
    paymentId: `pay_1764230400000_TestPayment${String(serial).padStart(3, "0")}`,
    amountPaise: 49_900,
    expiresAt: new Date("2026-11-27T12:30:00.000Z"),
    customer: { name: "Rahul Sharma", email: "rahul@example.com", phone: "+919876543210" },
    ...overrides,
  };
}

async function refusal(call: () => Promise<unknown>): Promise<AppError> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("the call answered instead of failing");
}

function started(result: PgAttempt | PgRefusal): PgAttempt {
  if (isRefusal(result)) throw new Error(`refused: ${JSON.stringify(result)}`);
  return result;
}

function taken(result: PgRefund | PgRefusal): PgRefund {
  if (isRefusal(result)) throw new Error(`refused: ${JSON.stringify(result)}`);
  return result;
}

beforeEach(async () => {
  fake = await startFakeCashfreePg(CREDENTIALS);
  pg = client();
});

afterEach(async () => {
  await fake.close();
  expect(fake.problems).toEqual([]);
});

describe("the fixture schemas", () => {
  it("accept every answer example of the vendor's document, and the request examples of the calls Parakh makes", () => {
    let checked = 0;
    for (const endpoint of loadPgValidators().endpoints.values()) {
      for (const example of endpoint.examples) {
        // The document's refund example is a list where its schema (and the vendor's answer) is one refund.
        if (example.where === "PGOrderCreateRefund 200 refunds_entity_example") continue;
        const ours = /^PGCreateOrder request order_(minimum|customer|expiry)$|^PGPayOrder request pay_(upi_collect|upi_intent|upi_qr|netbanking_code)$/;
        if (example.where.includes(" request ") && !ours.test(example.where)) continue;
        expect(example.validate(example.value), `${example.where}: ${JSON.stringify(example.validate.errors)}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });

  it("refuse a request with an undocumented field or a wrong type, and an answer with a wrong type", () => {
    const create = loadPgValidators().endpoints.get("PGCreateOrder")!;
    const minimum = { order_amount: 10.34, order_currency: "INR", customer_details: { customer_id: "7112AAA812234", customer_phone: "9898989898" } };
    expect(create.request(minimum)).toBe(true);
    expect(create.request({ ...minimum, order_amount: "10.34" })).toBe(false);
    expect(create.request({ ...minimum, amount: 10.34 })).toBe(false);
    expect(create.request({ ...minimum, customer_details: { customer_id: "7112AAA812234" } })).toBe(false);
    expect(create.request({ ...minimum, customer_details: { ...minimum.customer_details, customer_phone: "+919898989898" } })).toBe(false);
    expect(create.answers.get(200)!({ order_status: { value: "ACTIVE" } })).toBe(false);
  });
});

describe("orders", () => {
  it("creates the payment's order with the body the vendor documents", async () => {
    const input = order({ amountPaise: 1_999 });
    const created = await pg.createOrder(input);
    expect(created).toMatchObject({ orderId: input.paymentId, status: "ACTIVE", amountPaise: 1_999 });
    expect(created.paymentSessionId).toMatch(/^session_/);
    const [request] = fake.requests;
    expect(request!.body).toEqual({
      order_id: input.paymentId,
      order_amount: 19.99,
      order_currency: "INR",
      customer_details: { customer_id: input.paymentId, customer_phone: "9876543210", customer_name: "Rahul Sharma", customer_email: "rahul@example.com" },
      order_meta: { notify_url: "https://parakh.example/api/providers/cashfree/webhook" },
      order_expiry_time: "2026-11-27T12:30:00.000Z",
    });
    expect(request!.headers).toMatchObject({
      "x-api-version": PG_API_VERSION,
      "x-client-id": CREDENTIALS.clientId,
      "x-client-secret": CREDENTIALS.clientSecret,
    });
  });

  it("fills the vendor's required phone when the payment has none or one it cannot take, and leaves out what it would refuse", async () => {
    const input = order({ customer: { name: "Al", email: null, phone: "+4412345678901" }, returnUrl: "https://parakh.example/checkout/pay_x" });
    await pg.createOrder(input);
    expect(fake.requests[0]!.body.customer_details).toEqual({ customer_id: input.paymentId, customer_phone: PLACEHOLDER_CUSTOMER_PHONE });
    expect(fake.requests[0]!.body.order_meta).toEqual({
      notify_url: `${APP_URL}/api/providers/cashfree/webhook`,
      return_url: "https://parakh.example/checkout/pay_x",
    });
    await pg.createOrder(order({ customer: null }));
    expect(fake.requests[1]!.body.customer_details.customer_phone).toBe(PLACEHOLDER_CUSTOMER_PHONE);
    expect([vendorPhone("9876543210"), vendorPhone("919876543210"), vendorPhone("+919876543210"), vendorPhone("12345"), vendorPhone(null)]).toEqual([
      "9876543210",
      "9876543210",
      "9876543210",
      null,
      null,
    ]);
  });

  it("answers a second create for the same payment by reading the order it already made", async () => {
    const input = order();
    const first = await pg.createOrder(input);
    const second = await pg.createOrder(input);
    expect(second).toEqual(first);
    expect(fake.orders.size).toBe(1);
    expect(fake.count("PGCreateOrder")).toBe(2);
    expect(fake.count("PGFetchOrder")).toBe(1);
    expect(fake.requests.filter((r) => r.operation === "PGCreateOrder").map((r) => r.body.order_id)).toEqual([input.paymentId, input.paymentId]);
  });

  it("retries a create cut off before its answer with the same order id, and ends with the one order the vendor made", async () => {
    fake.fail("reset", { operation: "PGCreateOrder", times: 1, afterEffect: true });
    const input = order();
    const created = await pg.createOrder(input);
    expect(created.orderId).toBe(input.paymentId);
    expect(fake.orders.size).toBe(1);
    expect(fake.requests.filter((r) => r.operation === "PGCreateOrder").map((r) => r.body.order_id)).toEqual([input.paymentId, input.paymentId]);
  });

  it("retries a create the vendor answered 503 or 429, inside the deadline", async () => {
    fake.fail("503", { operation: "PGCreateOrder", times: 1 });
    fake.fail("429", { operation: "PGCreateOrder", times: 1 });
    await pg.createOrder(order());
    expect(fake.count("PGCreateOrder")).toBe(3);
    expect(fake.orders.size).toBe(1);
  });

  it("never retries a create answered 500 or cut by the deadline (it may have been made); the payment's next try reads that order", async () => {
    fake.fail("500", { operation: "PGCreateOrder", times: 1, afterEffect: true });
    const input = order();
    const error = await refusal(() => pg.createOrder(input));
    expect(error).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, retryAfterSeconds: 5 });
    expect(fake.count("PGCreateOrder")).toBe(1);
    expect(fake.orders.size).toBe(1);
    // The customer retries: the same order comes back, no second one is made.
    const again = await pg.createOrder(input);
    expect(again.orderId).toBe(input.paymentId);
    expect(fake.orders.size).toBe(1);

    const slow = client(300);
    fake.fail("hang", { operation: "PGCreateOrder", times: 1, afterEffect: true });
    const timedOut = order();
    expect(await refusal(() => slow.createOrder(timedOut))).toMatchObject({ code: "SOURCE_TIMEOUT", status: 504, retryAfterSeconds: 5 });
    expect(fake.requests.filter((r) => r.body.order_id === timedOut.paymentId)).toHaveLength(1);
    expect((await pg.createOrder(timedOut)).orderId).toBe(timedOut.paymentId);
    expect(fake.orders.size).toBe(2);
  });

  it("reads an order, null for one the vendor does not have, and retries a read the vendor answered 500", async () => {
    const input = order();
    await pg.createOrder(input);
    fake.fail("500", { operation: "PGFetchOrder", times: 1 });
    expect(await pg.getOrder(input.paymentId)).toMatchObject({ orderId: input.paymentId, status: "ACTIVE", amountPaise: 49_900 });
    expect(fake.count("PGFetchOrder")).toBe(2);
    expect(await pg.getOrder("pay_1764230400000_NoSuchOrder00")).toBeNull();
  });

  it("terminates an active order, and reports the vendor's refusal for a paid or unknown one", async () => {
    const open = order();
    await pg.createOrder(open);
    expect(await pg.terminateOrder(open.paymentId)).toEqual({ orderStatus: "TERMINATED", refusal: null });
    expect(fake.requests.at(-1)).toMatchObject({ method: "PATCH", body: { order_status: "TERMINATED" } });

    const paid = order();
    const created = await pg.createOrder(paid);
    started(await pg.pay(created.paymentSessionId!, { kind: "upi-collect", upiId: "rahul@okbank" }));
    fake.settle(paid.paymentId, "SUCCESS");
    expect(await pg.terminateOrder(paid.paymentId)).toEqual({
      orderStatus: null,
      refusal: { refused: true, httpStatus: 400, vendorCode: "order_terminate_failed" },
    });
    expect((await pg.terminateOrder("pay_1764230400000_NoSuchOrder00")).refusal).toMatchObject({ httpStatus: 404, vendorCode: "order_not_found" });
  });
});

describe("attempts through the payment session", () => {
  async function session(): Promise<{ paymentId: string; sessionId: string }> {
    const input = order();
    const created = await pg.createOrder(input);
    return { paymentId: input.paymentId, sessionId: created.paymentSessionId! };
  }

  it("starts a UPI collect request with the customer's UPI id", async () => {
    const { paymentId, sessionId } = await session();
    const attempt = started(await pg.pay(sessionId, { kind: "upi-collect", upiId: "rahul@okbank" }));
    expect(attempt).toMatchObject({ action: "custom", intentUrl: null, qrCode: null, redirectUrl: null });
    expect(attempt.cfPaymentId).toMatch(/^\d+$/);
    expect(fake.requests.at(-1)!.body).toEqual({ payment_session_id: sessionId, payment_method: { upi: { channel: "collect", upi_id: "rahul@okbank" } } });
    expect(fake.orders.get(paymentId)!.payments).toHaveLength(1);
  });

  it("gives the vendor's refusal of a UPI id as a refusal, not an outage", async () => {
    const { sessionId } = await session();
    expect(await pg.pay(sessionId, { kind: "upi-collect", upiId: `rahul${INVALID_UPI_SUFFIX}` })).toEqual({
      refused: true,
      httpStatus: 400,
      vendorCode: "upi_id_invalid",
    });
    expect(pg.upstream.stats()).toMatchObject({ callsLast5Min: 2, failuresLast5Min: 0, lastError: null });
  });

  it("gives the upi:// link for UPI intent and the QR image for UPI QR", async () => {
    const { sessionId } = await session();
    const intent = started(await pg.pay(sessionId, { kind: "upi-intent" }));
    expect(intent.intentUrl).toMatch(/^upi:\/\/pay\?/);
    expect(fake.requests.at(-1)!.body.payment_method).toEqual({ upi: { channel: "link" } });
    const qr = started(await pg.pay(sessionId, { kind: "upi-qr" }));
    expect(qr.qrCode).toMatch(/^data:image\/png;base64,/);
    expect(fake.requests.at(-1)!.body.payment_method).toEqual({ upi: { channel: "qrcode" } });
  });

  it("gives the bank page for netbanking by bank code", async () => {
    const { sessionId } = await session();
    const attempt = started(await pg.pay(sessionId, { kind: "netbanking", bankCode: 3021 }));
    expect(attempt).toMatchObject({ action: "link", intentUrl: null, qrCode: null });
    expect(attempt.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pg\/view\/redirecttobank\//);
    expect(fake.requests.at(-1)!.body.payment_method).toEqual({ netbanking: { channel: "link", netbanking_bank_code: 3021 } });
  });

  it("reads the order's payments with their outcome, amount and the vendor's error", async () => {
    const { paymentId, sessionId } = await session();
    started(await pg.pay(sessionId, { kind: "upi-collect", upiId: "rahul@okbank" }));
    fake.settle(paymentId, "FAILED");
    started(await pg.pay(sessionId, { kind: "upi-qr" }));
    fake.settle(paymentId, "SUCCESS");
    const payments = await pg.getPayments(paymentId);
    expect(payments).toHaveLength(2);
    expect(payments[0]).toMatchObject({ orderId: paymentId, status: "FAILED", amountPaise: 49_900, group: "upi", errorCode: "TRANSACTION_DECLINED" });
    expect(payments[1]).toMatchObject({ status: "SUCCESS", amountPaise: 49_900, errorCode: null });
    expect(payments[1]!.bankReference).toMatch(/^\d+$/);
    expect(await pg.getPayments("pay_1764230400000_NoSuchOrder00")).toEqual([]);
  });

  it("does not retry an attempt answered 500 (the customer may have been asked to pay)", async () => {
    const { sessionId } = await session();
    fake.fail("500", { operation: "PGPayOrder", times: 1 });
    expect(await refusal(() => pg.pay(sessionId, { kind: "upi-collect", upiId: "rahul@okbank" }))).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(fake.count("PGPayOrder")).toBe(1);
  });
});

describe("refunds", () => {
  async function paidOrder(): Promise<string> {
    const input = order();
    const created = await pg.createOrder(input);
    started(await pg.pay(created.paymentSessionId!, { kind: "upi-collect", upiId: "rahul@okbank" }));
    fake.settle(input.paymentId, "SUCCESS");
    return input.paymentId;
  }

  it("sends a refund with Parakh's refund id and reads it back once the vendor settles it", async () => {
    const orderId = await paidOrder();
    const refund = taken(await pg.createRefund(orderId, { refundId: "rfnd_AbCdEfGh12345678", amountPaise: 10_050, note: "Customer asked" }));
    expect(refund).toMatchObject({ refundId: "rfnd_AbCdEfGh12345678", status: "PENDING", amountPaise: 10_050 });
    expect(fake.requests.at(-1)!.body).toEqual({ refund_amount: 100.5, refund_id: "rfnd_AbCdEfGh12345678", refund_note: "Customer asked" });
    fake.settleRefund("rfnd_AbCdEfGh12345678", "SUCCESS");
    expect(await pg.getRefund(orderId, "rfnd_AbCdEfGh12345678")).toMatchObject({ status: "SUCCESS", amountPaise: 10_050 });
    expect(await pg.getRefund(orderId, "rfnd_NoSuchRefund000")).toBeNull();
  });

  it("answers a refund sent again (a retried job) by reading the one the vendor has, never refunding twice", async () => {
    const orderId = await paidOrder();
    const first = taken(await pg.createRefund(orderId, { refundId: "rfnd_Retried000000001", amountPaise: 20_000 }));
    const again = taken(await pg.createRefund(orderId, { refundId: "rfnd_Retried000000001", amountPaise: 20_000 }));
    expect(again.cfRefundId).toBe(first.cfRefundId);
    fake.fail("reset", { operation: "PGOrderCreateRefund", times: 1, afterEffect: true });
    const cut = taken(await pg.createRefund(orderId, { refundId: "rfnd_Retried000000002", amountPaise: 20_000 }));
    expect(cut.refundId).toBe("rfnd_Retried000000002");
    expect(fake.orders.get(orderId)!.refunds.size).toBe(2);
  });

  it("gives the vendor's refusal of a refund (more than is refundable, an order not paid) as a refusal", async () => {
    const orderId = await paidOrder();
    expect(await pg.createRefund(orderId, { refundId: "rfnd_TooMuch000000001", amountPaise: 49_901 })).toEqual({
      refused: true,
      httpStatus: 400,
      vendorCode: "refund_amount_invalid",
    });
    const unpaid = order();
    await pg.createOrder(unpaid);
    expect(await pg.createRefund(unpaid.paymentId, { refundId: "rfnd_Unpaid0000000001", amountPaise: 100 })).toMatchObject({ refused: true, httpStatus: 400 });
  });
});

describe("failures of the vendor, as Parakh's codes", () => {
  it("maps a refused account to 503 with the family shown misconfigured", async () => {
    fake.fail("401", { times: 1 });
    const error = await refusal(() => pg.getOrder("pay_1764230400000_AnyOrder000000"));
    expect(error).toBeInstanceOf(UpstreamAccountRefused);
    expect(error).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503 });
    expect(pg.upstream.stats()).toMatchObject({ family: "payments", misconfigured: true });
  });

  it("maps a rate limit to 503 with the vendor's Retry-After after the retries", async () => {
    fake.fail("429", { retryAfter: "7" });
    expect(await refusal(() => pg.createOrder(order()))).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterSeconds: 7 });
    expect(fake.count("PGCreateOrder")).toBe(3);
    expect(fake.orders.size).toBe(0);
  });

  it("maps an unreadable or oversized answer to 502, and a refused connection to 503", async () => {
    fake.fail("malformed-json", { times: 1 });
    expect(await refusal(() => pg.createOrder(order()))).toMatchObject({ code: "UPSTREAM_ERROR", status: 502 });
    // The order's own answer, valid but padded past 1 MiB: read, it would be the order.
    const made = await pg.createOrder(order());
    fake.fail("huge-body", { times: 1 });
    expect(await refusal(() => pg.getOrder(made.orderId))).toMatchObject({ code: "UPSTREAM_ERROR", status: 502 });
    expect((await pg.getOrder(made.orderId))?.orderId).toBe(made.orderId);
    const closed = new CashfreePgClient({ baseUrl: "http://127.0.0.1:9/pg", ...CREDENTIALS, timeoutMs: 2_000, maxConcurrency: 8 }, APP_URL, quiet, {
      retryDelayMs: 10,
      listed: false,
    });
    expect(await refusal(() => closed.getOrder("pay_1764230400000_AnyOrder000000"))).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503 });
  });

  it("opens the payments breaker after five failures in a row: further calls fail at once without reaching the vendor", async () => {
    fake.fail("500", { operation: "PGCreateOrder" });
    for (let i = 0; i < 5; i++) await refusal(() => pg.createOrder(order()));
    const reached = fake.count();
    const error = await refusal(() => pg.createOrder(order()));
    expect(error).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(fake.count()).toBe(reached);
    expect(pg.upstream.stats()).toMatchObject({ breaker: "open" });
  });
});

describe("the fake's webhooks", () => {
  let receiver: http.Server;
  let receiverUrl = "";
  const received: { raw: Buffer; headers: http.IncomingHttpHeaders }[] = [];

  beforeEach(async () => {
    received.length = 0;
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const raw = Buffer.concat(chunks);
        received.push({ raw, headers: req.headers });
        const verdict = verifyCashfreeWebhook(raw, req.headers as Record<string, string>, CREDENTIALS.clientSecret);
        res.writeHead(verdict.ok ? 200 : 401).end(verdict.ok ? "ok" : verdict.reason);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/providers/cashfree/webhook`;
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it("sends the vendor's payment and refund webhooks, signed over the raw body with amounts in two decimals", async () => {
    const input = order();
    const created = await pg.createOrder(input);
    started(await pg.pay(created.paymentSessionId!, { kind: "upi-collect", upiId: "rahul@okbank" }));
    const success = fake.settle(input.paymentId, "SUCCESS");
    expect(success).toMatchObject({ type: "PAYMENT_SUCCESS_WEBHOOK", data: { order: { order_id: input.paymentId }, payment: { payment_status: "SUCCESS" } } });
    const sent = await fake.sendWebhook(receiverUrl, success);
    expect(sent.status).toBe(200);
    expect(sent.rawBody.toString()).toContain('"payment_amount":499.00');
    expect(received[0]!.raw.equals(sent.rawBody)).toBe(true);

    const refund = taken(await pg.createRefund(input.paymentId, { refundId: "rfnd_Webhook000000001", amountPaise: 100 }));
    const refunded = fake.settleRefund(refund.refundId, "SUCCESS");
    expect(refunded).toMatchObject({ type: "REFUND_STATUS_WEBHOOK", data: { refund: { refund_id: "rfnd_Webhook000000001", refund_status: "SUCCESS" } } });
    expect((await fake.sendWebhook(receiverUrl, refunded)).status).toBe(200);
  });

  it("can send a wrong, missing or stale signature, and the same webhook twice or out of order", async () => {
    const input = order();
    const created = await pg.createOrder(input);
    started(await pg.pay(created.paymentSessionId!, { kind: "upi-collect", upiId: "rahul@okbank" }));
    const failed = fake.settle(input.paymentId, "FAILED");
    expect(failed).toMatchObject({ type: "PAYMENT_FAILED_WEBHOOK", data: { error_details: { error_code: "TRANSACTION_DECLINED" } } });
    started(await pg.pay(created.paymentSessionId!, { kind: "upi-qr" }));
    const success = fake.settle(input.paymentId, "SUCCESS");

    expect(await fake.sendWebhook(receiverUrl, success, { signature: "wrong" })).toMatchObject({ status: 401, body: "bad-signature" });
    expect(await fake.sendWebhook(receiverUrl, success, { signature: "missing" })).toMatchObject({ status: 401, body: "missing-signature" });
    expect(await fake.sendWebhook(receiverUrl, success, { timestampMs: Date.now() - 6 * 60_000 })).toMatchObject({ status: 401, body: "stale" });
    // Success first, then the earlier failure, then the success again.
    for (const webhook of [success, failed, success]) expect((await fake.sendWebhook(receiverUrl, webhook)).status).toBe(200);
    expect(received.slice(-3).map((r) => JSON.parse(r.raw.toString()).type)).toEqual([
      "PAYMENT_SUCCESS_WEBHOOK",
      "PAYMENT_FAILED_WEBHOOK",
      "PAYMENT_SUCCESS_WEBHOOK",
    ]);
  });

  it("reports another amount when told to, in the vendor's payload", async () => {
    const input = order();
    const created = await pg.createOrder(input);
    started(await pg.pay(created.paymentSessionId!, { kind: "upi-collect", upiId: "rahul@okbank" }));
    const webhook = fake.settle(input.paymentId, "SUCCESS", { amountPaise: 100 });
    expect(webhook.data.payment.payment_amount).toBe(1);
    expect(webhook.data.order.order_amount).toBe(499);
  });
});

describe("live payment settings", () => {
  const base = () => settingsEnv("parakh-live-pg-");

  it("default to no processor, the vendor's production host, a 15 s deadline, the shared concurrency and no rate limit", () => {
    expect(configFrom(base()).livePayments).toEqual({
      provider: "none",
      cashfree: { baseUrl: "https://api.cashfree.com/pg", clientId: "", clientSecret: "" },
      timeoutMs: 15_000,
      maxConcurrency: 64,
      maxRps: 0,
    });
    expect(PAYMENTS_TIMEOUT_MS).toBe(15_000);
    // The verification deadline setting does not shorten payment calls.
    expect(configFrom({ ...base(), UPSTREAM_TIMEOUT_MS: "3000" }).livePayments.timeoutMs).toBe(15_000);
  });

  it("refuse to start with cashfree chosen and a credential missing, naming it", () => {
    expect(() => configFrom({ ...base(), LIVE_PAYMENT_PROVIDER: "cashfree", CASHFREE_PG_CLIENT_ID: "id" })).toThrow(
      /CASHFREE_PG_CLIENT_SECRET: required when LIVE_PAYMENT_PROVIDER=cashfree/,
    );
    expect(() => configFrom({ ...base(), LIVE_PAYMENT_PROVIDER: "cashfree" })).toThrow(/CASHFREE_PG_CLIENT_ID/);
    expect(() => configFrom({ ...base(), LIVE_PAYMENT_PROVIDER: "stripe" })).toThrow(/LIVE_PAYMENT_PROVIDER/);
    const chosen = configFrom({ ...base(), LIVE_PAYMENT_PROVIDER: "cashfree", CASHFREE_PG_CLIENT_ID: "id", CASHFREE_PG_CLIENT_SECRET: "secret" });
    expect(chosen.livePayments).toMatchObject({ provider: "cashfree", cashfree: { clientId: "id", clientSecret: "secret" } });
  });

  it("refuse a plain-http base URL unless it is a loopback address", () => {
    const creds = { LIVE_PAYMENT_PROVIDER: "cashfree", CASHFREE_PG_CLIENT_ID: "id", CASHFREE_PG_CLIENT_SECRET: "secret" };
    expect(() => configFrom({ ...base(), ...creds, CASHFREE_PG_BASE_URL: "http://api.cashfree.com/pg" })).toThrow(/CASHFREE_PG_BASE_URL: must be https/);
    for (const url of ["http://127.0.0.1:4010/pg", "http://localhost:4010/pg/", "http://[::1]:4010"]) {
      expect(configFrom({ ...base(), ...creds, CASHFREE_PG_BASE_URL: url }).livePayments.cashfree.baseUrl).toBe(url.replace(/\/$/, ""));
    }
  });
});
