import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import type { PaymentProcessor } from "@/server/providers/payments/types";
import type { AppServices } from "@/server/services";
import { dashboardContext, failure } from "../helpers/dashboard";
import { type FakeCashfreePg } from "../helpers/fake-cashfree-pg";
import { request } from "../helpers/http";
import { checkVendorCalls, startLivePayments, stopLivePayments, type LivePayments } from "../helpers/live-payments";
import { DB_TARGETS, type Started } from "../helpers/targets";
import { sleep, waitFor } from "../helpers/wait";

// Live cards are paid on the vendor's own checkout page: Parakh makes (or finds) the one order,
// records a card attempt without any card data and hands the page the order's payment session.
// The server runs with LIVE_PAYMENT_PROVIDER=cashfree against the fake vendor; the hosted page's
// actions run in this process through the dashboard router, against the server's database.
const CREDENTIALS = { clientId: "CF_PG_CARD_TEST", clientSecret: "cfsk_ma_pg_card_test_secret" };
const CARD = "4111111111111111";

describe.each(DB_TARGETS)("live cards on the vendor's checkout page on %s", (target) => {
  let vendor: FakeCashfreePg;
  let env: Started;
  let db: Db;
  let headers: Record<string, string>;
  let processors: Record<"sandbox" | "live", PaymentProcessor>;
  let checkout: typeof import("@/server/services/payments/checkout-page");
  let hands: typeof import("@/server/services/payments/card-hand-off");
  let router: (typeof import("@/server/api/dashboard/router"))["dashboardRouter"];
  let issueToken: (typeof import("@/server/services/payments/checkout-token"))["issueCheckoutToken"];
  let seq = 0;
  let live: LivePayments | undefined;

  beforeAll(async () => {
    live = await startLivePayments(target, "Card Shop", CREDENTIALS);
    ({ vendor, env, db, headers, processors } = live);
    checkout = await import("@/server/services/payments/checkout-page");
    hands = await import("@/server/services/payments/card-hand-off");
    router = (await import("@/server/api/dashboard/router")).dashboardRouter;
    issueToken = (await import("@/server/services/payments/checkout-token")).issueCheckoutToken;
  }, 90_000);
  afterEach(() => checkVendorCalls(live));
  afterAll(() => stopLivePayments(live));

  const api = (path: string, body?: unknown, h = headers) => request(env.server.url, path, { method: body === undefined ? "GET" : "POST", body, headers: h });
  const status = async (paymentId: string) => (await api(`/api/payments/${paymentId}/status`)).json.data;
  const hook = (payload: unknown) => vendor.sendWebhook(`${env.server.url}/api/providers/cashfree/webhook`, payload);
  const waitStatus = (paymentId: string, want: string) => waitFor(`payment ${want}`, async () => ((await status(paymentId)).status === want ? true : null));
  const page = (paymentId: string) => {
    const caller = router.createCaller(dashboardContext({ db, paymentProcessors: processors } as unknown as AppServices, null));
    return { caller: caller.checkout, input: { paymentId, token: issueToken(paymentId, new Date(Date.now() + 3_600_000)) } };
  };
  /** Every order the vendor holds for this payment, whatever id it was made under. */
  const ordersFor = (paymentId: string) => [...vendor.orders.keys()].filter((id) => id.includes(paymentId));

  async function create(amount = "499.00") {
    const r = await api("/api/checkout", {
      orderId: `ORDER_CARD_${target}_${Date.now()}_${seq++}`,
      amount,
      redirectUrl: "https://shop.example/return",
      meta: { name: "Asha Rao", email: "asha@example.com", phone: "+919876543210" },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return r.json.data.paymentId as string;
  }

  it("hands the page the order's payment session with a card attempt that holds no card data; the vendor's webhook settles it", async () => {
    const paymentId = await create();
    const { caller, input } = page(paymentId);
    const handed = await caller.cardHandOff(input);

    const order = vendor.orders.get(paymentId)!.entity;
    expect(handed.paymentSessionId).toBe(order.payment_session_id);
    expect(order.order_meta.return_url).toBe(`${env.server.url}/checkout/${paymentId}`);
    expect(vendor.count("PGPayOrder")).toBe(0);
    expect(handed).toMatchObject({ status: "PENDING", attempt: { method: "CARD", status: "PENDING", cardLast4: null, cardNetwork: null, action: null } });
    const attempt = await db.paymentAttempt.findFirstOrThrow({ where: { paymentId } });
    expect(attempt).toMatchObject({ processorRef: null, cardLast4: null, cardNetwork: null, vpa: null, customerAction: null });

    // A card declined on the vendor's page fails the attempt as a declined sandbox card does.
    const declinedHook = vendor.payOnCheckoutPage(paymentId, "FAILED");
    expect(declinedHook.type).toBe("PAYMENT_FAILED_WEBHOOK");
    expect((await hook(declinedHook)).status).toBe(200);
    await waitStatus(paymentId, "FAILED");
    const declined = await status(paymentId);
    expect(declined.attempts).toEqual([expect.objectContaining({ method: "CARD", status: "FAILED", errorCode: "PAYMENT_DECLINED" })]);
    expect(await db.paymentAttempt.findFirstOrThrow({ where: { paymentId } })).toMatchObject({ processorRef: String(declinedHook.data.payment.cf_payment_id) });
    expect(env.server.logs()).not.toContain("processor webhook for an unknown attempt");
    expect(await db.webhookEvent.count({ where: { subjectId: paymentId, type: "payment.failed" } })).toBe(1);

    // The customer stayed on the vendor's page and paid with another card: a late success of the same attempt.
    const paid = vendor.payOnCheckoutPage(paymentId, "SUCCESS");
    expect((await hook(paid)).status).toBe(200);
    await waitStatus(paymentId, "SUCCESS");
    expect(await status(paymentId)).toMatchObject({ method: "CARD", bankReference: paid.data.payment.bank_reference });
    expect(await db.paymentAttempt.findFirstOrThrow({ where: { paymentId } })).toMatchObject({
      status: "SUCCESS",
      processorRef: String(paid.data.payment.cf_payment_id),
    });
    // The declined card's report again changes nothing.
    expect((await hook(declinedHook)).status).toBe(200);
    await sleep(1_000);
    expect(await status(paymentId)).toMatchObject({ status: "SUCCESS" });
    expect(await db.refund.count({ where: { paymentId } })).toBe(0);
  });

  it("shows a declined card when the customer comes back before the webhook; the late webhook is that attempt's", async () => {
    const paymentId = await create();
    const { caller, input } = page(paymentId);
    await caller.cardHandOff(input);
    const declined = vendor.payOnCheckoutPage(paymentId, "FAILED"); // its webhook is late
    expect(await hands.checkCardHandOff(db, processors, paymentId, { leaveUnpaid: true })).toBe(true);
    const back = await caller.state(input);
    expect(back).toMatchObject({ status: "FAILED", attempt: { method: "CARD", status: "FAILED", errorCode: "PAYMENT_DECLINED" } });
    expect((await hook(declined)).status).toBe(200);
    await sleep(1_000);
    expect(await caller.state(input)).toMatchObject({ status: "FAILED", attempt: { status: "FAILED", errorCode: "PAYMENT_DECLINED" } });
    expect(env.server.logs()).not.toContain("processor webhook for an unknown attempt");

    // Try again on the same order: the earlier visit's declined card neither fails nor holds the new attempt.
    await caller.cardHandOff(input);
    expect(await hands.checkCardHandOff(db, processors, paymentId, { leaveUnpaid: true })).toBe(true);
    const attempts = await db.paymentAttempt.findMany({ where: { paymentId }, orderBy: { createdAt: "asc" } });
    expect(attempts.map((a) => [a.status, a.errorCode])).toEqual([
      ["FAILED", "PAYMENT_DECLINED"],
      ["ABANDONED", "ATTEMPT_ABANDONED"],
    ]);
    expect(ordersFor(paymentId)).toEqual([paymentId]);
  });

  it("after two cards declined in one visit, a later visit that pays nothing is left, not declined", async () => {
    const paymentId = await create();
    const { caller, input } = page(paymentId);
    await caller.cardHandOff(input);
    // Two cards declined on the vendor's page, neither webhook delivered; the customer comes back.
    vendor.payOnCheckoutPage(paymentId, "FAILED");
    vendor.payOnCheckoutPage(paymentId, "FAILED");
    expect(await hands.checkCardHandOff(db, processors, paymentId, { leaveUnpaid: true })).toBe(true);
    expect((await caller.state(input)).attempt).toMatchObject({ status: "FAILED", errorCode: "PAYMENT_DECLINED" });
    await sleep(5); // the vendor's clock moves on before the next visit begins
    await caller.cardHandOff(input);
    expect(await hands.checkCardHandOff(db, processors, paymentId, { leaveUnpaid: true })).toBe(true);
    expect((await caller.state(input)).attempt).toMatchObject({ method: "CARD", status: "ABANDONED" });
  });

  it("leaves a paid UPI attempt's money to that attempt: the card hand-off never takes it, so it is not refunded", async () => {
    const paymentId = await create();
    const { caller, input } = page(paymentId);
    await checkout.payFromCheckout(db, processors, paymentId, { method: "UPI", flow: "collect", vpa: "asha@okbank" });
    await checkout.abandonFromCheckout(db, processors, paymentId, "retry");
    await caller.cardHandOff(input);
    // The UPI request is approved after all; its webhook is late, and the customer comes back from the card page unpaid.
    const upi = vendor.settle(paymentId, "SUCCESS");
    await hands.checkCardHandOff(db, processors, paymentId, { leaveUnpaid: true });
    expect((await hook(upi)).status).toBe(200);
    await waitStatus(paymentId, "SUCCESS");
    await sleep(1_000);
    const done = await status(paymentId);
    expect(done).toMatchObject({ status: "SUCCESS", method: "UPI", bankReference: upi.data.payment.bank_reference });
    expect(await db.refund.count({ where: { paymentId } })).toBe(0);
  });

  it("leaves a webhook for an attempt still starting to that attempt, not to an earlier declined card hand-off", async () => {
    const { summariseCashfreeWebhook, applyProcessorWebhook } = await import("@/server/services/payments/processor-webhooks");
    const paymentId = await create();
    const { caller, input } = page(paymentId);
    await caller.cardHandOff(input);
    vendor.payOnCheckoutPage(paymentId, "FAILED");
    await hands.checkCardHandOff(db, processors, paymentId, { leaveUnpaid: true });
    await checkout.payFromCheckout(db, processors, paymentId, { method: "UPI", flow: "collect", vpa: "asha@okbank" });
    const upi = await db.paymentAttempt.findFirstOrThrow({ where: { paymentId, method: "UPI" } });
    // Its webhook comes while the attempt's start has not yet stored the vendor's id.
    await db.paymentAttempt.update({ where: { id: upi.id }, data: { processorRef: null } });
    const webhook = vendor.settle(paymentId, "SUCCESS");
    const { eventType, summary } = summariseCashfreeWebhook(webhook);
    const row = await db.processorWebhook.create({
      data: { id: `pwh_test_${seq++}`, provider: "cashfree", eventType, bodyHash: `test-${Date.now()}-${seq}`, summary: JSON.stringify(summary) },
    });
    const apply = () => applyProcessorWebhook({ db, atomicWriter: undefined as never }, processors, row.id);
    await expect(apply()).rejects.toThrow(/not yet started/);
    expect(await status(paymentId)).toMatchObject({ status: "PENDING" });
    // Stored now: the job's next try pays through the UPI attempt, and nothing is refunded.
    await db.paymentAttempt.update({ where: { id: upi.id }, data: { processorRef: upi.processorRef } });
    await apply();
    const done = await status(paymentId);
    expect(done).toMatchObject({ status: "SUCCESS", method: "UPI" });
    expect(done.attempts.map((a: { method: string; status: string }) => [a.method, a.status])).toEqual([
      ["CARD", "FAILED"],
      ["UPI", "SUCCESS"],
    ]);
    expect(await db.refund.count({ where: { paymentId } })).toBe(0);
  });

  it("a failed card report while the customer pays with another card there is not applied", async () => {
    const paymentId = await create();
    const { caller, input } = page(paymentId);
    await caller.cardHandOff(input);
    const declined = vendor.payOnCheckoutPage(paymentId, "FAILED");
    // Before the failure's webhook is delivered, the second card is already paid at the vendor.
    const paid = vendor.payOnCheckoutPage(paymentId, "SUCCESS");
    expect((await hook(declined)).status).toBe(200);
    await waitStatus(paymentId, "SUCCESS");
    expect((await hook(paid)).status).toBe(200);
    await sleep(1_000);
    const done = await status(paymentId);
    expect(done).toMatchObject({ status: "SUCCESS", bankReference: paid.data.payment.bank_reference });
    expect(done.attempts).toEqual([expect.objectContaining({ status: "SUCCESS" })]);
    expect(await db.webhookEvent.count({ where: { subjectId: paymentId, type: "payment.failed" } })).toBe(0);
    expect(await db.refund.count({ where: { paymentId } })).toBe(0);
  });

  it("reuses the payment's one order: after a UPI attempt failed, and again after the customer came back unpaid", async () => {
    const paymentId = await create();
    await checkout.payFromCheckout(db, processors, paymentId, { method: "UPI", flow: "collect", vpa: "asha@okbank" });
    expect((await hook(vendor.settle(paymentId, "FAILED"))).status).toBe(200);
    await waitStatus(paymentId, "FAILED");
    const session = vendor.orders.get(paymentId)!.entity.payment_session_id as string;

    const { caller, input } = page(paymentId);
    expect((await caller.cardHandOff(input)).paymentSessionId).toBe(session);
    // Back on the hosted page with nothing paid and nothing under way: the attempt is left (the UPI attempt's failure is not its own).
    expect(await hands.checkCardHandOff(db, processors, paymentId, { leaveUnpaid: true })).toBe(true);
    expect(await status(paymentId)).toMatchObject({ status: "FAILED" });
    expect((await db.paymentAttempt.findMany({ where: { paymentId }, orderBy: { createdAt: "asc" } })).map((a) => a.status)).toEqual(["FAILED", "ABANDONED"]);
    expect((await caller.cardHandOff(input)).paymentSessionId).toBe(session);

    expect(ordersFor(paymentId)).toEqual([paymentId]);
    expect([...vendor.sessions.values()].filter((o) => o === paymentId)).toHaveLength(1);
  });

  it("shows the outcome when the customer comes back before the webhook, and honours a late success of a left card attempt", async () => {
    const first = await create();
    const one = page(first);
    await one.caller.cardHandOff(one.input);
    vendor.payOnCheckoutPage(first, "SUCCESS"); // its webhook is late
    expect(await hands.checkCardHandOff(db, processors, first, { leaveUnpaid: true })).toBe(true);
    expect(await status(first)).toMatchObject({ status: "SUCCESS", method: "CARD" });

    const second = await create();
    const two = page(second);
    await two.caller.cardHandOff(two.input);
    await hands.checkCardHandOff(db, processors, second, { leaveUnpaid: true });
    expect((await db.paymentAttempt.findFirstOrThrow({ where: { paymentId: second } })).status).toBe("ABANDONED");
    // The customer went Back to the vendor's page and paid after all.
    expect((await hook(vendor.payOnCheckoutPage(second, "SUCCESS"))).status).toBe(200);
    await waitStatus(second, "SUCCESS");
  });

  it("finds a card payment whose webhook was lost by asking the vendor about the order", async () => {
    const { reconcileAttempt } = await import("@/server/services/payments/reconcile");
    const paymentId = await create();
    const { caller, input } = page(paymentId);
    await caller.cardHandOff(input);
    const attempt = await db.paymentAttempt.findFirstOrThrow({ where: { paymentId } });
    // Nothing paid yet: the customer may still be on the vendor's page, so it stays pending and is asked again.
    expect(await reconcileAttempt(db, processors, attempt.id)).toBeInstanceOf(Date);
    expect((await status(paymentId)).status).toBe("PENDING");
    vendor.payOnCheckoutPage(paymentId, "SUCCESS");
    expect(await reconcileAttempt(db, processors, attempt.id)).toBeNull();
    expect((await status(paymentId)).status).toBe("SUCCESS");
  });

  it("no route of the hosted page or the API takes a live card: each refuses it, records no attempt, and keeps the digits nowhere", async () => {
    const paymentId = await create();
    const { caller, input } = page(paymentId);
    const card = { number: CARD, expiryMonth: 12, expiryYear: new Date().getFullYear() + 3, cvv: "123", name: "Asha Rao" };
    const logged: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      expect(await failure(caller.pay({ ...input, payment: { method: "CARD", card } }))).toMatchObject({ appCode: "VALIDATION_ERROR" });
      // The hand-off takes the page's token only: a card sent along is refused, not ignored.
      expect(await failure(caller.cardHandOff({ ...input, card } as never))).toMatchObject({ code: "BAD_REQUEST" });
      expect(await failure(caller.cardHandOff({ ...input, number: CARD, cvv: "123" } as never))).toMatchObject({ code: "BAD_REQUEST" });
      expect(await failure(caller.simulate({ ...input, outcome: "SUCCESS", method: "card", card } as never))).toMatchObject({ code: "FORBIDDEN" });
      // The sandbox simulation API does not exist for a live key.
      const simulated = await api(`/api/sandbox/payments/${paymentId}/simulate`, { outcome: "SUCCESS", method: "card", card });
      expect(simulated.status).toBe(404);
    } finally {
      process.stderr.write = write;
    }

    expect(await db.paymentAttempt.count({ where: { paymentId } })).toBe(0);
    expect(vendor.orders.has(paymentId)).toBe(false);
    expect(logged.join("")).not.toContain(CARD);
    expect(env.server.logs()).not.toContain(CARD);
    await sleep(300); // the audit log's group commit
    for (const table of await tables()) {
      const rows = await db.$queryRawUnsafe<unknown[]>(`SELECT * FROM "${table}"`);
      expect(
        JSON.stringify(rows, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
        table,
      ).not.toContain(CARD);
    }
  });

  async function tables(): Promise<string[]> {
    const rows =
      target === "postgresql"
        ? await db.$queryRawUnsafe<{ name: string }[]>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`)
        : await db.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`);
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(["PaymentAttempt", "AuditLog", "Payment"]));
    return rows.map((r) => r.name);
  }

  it("shows a pending live UPI QR or app link again after a reload, and forgets it once the attempt ends", async () => {
    const paymentId = await create();
    const started = await checkout.payFromCheckout(db, processors, paymentId, { method: "UPI", flow: "qr" });
    const shown = started.attempt?.action;
    // The fake vendor's Order Pay answer carries the QR as a data URL (data.payload.qrcode).
    expect(shown).toEqual({ kind: "qr", image: expect.stringMatching(/^data:image\/png;base64,/) });
    expect((await checkout.checkoutState(db, paymentId)).attempt?.action).toEqual(shown);
    expect((await hook(vendor.settle(paymentId, "FAILED"))).status).toBe(200);
    await waitStatus(paymentId, "FAILED");
    expect((await checkout.checkoutState(db, paymentId)).attempt?.action).toBeNull();
    expect((await db.paymentAttempt.findFirstOrThrow({ where: { paymentId } })).customerAction).toBeNull();

    await checkout.payFromCheckout(db, processors, paymentId, { method: "UPI", flow: "intent" });
    const reloaded = (await checkout.checkoutState(db, paymentId)).attempt?.action;
    expect(reloaded).toEqual({ kind: "intent", url: expect.stringMatching(/^upi:\/\/pay\?/) });
    await checkout.abandonFromCheckout(db, processors, paymentId, "retry");
    expect((await checkout.checkoutState(db, paymentId)).attempt?.action).toBeNull();
    expect(await db.paymentAttempt.count({ where: { paymentId, NOT: { customerAction: null } } })).toBe(0);
  });
});
