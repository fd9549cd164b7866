import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/server/db/client";
import type { PaymentProcessor } from "@/server/providers/payments/types";
import { serveFakeVendorCheckout } from "../helpers/fake-cashfree-checkout";
import { type FakeCashfreePg, type SendOptions } from "../helpers/fake-cashfree-pg";
import { request } from "../helpers/http";
import { checkVendorCalls, startLivePayments, stopLivePayments, type LivePayments } from "../helpers/live-payments";
import { DB_TARGETS, type Started } from "../helpers/targets";
import { sleep, waitFor } from "../helpers/wait";

// Live payments through a loopback fake of the Cashfree Payment Gateway that validates every call
// and webhook against the vendor's OpenAPI document. The server runs as an operator would run it
// (LIVE_PAYMENT_PROVIDER=cashfree); the hosted page's pay and leave actions run in this process
// against the server's database, with a processor on the same fake.
const CREDENTIALS = { clientId: "CF_PG_LIVE_TEST", clientSecret: "cfsk_ma_pg_live_test_secret" };

describe.each(DB_TARGETS)("live payments through the vendor on %s", (target) => {
  let vendor: FakeCashfreePg;
  let env: Started;
  let db: Db;
  let headers: Record<string, string>;
  let processors: Record<"sandbox" | "live", PaymentProcessor>;
  let checkout: typeof import("@/server/services/payments/checkout-page");
  let seq = 0;
  let live: LivePayments | undefined;

  beforeAll(async () => {
    live = await startLivePayments(target, "Live Shop", CREDENTIALS);
    ({ vendor, env, db, headers, processors } = live);
    // The vendor's browser pages too: the bank's page a netbanking attempt goes to.
    serveFakeVendorCheckout(vendor);
    checkout = await import("@/server/services/payments/checkout-page");
  }, 90_000);
  afterEach(() => checkVendorCalls(live));
  afterAll(() => stopLivePayments(live));

  const api = (path: string, body?: unknown) => request(env.server.url, path, { method: body === undefined ? "GET" : "POST", body, headers });
  const status = async (paymentId: string) => (await api(`/api/payments/${paymentId}/status`)).json.data;
  const hook = (payload: unknown, options?: SendOptions) => vendor.sendWebhook(`${env.server.url}/api/providers/cashfree/webhook`, payload, options);
  const recorded = () => db.processorWebhook.count();
  const events = (paymentId: string, type: string) => db.webhookEvent.count({ where: { subjectId: paymentId, type } });

  async function create(amount = "499.00") {
    const r = await api("/api/checkout", {
      orderId: `ORDER_LIVE_${target}_${Date.now()}_${seq++}`,
      amount,
      redirectUrl: "https://shop.example/return",
      meta: { name: "Asha Rao", email: "asha@example.com", phone: "+919876543210" },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return r.json.data.paymentId as string;
  }
  const payUpi = (paymentId: string, vpa = "asha@okbank") => checkout.payFromCheckout(db, processors, paymentId, { method: "UPI", flow: "collect", vpa });
  const waitStatus = (paymentId: string, want: string) => waitFor(`payment ${want}`, async () => ((await status(paymentId)).status === want ? true : null));

  it("warns once at start that live payments on a loopback APP_URL cannot get the vendor's webhooks", () => {
    const warnings = env.server.logs().match(/"level":"warn"[^\n]*APP_URL is http:\/\/127\.0\.0\.1:\d+, but live payments are on/g) ?? [];
    expect(warnings).toHaveLength(1);
  });

  it("takes a UPI collect payment end to end: vendor webhook → SUCCESS, the merchant's event and signed redirect", async () => {
    const paymentId = await create();
    const pending = await payUpi(paymentId);
    expect(pending).toMatchObject({ status: "PENDING" });
    expect(vendor.orders.get(paymentId)!.entity).toMatchObject({ order_amount: 499, order_status: "ACTIVE" });
    const webhook = vendor.settle(paymentId, "SUCCESS");
    const before = await recorded();
    const answer = await hook(webhook);
    expect(answer.status, answer.body).toBe(200);
    expect(await recorded()).toBe(before + 1);
    await waitStatus(paymentId, "SUCCESS");
    const done = await status(paymentId);
    expect(done).toMatchObject({ status: "SUCCESS", isFinal: true, method: "UPI", bankReference: webhook.data.payment.bank_reference, mode: "live" });
    expect(done.attempts).toEqual([expect.objectContaining({ status: "SUCCESS", method: "UPI" })]);
    expect(await events(paymentId, "payment.success")).toBe(1);
    // The redirect the hosted page sends the customer to carries the merchant's signature.
    const { redirectTarget } = await import("@/server/services/payments/lifecycle");
    const back = new URL((await redirectTarget(db, paymentId))!);
    const q = Object.fromEntries(back.searchParams);
    const verified = await api("/api/payments/verify", { paymentId, orderId: q.orderId, status: q.status, signature: q.signature });
    expect(verified.json.data).toMatchObject({ verified: true, status: "SUCCESS" });
    // The record keeps what the work needs, nothing about the customer or the instrument.
    const row = await db.processorWebhook.findFirstOrThrow({ orderBy: { receivedAt: "desc" } });
    expect(row.eventType).toBe("PAYMENT_SUCCESS_WEBHOOK");
    expect(row.summary).not.toMatch(/asha|9876543210|okbank/i);
  });

  it("sends a netbanking customer to the bank's page the vendor names, shown again after a reload; the bank's answer pays", async () => {
    const paymentId = await create();
    const started = await checkout.payFromCheckout(db, processors, paymentId, { method: "NETBANKING", bank: "HDFC Bank" });
    const payRequest = vendor.requests.filter((r) => r.operation === "PGPayOrder").at(-1)!;
    expect(payRequest.body.payment_method).toEqual({ netbanking: { channel: "link", netbanking_bank_code: 3021 } });
    // The vendor's Order Pay answer: action "link", the bank's page in data.url.
    const cfPaymentId = vendor.orders.get(paymentId)!.payments.at(-1)!.cf_payment_id as string;
    const bankPage = `${vendor.url}/view/redirecttobank/${cfPaymentId}`;
    expect(started).toMatchObject({ status: "PENDING", attempt: { method: "NETBANKING", bank: "HDFC Bank", action: { kind: "redirect", url: bankPage } } });
    expect((await checkout.checkoutState(db, paymentId)).attempt?.action).toEqual({ kind: "redirect", url: bankPage });

    // The customer authorises on the bank's page; the vendor sends its webhook and the customer back to the hosted page.
    const answer = await fetch(bankPage, { method: "POST", body: new URLSearchParams({ outcome: "SUCCESS" }), redirect: "manual" });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(`${env.server.url}/checkout/${paymentId}`);
    await waitStatus(paymentId, "SUCCESS");
    expect(await status(paymentId)).toMatchObject({ method: "NETBANKING", attempts: [expect.objectContaining({ status: "SUCCESS", method: "NETBANKING" })] });
    expect((await checkout.checkoutState(db, paymentId)).attempt?.action).toBeNull();
  });

  it("refuses a card sent to a live payment's page before anything uses it: no attempt, no order", async () => {
    const paymentId = await create();
    const card = { number: "4111111111111111", expiryMonth: 12, expiryYear: 2030, cvv: "123", name: "Asha Rao" };
    await expect(checkout.payFromCheckout(db, processors, paymentId, { method: "CARD", card } as never)).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    expect(await db.paymentAttempt.count({ where: { paymentId } })).toBe(0);
    expect(vendor.orders.has(paymentId)).toBe(false);
  });

  it("finds a success whose webhook was lost by asking the vendor at 2 minutes, then 5, 10 and 15", async () => {
    const { reconcileAttempt } = await import("@/server/services/payments/reconcile");
    const paymentId = await create();
    await payUpi(paymentId);
    const attempt = await db.paymentAttempt.findFirstOrThrow({ where: { paymentId } });
    const job = await db.job.findFirstOrThrow({ where: { type: "payment.reconcile", subjectId: attempt.id } });
    expect(job.runAt.getTime() - attempt.createdAt.getTime()).toBe(2 * 60_000);
    const at = (minutes: number) => new Date(attempt.createdAt.getTime() + minutes * 60_000);
    // Still pending at the vendor: asked again at 5 minutes, and nothing after 15.
    expect(await reconcileAttempt(db, processors, attempt.id, at(2))).toEqual(at(5));
    expect(await reconcileAttempt(db, processors, attempt.id, at(10))).toEqual(at(15));
    expect(await reconcileAttempt(db, processors, attempt.id, at(15))).toBeNull();
    // Paid at the vendor, its webhook never sent.
    vendor.settle(paymentId, "SUCCESS");
    expect(await reconcileAttempt(db, processors, attempt.id, at(5))).toBeNull();
    expect((await status(paymentId)).status).toBe("SUCCESS");
    expect(await events(paymentId, "payment.success")).toBe(1);
    expect(await reconcileAttempt(db, processors, attempt.id, at(10))).toBeNull();
    expect(await events(paymentId, "payment.success")).toBe(1);
  });

  it("polls a pending attempt through the job queue at 2, 5, 10 and 15 minutes, then stops (the test moves the clock)", async () => {
    const { JobRunner } = await import("@/server/jobs/runner");
    const { JOB_HANDLERS } = await import("@/server/job-handlers/handlers");
    const reconcile = JOB_HANDLERS.find((h) => h.job.type === "payment.reconcile")!;
    const paymentId = await create();
    await payUpi(paymentId);
    const attempt = await db.paymentAttempt.findFirstOrThrow({ where: { paymentId } });
    const job = () => db.job.findFirstOrThrow({ where: { type: "payment.reconcile", subjectId: attempt.id } });
    const polls = () => vendor.requests.filter((r) => r.operation === "PGOrderFetchPayments" && r.params.order_id === paymentId).length;
    const at = (minutes: number) => attempt.createdAt.getTime() + minutes * 60_000;
    // A runner of this job alone, in this process, on a clock the test moves (the server's runner
    // keeps the real time, at which none of these polls is due yet).
    const runner = new JobRunner(db, { pollMs: 20, leaseMs: 5_000 });
    reconcile.register(runner, { services: { db, paymentProcessors: processors }, deliverySlots: undefined } as never);
    /** waitFor's own deadline reads the faked clock: this one reads the real time. */
    const until = async (what: string, done: () => Promise<boolean>) => {
      const end = performance.now() + 15_000;
      while (!(await done())) {
        if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
        await sleep(20);
      }
    };
    vi.useFakeTimers({ toFake: ["Date"], now: at(0) });
    runner.start();
    try {
      expect(polls()).toBe(0);
      for (const [i, minutes] of [2, 5, 10, 15].entries()) {
        expect((await job()).runAt.getTime()).toBe(at(minutes));
        vi.setSystemTime(at(minutes) + 1_000);
        await until(`the poll at ${minutes} minutes`, async () => {
          const j = await job();
          return polls() === i + 1 && (j.status === "DONE" || (j.status === "QUEUED" && j.runAt.getTime() > at(minutes)));
        });
      }
      // Still pending at the vendor after the last poll: the job is done, and nothing more is asked.
      expect((await job()).status).toBe("DONE");
      vi.setSystemTime(at(60));
      await sleep(300);
      expect(polls()).toBe(4);
      expect((await status(paymentId)).status).toBe("PENDING");
    } finally {
      await runner.stop();
      vi.useRealTimers();
    }
  });

  it("refuses forged, unsigned, stale and tampered webhooks with 401 and changes nothing; a replay is one", async () => {
    const paymentId = await create();
    await payUpi(paymentId);
    const webhook = vendor.settle(paymentId, "SUCCESS");
    const before = await recorded();
    const right = vendor.signedWebhook(webhook);
    const tampered = Buffer.from(right.rawBody.toString().replace('"payment_amount":499.00', '"payment_amount":1.00'));
    expect(tampered.equals(right.rawBody)).toBe(false);
    for (const options of [
      { signature: "wrong" },
      { signature: "missing" },
      { rawBody: Buffer.from("{not json"), signature: "wrong" },
      { timestampMs: Date.now() - 6 * 60_000 },
      { timestampMs: Date.now() + 6 * 60_000 },
      { rawBody: tampered, timestampMs: Number(right.headers["x-webhook-timestamp"]), signature: { value: right.headers["x-webhook-signature"]! } },
    ] as SendOptions[]) {
      const answer = await hook(webhook, options);
      expect(answer.status, JSON.stringify(options)).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ success: false, error: { code: "UNAUTHORIZED" } });
    }
    await sleep(500);
    expect(await recorded()).toBe(before);
    expect((await status(paymentId)).status).toBe("PENDING");
    // The same delivery twice (the vendor's retry, or a replay inside the window): recorded once.
    const replay = { rawBody: right.rawBody, timestampMs: Number(right.headers["x-webhook-timestamp"]) };
    expect((await hook(webhook, replay)).status).toBe(200);
    expect((await hook(webhook, replay)).status).toBe(200);
    expect(await recorded()).toBe(before + 1);
    await waitStatus(paymentId, "SUCCESS");
    expect(await events(paymentId, "payment.success")).toBe(1);
  });

  it("refuses a body past 64 KiB and any method but POST, recording nothing", async () => {
    const before = await recorded();
    const big = await hook({ type: "PAYMENT_SUCCESS_WEBHOOK", data: { padding: "x".repeat(70_000) } });
    expect(big.status).toBe(413);
    const get = await request(env.server.url, "/api/providers/cashfree/webhook");
    expect([get.status, get.headers.allow]).toEqual([405, "POST"]);
    expect(await recorded()).toBe(before);
  });

  it("keeps recorded webhooks for the audit log's retention, then deletes them", async () => {
    const { purgeOldProcessorWebhooks } = await import("@/server/services/payments/processor-webhooks");
    const old = { provider: "cashfree", eventType: "PAYMENT_SUCCESS_WEBHOOK", summary: "{}" };
    const day = 86_400_000;
    await db.processorWebhook.create({ data: { ...old, id: `pwh_old_${target}`, bodyHash: `old-${target}`, receivedAt: new Date(Date.now() - 11 * day) } });
    await db.processorWebhook.create({ data: { ...old, id: `pwh_new_${target}`, bodyHash: `new-${target}`, receivedAt: new Date(Date.now() - 9 * day) } });
    expect(await purgeOldProcessorWebhooks(db, 10)).toBe(1);
    expect(await db.processorWebhook.findUnique({ where: { id: `pwh_new_${target}` } })).not.toBeNull();
    await db.processorWebhook.delete({ where: { id: `pwh_new_${target}` } });
  });

  it("applies duplicate and out-of-order webhooks once", async () => {
    const paymentId = await create();
    await payUpi(paymentId);
    const success = vendor.settle(paymentId, "SUCCESS");
    const failed = structuredClone(success);
    failed.type = "PAYMENT_FAILED_WEBHOOK";
    failed.data.payment.payment_status = "FAILED";
    // A failure report older than the success arrives first, then the success twice.
    for (const payload of [failed, success, { ...structuredClone(success), event_time: new Date(Date.now() + 1000).toISOString() }]) {
      expect((await hook(payload)).status).toBe(200);
    }
    await waitStatus(paymentId, "SUCCESS");
    await sleep(1_500);
    const done = await status(paymentId);
    expect(done.status).toBe("SUCCESS");
    expect(done.attempts).toEqual([expect.objectContaining({ status: "SUCCESS" })]);
    expect(await events(paymentId, "payment.success")).toBe(1);
    expect(await events(paymentId, "payment.failed")).toBe(0);
  });

  it("fails the attempt when the vendor reports another amount, logging it at error", async () => {
    const paymentId = await create();
    await payUpi(paymentId);
    expect((await hook(vendor.settle(paymentId, "SUCCESS", { amountPaise: 100 }))).status).toBe(200);
    await waitStatus(paymentId, "FAILED");
    const failed = await status(paymentId);
    expect(failed.attempts).toEqual([expect.objectContaining({ status: "FAILED", errorCode: "AMOUNT_MISMATCH" })]);
    expect(failed.paidAt).toBeNull();
    await waitFor("the error log line", () => /"level":"error"[^\n]*payment processor reported another amount/.test(env.server.logs()));
  });

  it("fails the attempt when the vendor reports a success in another currency, however right the amount", async () => {
    const paymentId = await create();
    await payUpi(paymentId);
    const webhook = vendor.settle(paymentId, "SUCCESS", { currency: "USD" });
    expect(webhook.data.payment).toMatchObject({ payment_amount: 499, payment_currency: "USD" });
    expect((await hook(webhook)).status).toBe(200);
    await waitStatus(paymentId, "FAILED");
    const failed = await status(paymentId);
    expect(failed.attempts).toEqual([expect.objectContaining({ status: "FAILED", errorCode: "AMOUNT_MISMATCH" })]);
    expect(failed.paidAt).toBeNull();
    expect(await events(paymentId, "payment.success")).toBe(0);
    await waitFor("the error log line", () =>
      /"level":"error"[^\n]*payment processor reported another amount[^\n]*"reportedCurrency":"USD"/.test(env.server.logs()),
    );
  });

  it("answers the vendor's 5xx on the order with 503 and nothing half-made; the retry reuses the one order", async () => {
    const paymentId = await create();
    vendor.fail("500", { operation: "PGCreateOrder", times: 1, afterEffect: true });
    await expect(payUpi(paymentId)).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      status: 503,
      retryAfterSeconds: 5,
      // The customer's words, not the vendor's details.
      message: "We couldn't reach the payment network just now. Please try again in a moment.",
    });
    const untouched = await status(paymentId);
    expect(untouched).toMatchObject({ status: "CREATED", attempts: [] });
    expect(await db.paymentEvent.count({ where: { paymentId } })).toBe(1);
    expect(await payUpi(paymentId)).toMatchObject({ status: "PENDING" });
    expect([...vendor.orders.keys()].filter((id) => id === paymentId)).toHaveLength(1);
    expect(vendor.requests.filter((r) => r.operation === "PGCreateOrder" && r.body.order_id === paymentId)).toHaveLength(2);
    // A declined attempt, then a retry on the same order that pays.
    expect((await hook(vendor.settle(paymentId, "FAILED"))).status).toBe(200);
    await waitStatus(paymentId, "FAILED");
    await payUpi(paymentId, "asha@okotherbank");
    expect(vendor.orders.get(paymentId)!.payments).toHaveLength(2);
    expect((await hook(vendor.settle(paymentId, "SUCCESS"))).status).toBe(200);
    await waitStatus(paymentId, "SUCCESS");
    expect((await status(paymentId)).attempts.map((a: { status: string; errorCode: string | null }) => [a.status, a.errorCode])).toEqual([
      ["FAILED", "PAYMENT_DECLINED"],
      ["SUCCESS", null],
    ]);
  });

  it("refunds a late success after the customer cancelled, and settles the refund by the vendor's webhook", async () => {
    const paymentId = await create();
    await payUpi(paymentId);
    await checkout.abandonFromCheckout(db, processors, paymentId, "cancel");
    expect((await status(paymentId)).status).toBe("CANCELLED");
    expect(vendor.orders.get(paymentId)!.entity.order_status).toBe("TERMINATED");
    expect((await hook(vendor.settle(paymentId, "SUCCESS"))).status).toBe(200);
    const refund = await waitFor("the automatic refund at the vendor", async () => {
      const r = await db.refund.findFirst({ where: { paymentId } });
      return r && vendor.orders.get(paymentId)!.refunds.has(r.id) ? r : null;
    });
    expect(refund).toMatchObject({ reason: "AUTO_REFUND_LATE_ATTEMPT", amountPaise: 49_900, status: "PENDING" });
    expect((await status(paymentId)).status).toBe("CANCELLED");
    expect((await hook(vendor.settleRefund(refund.id, "SUCCESS"))).status).toBe(200);
    await waitFor("the refund processed", async () => (await db.refund.findUnique({ where: { id: refund.id } }))?.status === "PROCESSED");
  });

  it("settles merchant refunds by the vendor's refund webhooks: SUCCESS → PROCESSED, CANCELLED → FAILED", async () => {
    const paymentId = await create();
    await payUpi(paymentId);
    expect((await hook(vendor.settle(paymentId, "SUCCESS"))).status).toBe(200);
    await waitStatus(paymentId, "SUCCESS");
    const first = await api(`/api/payments/${paymentId}/refunds`, { amount: "100.00" });
    const second = await api(`/api/payments/${paymentId}/refunds`, { amount: "50.00" });
    const ids = [first, second].map((r) => {
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      return r.json.data.refundId as string;
    });
    await waitFor("both refunds at the vendor", () => ids.every((id) => vendor.orders.get(paymentId)!.refunds.has(id)));
    expect(vendor.orders.get(paymentId)!.refunds.get(ids[0]!)).toMatchObject({ refund_id: ids[0], refund_amount: 100 });
    expect((await hook(vendor.settleRefund(ids[0]!, "SUCCESS"))).status).toBe(200);
    expect((await hook(vendor.settleRefund(ids[1]!, "CANCELLED"))).status).toBe(200);
    const view = (id: string) => api(`/api/refunds/${id}`).then((r) => r.json.data);
    await waitFor("the refunds settled", async () => (await view(ids[0]!)).status === "PROCESSED" && (await view(ids[1]!)).status === "FAILED");
    expect(await status(paymentId)).toMatchObject({ amountRefunded: "100.00", refundStatus: "PARTIAL" });
  });
  /** A late success after the customer cancelled: its automatic refund, as the vendor first sees it. */
  async function lateSuccessAfterCancel() {
    const paymentId = await create("250.00");
    await payUpi(paymentId);
    await checkout.abandonFromCheckout(db, processors, paymentId, "cancel");
    return { paymentId, webhook: vendor.settle(paymentId, "SUCCESS") };
  }
  const refundOf = (paymentId: string) => waitFor("the automatic refund", () => db.refund.findFirst({ where: { paymentId } }));
  const failedEvent = (refundId: string) =>
    db.webhookEvent.findFirst({ where: { type: "refund.failed", subjectId: refundId } }).then((e) => (e ? JSON.parse(e.body) : null));

  it("retries an automatic refund the vendor cannot take (5xx) under the same refund id, one refund at the vendor", async () => {
    vendor.fail("500", { operation: "PGOrderCreateRefund", times: 2 });
    const { paymentId, webhook } = await lateSuccessAfterCancel();
    expect((await hook(webhook)).status).toBe(200);
    const refund = await refundOf(paymentId);
    await waitFor("the refund at the vendor after two 5xx", () => vendor.orders.get(paymentId)!.refunds.has(refund.id), 20_000);
    const tries = vendor.requests.filter((r) => r.operation === "PGOrderCreateRefund" && r.params.order_id === paymentId);
    expect(tries.map((r) => r.body.refund_id)).toEqual([refund.id, refund.id, refund.id]);
    expect(vendor.orders.get(paymentId)!.refunds.size).toBe(1);
    const job = await db.job.findFirstOrThrow({ where: { type: "refund.process", subjectId: refund.id } });
    expect(job).toMatchObject({ attempts: 3, maxAttempts: 24 });
    expect((await db.refund.findUniqueOrThrow({ where: { id: refund.id } })).status).toBe("PENDING");
    expect((await hook(vendor.settleRefund(refund.id, "SUCCESS"))).status).toBe(200);
    await waitFor("the refund processed", async () => (await db.refund.findUnique({ where: { id: refund.id } }))?.status === "PROCESSED");
  });

  it("fails an automatic refund the vendor cancels: the merchant gets refund.failed and operators see it", async () => {
    const { automaticRefundsNeedingAttention } = await import("@/server/services/operations/automatic-refunds");
    const { paymentId, webhook } = await lateSuccessAfterCancel();
    expect((await hook(webhook)).status).toBe(200);
    const refund = await refundOf(paymentId);
    await waitFor("the refund at the vendor", () => vendor.orders.get(paymentId)!.refunds.has(refund.id));
    expect((await hook(vendor.settleRefund(refund.id, "CANCELLED"))).status).toBe(200);
    const event = await waitFor("the merchant's refund.failed", () => failedEvent(refund.id));
    expect(event.data.refund).toMatchObject({
      refundId: refund.id,
      paymentId,
      status: "FAILED",
      automatic: true,
      amount: "250.00",
      reason: "AUTO_REFUND_LATE_ATTEMPT",
      failureReason: "The payment processor reported the refund CANCELLED: the money did not go back to the customer.",
    });
    expect(event.data.payment).toMatchObject({ paymentId, status: "CANCELLED" });
    expect((await api(`/api/refunds/${refund.id}`)).json.data).toMatchObject({ status: "FAILED", automatic: true });
    const listed = (await automaticRefundsNeedingAttention(db)).find((r) => r.refundId === refund.id);
    expect(listed).toMatchObject({ paymentId, status: "FAILED", amount: "250.00", merchantName: "Live Shop", mode: "live" });
    expect(listed!.reason).toContain("CANCELLED");
    await waitFor("the error log line", () => /"level":"error"[^\n]*payment processor failed an automatic refund/.test(env.server.logs()));
    // The vendor's later word of success for it is not applied, but logged for operators.
    expect((await hook(vendor.settleRefund(refund.id, "SUCCESS"))).status).toBe(200);
    await waitFor("the error log line", () => /"level":"error"[^\n]*processed a refund recorded as failed/.test(env.server.logs()));
    expect((await db.refund.findUniqueOrThrow({ where: { id: refund.id } })).status).toBe("FAILED");
  });

  it("fails an automatic refund the vendor refuses at once, and one it never answers once its tries run out", async () => {
    const { automaticRefundsNeedingAttention } = await import("@/server/services/operations/automatic-refunds");
    vendor.fail("400", { operation: "PGOrderCreateRefund", times: 1 });
    const refused = await lateSuccessAfterCancel();
    expect((await hook(refused.webhook)).status).toBe(200);
    const first = await refundOf(refused.paymentId);
    const event = await waitFor("refund.failed after the refusal", () => failedEvent(first.id));
    expect(event.data.refund).toMatchObject({ status: "FAILED", automatic: true, failureReason: "The payment processor refused the refund (request_failed)." });
    expect(vendor.orders.get(refused.paymentId)!.refunds.size).toBe(0);

    // The vendor down for good: the job's tries run out (its last one is made here), then the refund fails.
    vendor.fail("500", { operation: "PGOrderCreateRefund" });
    const down = await lateSuccessAfterCancel();
    expect((await hook(down.webhook)).status).toBe(200);
    const second = await refundOf(down.paymentId);
    const job = await waitFor("the first failed try", () =>
      db.job.findFirst({ where: { type: "refund.process", subjectId: second.id, attempts: { gte: 1 }, status: "QUEUED" } }),
    );
    expect(job.lastError).toMatch(/processor|upstream/i);
    // Older than an hour and still waiting: listed as such, with its job's last error.
    await db.refund.update({ where: { id: second.id }, data: { createdAt: new Date(Date.now() - 2 * 60 * 60_000) } });
    expect((await automaticRefundsNeedingAttention(db)).find((r) => r.refundId === second.id)).toMatchObject({ status: "PENDING", reason: job.lastError });
    // The next try is the last (set while the job waits, not while a worker holds it).
    await waitFor("the job between tries", async () => {
      const { count } = await db.job.updateMany({ where: { id: job.id, status: "QUEUED" }, data: { attempts: job.maxAttempts - 1, runAt: new Date() } });
      return count === 1;
    });
    const gaveUp = await waitFor("refund.failed after the last try", () => failedEvent(second.id), 20_000);
    expect(gaveUp.data.refund).toMatchObject({ status: "FAILED", automatic: true, failureReason: expect.stringContaining("could not be reached") });
    expect(vendor.orders.get(down.paymentId)!.refunds.size).toBe(0);
    expect((await automaticRefundsNeedingAttention(db)).map((r) => r.refundId)).toEqual(expect.arrayContaining([first.id, second.id]));
  });
});
