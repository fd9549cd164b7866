import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csvRows } from "../helpers/csv";
import { ist } from "../helpers/ist";
import { dashboardContext, failure, merchantSession } from "../helpers/dashboard";

// The dashboard's Payments and Webhooks procedures and the CSV export, through the real router
// (createCaller) and route handler on a temp SQLite database. Payments are made and moved with the
// same service functions the REST API and the hosted page use.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-dash-pay-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
delete process.env.NEXTAUTH_URL;

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getServices } = await import("@/server/services");
const { getConfig } = await import("@/server/config");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { csvCell } = await import("@/server/lib/csv");
const { createMerchant, approveGoLive } = await import("@/server/services/merchants/merchants");
const { createPayment } = await import("@/server/services/payments/payments");
const { startAttempt, cancelPayment, expirePayment } = await import("@/server/services/payments/lifecycle");
const { type: DELIVER_JOB } = (await import("@/server/jobs/registry")).webhookDeliveryJob;
const { attemptDelivery } = await import("@/server/services/webhooks/deliver");
const { verifyWebhookSignature } = await import("@/server/services/webhooks/signing");
const { sandboxProcessor } = await import("@/server/providers/payments/sandbox");
const { paymentFiltersFromQuery } = await import("@/lib/schemas/payments");
const { GET: exportCsv } = await import("@/app/api/dashboard/payments/export/route");
const { VERIFY_SNIPPET } = await import("@/app/(dashboard)/dashboard/webhooks/verify-snippet");
const { webhookSignatureHeader } = await import("@/server/services/webhooks/signing");
const { encode } = await import("next-auth/jwt");
const { NextRequest } = await import("next/server");

type Merchant = Awaited<ReturnType<typeof createMerchant>>;
type Mode = "sandbox" | "live";

const services = () => getServices();
const db = () => services().db;

const callerFor = (m: Merchant, extra: { sameOrigin?: boolean } = {}) => dashboardRouter.createCaller(dashboardContext(services(), merchantSession(m), extra));

let orderSeq = 0;
async function newPayment(
  m: Merchant,
  mode: Mode,
  over: { amount?: number; orderId?: string; createdAt?: Date; description?: string; phone?: string; name?: string } = {},
) {
  const orderId = over.orderId ?? `ORDER_T${++orderSeq}`;
  const { payment } = await createPayment(
    db(),
    getServices().bulk,
    m.merchantId,
    mode,
    {
      orderId,
      amount: over.amount ?? 49_900,
      description: over.description ?? null,
      meta: over.name || over.phone ? { name: over.name ?? null, phone: over.phone ?? null } : null,
    },
    30,
  );
  if (over.createdAt) await db().payment.update({ where: { id: payment.id }, data: { createdAt: over.createdAt } });
  return payment.id;
}

const card = (number: string) => ({ method: "CARD" as const, number, expiryMonth: 12, expiryYear: 2099, cvv: "123" });
const GOOD_CARD = "4242424242424242";
const DECLINED_CARD = "4000000000000002";

let a: Merchant;
let b: Merchant;

beforeAll(async () => {
  await migrateTestDatabase(process.env.DATABASE_URL!);
  a = await createMerchant(db(), { name: "Shop A", email: "a@example.com", password: "a-long-password" });
  b = await createMerchant(db(), { name: "Shop B", email: "b@example.com", password: "a-long-password" });
  await approveGoLive(db(), a.merchantId);
});

describe("the Verify signatures snippet on the Webhooks page", () => {
  // The function part of the snippet, run as a receiver would run it.
  const source = VERIFY_SNIPPET.slice(VERIFY_SNIPPET.indexOf("export function"), VERIFY_SNIPPET.indexOf("// Express")).replace("export function", "function");
  const verify = new Function("crypto", `${source}; return verifyParakhSignature;`)(crypto) as (
    h: string,
    body: string,
    secret: string,
    tol?: number,
  ) => boolean;
  const body = '{"id":"evt_1","type":"payment.success","data":{"name":"Zoë ₹"}}';
  const now = Math.floor(Date.now() / 1000);

  it("accepts what delivery signs, including during a rotation", () => {
    expect(verify(webhookSignatureHeader(["whsec_a"], now, body), body, "whsec_a")).toBe(true);
    expect(verify(webhookSignatureHeader(["whsec_new", "whsec_old"], now, body), body, "whsec_old")).toBe(true);
  });
  it("rejects a wrong secret, a changed body, an old timestamp and junk", () => {
    expect(verify(webhookSignatureHeader(["whsec_a"], now, body), body, "whsec_b")).toBe(false);
    expect(verify(webhookSignatureHeader(["whsec_a"], now, body), `${body} `, "whsec_a")).toBe(false);
    expect(verify(webhookSignatureHeader(["whsec_a"], now - 301, body), body, "whsec_a")).toBe(false);
    expect(verify("t=abc,v1=00", body, "whsec_a")).toBe(false);
    expect(verify(`t=${now},v1=zz`, body, "whsec_a")).toBe(false);
    expect(verify("", body, "whsec_a")).toBe(false);
  });
});

describe("payments.list", () => {
  let m: Merchant;
  const p: Record<string, string> = {};
  beforeAll(async () => {
    m = await createMerchant(db(), { name: "Lister", email: "lister@example.com", password: "a-long-password" });
    await approveGoLive(db(), m.merchantId);
    p.early = await newPayment(m, "sandbox", { orderId: "ORDER_EARLY", createdAt: ist("2025-03-09T23:59:59.999") });
    p.d10 = await newPayment(m, "sandbox", { orderId: "ORDER_D10", createdAt: ist("2025-03-10T00:00:00.000") });
    p.d11a = await newPayment(m, "sandbox", { orderId: "ORDER_D11A", createdAt: ist("2025-03-11T12:00:00.000") });
    // Same instant as d11a: the cursor must still page through both.
    p.d11b = await newPayment(m, "sandbox", { orderId: "ORDER_D11B", createdAt: ist("2025-03-11T12:00:00.000") });
    p.d12 = await newPayment(m, "sandbox", { orderId: "ORDER_D12", createdAt: ist("2025-03-12T00:00:00.000") });
    p.live = await newPayment(m, "live", { orderId: "ORDER_D11A", createdAt: ist("2025-03-11T12:00:00.000") });
    p.foreign = await newPayment(b, "sandbox", { orderId: "ORDER_D11A", createdAt: ist("2025-03-11T12:00:00.000") });
    // d10 succeeds, d12 is cancelled.
    await startAttempt(db(), sandboxProcessor, p.d10, card(GOOD_CARD));
    await cancelPayment(db(), p.d12);
  });
  const list = (input: Record<string, unknown>, mode: Mode = "sandbox") => callerFor(m).payments.list({ mode, ...input });
  const ids = (r: { items: { id: string }[] }) => r.items.map((i) => i.id);
  const tiedDesc = () => [p.d11a!, p.d11b!].sort().reverse();

  it("lists the merchant's payments of the mode, newest first, with list columns only", async () => {
    const r = await list({});
    expect(ids(r)).toEqual([p.d12, ...tiedDesc(), p.d10, p.early]);
    expect(r.nextCursor).toBeNull();
    const d10 = r.items.find((i) => i.id === p.d10)!;
    expect(d10).toMatchObject({ orderId: "ORDER_D10", amountPaise: 49_900, amount: "499.00", status: "SUCCESS", method: "CARD" });
    expect(d10.paidAt).not.toBeNull();
    expect(ids(await list({}, "live"))).toEqual([p.live]);
  });

  it("filters by status, exact order id and IST days (both ends inclusive)", async () => {
    expect(ids(await list({ status: "SUCCESS" }))).toEqual([p.d10]);
    expect(ids(await list({ status: "CANCELLED" }))).toEqual([p.d12]);
    expect(ids(await list({ status: "CREATED" }))).toEqual([...tiedDesc(), p.early]);
    expect(ids(await list({ orderId: "ORDER_D11A" }))).toEqual([p.d11a]);
    expect(ids(await list({ orderId: "order_d11a" }))).toEqual([]);
    expect(ids(await list({ orderId: "ORDER_D1" }))).toEqual([]);
    expect(ids(await list({ from: "2025-03-10", to: "2025-03-11" }))).toEqual([...tiedDesc(), p.d10]);
    expect(ids(await list({ from: "2025-03-12" }))).toEqual([p.d12]);
    expect(ids(await list({ to: "2025-03-09" }))).toEqual([p.early]);
    expect(ids(await list({ status: "CREATED", from: "2025-03-11", to: "2025-03-11" }))).toEqual(tiedDesc());
  });

  it("pages with a cursor without gaps or duplicates, ties included", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await list({ limit: 2, ...(cursor ? { cursor } : {}) });
      expect(r.items.length).toBeLessThanOrEqual(2);
      seen.push(...ids(r));
      cursor = r.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([p.d12, ...tiedDesc(), p.d10, p.early]);
    // A payment created after the first page was read does not shift the next page.
    const first = await list({ limit: 2 });
    await newPayment(m, "sandbox", { orderId: "ORDER_LATE" });
    expect(ids(await list({ limit: 2, cursor: first.nextCursor! }))).toEqual([tiedDesc()[1], p.d10]);
  });

  it("refuses bad filters", async () => {
    expect((await failure(list({ status: "PAID" }))).code).toBe("BAD_REQUEST");
    expect((await failure(list({ from: "2025-03-12", to: "2025-03-10" }))).fields).toEqual(["to"]);
    expect((await failure(list({ orderId: "ORDER 1" }))).fields).toEqual(["orderId"]);
    expect((await failure(list({ cursor: "garbage" }))).appCode).toBe("VALIDATION_ERROR");
  });

  it("reads the same filters from a URL query (page and CSV export)", () => {
    const q = new URLSearchParams({ status: "FAILED", orderId: "ORDER_1", from: "2025-01-01", to: "2025-01-31" });
    expect(paymentFiltersFromQuery(q)).toEqual({ filters: { status: "FAILED", orderId: "ORDER_1", from: "2025-01-01", to: "2025-01-31" }, errors: {} });
    const bad = paymentFiltersFromQuery(new URLSearchParams({ status: "NOPE", orderId: "ORDER_1" }));
    expect(bad.filters).toEqual({ orderId: "ORDER_1" });
    expect(Object.keys(bad.errors)).toEqual(["status"]);
  });
});

describe("payments.get", () => {
  let endpointId: string;
  let paymentId: string;
  beforeAll(async () => {
    const ep = await callerFor(a).webhooks.create({ mode: "sandbox", url: "http://127.0.0.1:9/payments-hook", events: ["payment.success", "payment.failed"] });
    endpointId = ep.id;
    paymentId = await newPayment(a, "sandbox", { amount: 123_456, name: "Asha Rao", phone: "+919876543210", description: "Order of tea" });
    await startAttempt(db(), sandboxProcessor, paymentId, card(DECLINED_CARD));
    await startAttempt(db(), sandboxProcessor, paymentId, card(GOOD_CARD));
  });

  it("returns the payment, its attempts, its timeline and the webhook deliveries of its events", async () => {
    const d = await callerFor(a).payments.get({ mode: "sandbox", paymentId });
    expect(d.payment).toMatchObject({
      id: paymentId,
      amountPaise: 123_456,
      amount: "1234.56",
      status: "SUCCESS",
      isFinal: true,
      method: "CARD",
      description: "Order of tea",
      customer: { name: "Asha Rao", email: null, phone: "+919876543210" },
      checkoutUrl: null,
    });
    expect(d.payment.paidAt).not.toBeNull();
    expect(d.payment.bankReference).toMatch(/^PRK/);
    expect(d.attempts.map((x) => [x.method, x.status, x.cardNetwork, x.cardLast4, x.errorCode])).toEqual([
      ["CARD", "FAILED", "VISA", "0002", "CARD_DECLINED"],
      ["CARD", "SUCCESS", "VISA", "4242", null],
    ]);
    expect(d.timeline.map((e) => [e.fromStatus, e.toStatus, e.reason])).toEqual([
      [null, "CREATED", "CREATED"],
      ["CREATED", "PENDING", "ATTEMPT_STARTED"],
      ["PENDING", "FAILED", "CARD_DECLINED"],
      ["FAILED", "PENDING", "ATTEMPT_STARTED"],
      ["PENDING", "SUCCESS", "ATTEMPT_SUCCEEDED"],
    ]);
    expect(d.timeline[2]!.attemptId).toBe(d.attempts[0]!.id);
    expect(d.webhooks.map((w) => w.type)).toEqual(["payment.failed", "payment.success"]);
    for (const w of d.webhooks) {
      expect(w.deliveries).toHaveLength(1);
      expect(w.deliveries[0]).toMatchObject({
        eventId: w.eventId,
        eventType: w.type,
        endpointId,
        url: "http://127.0.0.1:9/payments-hook",
        status: "PENDING",
        attempts: [],
      });
    }
  });

  it("shows an open payment's checkout link and the expiry in the timeline", async () => {
    const open = await newPayment(a, "sandbox");
    expect((await callerFor(a).payments.get({ mode: "sandbox", paymentId: open })).payment.checkoutUrl).toMatch(new RegExp(`/checkout/${open}$`));
    await db().payment.update({ where: { id: open }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await expirePayment(db(), open)).toBe(true);
    const d = await callerFor(a).payments.get({ mode: "sandbox", paymentId: open });
    expect(d.payment.status).toBe("EXPIRED");
    expect(d.timeline.at(-1)).toMatchObject({ fromStatus: "CREATED", toStatus: "EXPIRED", reason: "EXPIRED" });
    expect(d.payment.checkoutUrl).toBeNull();
  });

  it("answers NOT_FOUND for another merchant's payment, the other mode's, and an unknown id", async () => {
    const live = await newPayment(a, "live");
    expect((await failure(callerFor(b).payments.get({ mode: "sandbox", paymentId }))).appCode).toBe("PAYMENT_NOT_FOUND");
    expect((await failure(callerFor(a).payments.get({ mode: "live", paymentId }))).appCode).toBe("PAYMENT_NOT_FOUND");
    expect((await failure(callerFor(a).payments.get({ mode: "sandbox", paymentId: live }))).appCode).toBe("PAYMENT_NOT_FOUND");
    expect((await failure(callerFor(a).payments.get({ mode: "sandbox", paymentId: "pay_1_nope" }))).code).toBe("NOT_FOUND");
  });

  it("refuses live mode before go-live", async () => {
    expect((await failure(callerFor(b).payments.list({ mode: "live" }))).appCode).toBe("LIVE_MODE_NOT_ENABLED");
    expect((await failure(callerFor(b).webhooks.list({ mode: "live" }))).appCode).toBe("LIVE_MODE_NOT_ENABLED");
  });
});

describe("webhook endpoints", () => {
  const wh = () => callerFor(a).webhooks;

  it("creates an endpoint with the chosen events in a fixed order, or all", async () => {
    const one = await wh().create({
      mode: "sandbox",
      url: " https://shop.example/hooks/one ",
      events: ["payment.failed", "payment.success", "payment.failed"],
      description: "  Orders  ",
    });
    expect(one).toMatchObject({ url: "https://shop.example/hooks/one", events: ["payment.success", "payment.failed"], description: "Orders", enabled: true });
    expect(one.id).toMatch(/^we_[A-Za-z0-9]{16}$/);
    const all = await wh().create({ mode: "sandbox", url: "https://shop.example/hooks/all", events: ["*", "payment.failed"], description: "" });
    expect(all.events).toEqual(["*"]);
    expect(all.description).toBeNull();
    expect((await db().webhookEndpoint.findUniqueOrThrow({ where: { id: all.id } })).events).toBe("*");
    const listed = (await wh().list({ mode: "sandbox" })).endpoints.map((e) => e.id);
    expect(listed).toEqual(expect.arrayContaining([one.id, all.id]));
    expect((await wh().list({ mode: "live" })).endpoints).toEqual([]);
  });

  it("refuses bad URLs and events with the field named", async () => {
    const bad = async (input: Record<string, unknown>) =>
      failure(wh().create({ mode: "sandbox", url: "https://ok.example/h", events: ["payment.success"], ...input } as never));
    expect(await bad({ url: "not a url" })).toMatchObject({ code: "BAD_REQUEST", fields: ["url"] });
    expect(await bad({ url: "ftp://files.example/h" })).toMatchObject({ code: "BAD_REQUEST", fields: ["url"] });
    expect(await bad({ url: "https://user:pw@shop.example/h" })).toMatchObject({ code: "BAD_REQUEST", fields: ["url"] });
    expect(await bad({ url: "" })).toMatchObject({ code: "BAD_REQUEST", fields: ["url"] });
    expect(await bad({ events: [] })).toMatchObject({ code: "BAD_REQUEST", fields: ["events"] });
    expect(await bad({ events: ["payment.refunded"] })).toMatchObject({ code: "BAD_REQUEST", fields: ["events.0"] });
    expect(await bad({ description: "x".repeat(201) })).toMatchObject({ code: "BAD_REQUEST", fields: ["description"] });
  });

  it("in live mode refuses http and private or loopback hosts", async () => {
    const live = (url: string) => failure(wh().create({ mode: "live", url, events: ["payment.success"] }));
    expect(await live("http://shop.example/h")).toMatchObject({ code: "BAD_REQUEST", fields: ["url"] });
    expect(await live("https://127.0.0.1/h")).toMatchObject({ code: "BAD_REQUEST", appCode: "VALIDATION_ERROR", fields: ["url"] });
    expect(await live("https://localhost:8443/h")).toMatchObject({ appCode: "VALIDATION_ERROR", fields: ["url"] });
    expect(await live("https://[::1]/h")).toMatchObject({ appCode: "VALIDATION_ERROR", fields: ["url"] });
    expect(await live("https://10.1.2.3/h")).toMatchObject({ appCode: "VALIDATION_ERROR", fields: ["url"] });
    expect(await wh().create({ mode: "live", url: "https://shop.example/live-hook", events: ["payment.success"] })).toMatchObject({
      url: "https://shop.example/live-hook",
    });
    // Sandbox may use http and loopback (local development).
    expect(await wh().create({ mode: "sandbox", url: "http://localhost:4000/h", events: ["payment.success"] })).toMatchObject({
      url: "http://localhost:4000/h",
    });
  });

  it("refuses a URL already registered in the mode (the other mode may use it)", async () => {
    await wh().create({ mode: "sandbox", url: "https://shop.example/dup", events: ["*"] });
    expect(await failure(wh().create({ mode: "sandbox", url: "https://shop.example/dup", events: ["*"] }))).toMatchObject({
      appCode: "CONFLICT",
      fields: ["url"],
    });
    await wh().create({ mode: "live", url: "https://shop.example/dup", events: ["*"] });
  });

  it("allows at most 20 endpoints per mode", async () => {
    const m = await createMerchant(db(), { name: "Many", email: "many@example.com", password: "a-long-password" });
    const c = callerFor(m).webhooks;
    for (let i = 0; i < 20; i++) await c.create({ mode: "sandbox", url: `https://shop.example/many/${i}`, events: ["*"] });
    expect(await failure(c.create({ mode: "sandbox", url: "https://shop.example/many/20", events: ["*"] }))).toMatchObject({ appCode: "CONFLICT" });
    expect((await c.list({ mode: "sandbox" })).endpoints).toHaveLength(20);
  });

  it("updates url, events, description and enabled; checks the new URL", async () => {
    const ep = await wh().create({ mode: "live", url: "https://shop.example/upd", events: ["payment.success"] });
    const up = await wh().update({
      mode: "live",
      endpointId: ep.id,
      url: "https://shop.example/upd2",
      events: ["wallet.low_balance"],
      description: "Ops",
      enabled: false,
    });
    expect(up).toMatchObject({ url: "https://shop.example/upd2", events: ["wallet.low_balance"], description: "Ops", enabled: false });
    expect(await wh().update({ mode: "live", endpointId: ep.id, enabled: true })).toMatchObject({
      url: "https://shop.example/upd2",
      description: "Ops",
      enabled: true,
    });
    expect(await failure(wh().update({ mode: "live", endpointId: ep.id, url: "http://shop.example/x" }))).toMatchObject({ fields: ["url"] });
    expect(await failure(wh().update({ mode: "live", endpointId: ep.id, url: "https://192.168.1.5/x" }))).toMatchObject({
      appCode: "VALIDATION_ERROR",
      fields: ["url"],
    });
    expect(await failure(wh().update({ mode: "live", endpointId: ep.id, events: [] }))).toMatchObject({ fields: ["events"] });
    // The other mode's id is not found.
    expect((await failure(wh().update({ mode: "sandbox", endpointId: ep.id, enabled: false }))).code).toBe("NOT_FOUND");
  });

  it("a disabled endpoint gets no new events; an enabled one subscribed to the type does", async () => {
    const m = await createMerchant(db(), { name: "Subs", email: "subs@example.com", password: "a-long-password" });
    const c = callerFor(m).webhooks;
    const on = await c.create({ mode: "sandbox", url: "http://127.0.0.1:9/on", events: ["payment.cancelled"] });
    const off = await c.create({ mode: "sandbox", url: "http://127.0.0.1:9/off", events: ["*"] });
    const other = await c.create({ mode: "sandbox", url: "http://127.0.0.1:9/other", events: ["payment.success"] });
    await c.update({ mode: "sandbox", endpointId: off.id, enabled: false });
    await cancelPayment(db(), await newPayment(m, "sandbox"));
    const deliveries = await c.deliveries({ mode: "sandbox" });
    expect(deliveries.items.map((d) => [d.endpointId, d.eventType])).toEqual([[on.id, "payment.cancelled"]]);
    expect((await c.list({ mode: "sandbox" })).endpoints.find((e) => e.id === other.id)!.lastDelivery).toBeNull();
  });

  it("deletes an endpoint, keeps its history and stops its pending retries", async () => {
    const m = await createMerchant(db(), { name: "Deleter", email: "deleter@example.com", password: "a-long-password" });
    const c = callerFor(m).webhooks;
    const ep = await c.create({ mode: "sandbox", url: "http://127.0.0.1:9/gone", events: ["*"] });
    await cancelPayment(db(), await newPayment(m, "sandbox"));
    expect((await failure(callerFor(b).webhooks.delete({ mode: "sandbox", endpointId: ep.id }))).code).toBe("NOT_FOUND");
    expect(await c.delete({ mode: "sandbox", endpointId: ep.id })).toMatchObject({ id: ep.id, stoppedDeliveries: 1 });
    expect((await c.list({ mode: "sandbox" })).endpoints).toEqual([]);
    const [kept] = (await c.deliveries({ mode: "sandbox" })).items;
    expect(kept).toMatchObject({ endpointId: null, status: "FAILED", url: "http://127.0.0.1:9/gone" });
    // The queued job finds nothing to do.
    expect(await attemptDelivery(db(), kept!.id, { allowLoopbackInSandbox: true })).toBeNull();
    expect(await db().webhookAttempt.count({ where: { deliveryId: kept!.id } })).toBe(0);
    expect((await failure(c.delete({ mode: "sandbox", endpointId: ep.id }))).code).toBe("NOT_FOUND");
  });
});

describe("deliveries, resend and test events", () => {
  let receiver: http.Server;
  let receiverUrl: string;
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let m: Merchant;
  let hookA: string;
  let hookB: string;
  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.statusCode = req.url === "/fail" ? 500 : 200;
        res.end(req.url === "/fail" ? "boom" : '{"ok":true}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    m = await createMerchant(db(), { name: "Hooks", email: "hooks@example.com", password: "a-long-password" });
    hookA = (await callerFor(m).webhooks.create({ mode: "sandbox", url: `${receiverUrl}/ok`, events: ["*"] })).id;
    hookB = (await callerFor(m).webhooks.create({ mode: "sandbox", url: `${receiverUrl}/fail`, events: ["payment.success"] })).id;
  });
  afterAll(() => receiver?.close());
  const c = () => callerFor(m).webhooks;
  const deliverAllPending = async () => {
    const pending = await db().webhookDelivery.findMany({ where: { status: "PENDING", attemptCount: 0, event: { merchantId: m.merchantId } } });
    for (const d of pending) await attemptDelivery(db(), d.id, { allowLoopbackInSandbox: true });
  };

  it("lists deliveries with attempts, filtered by endpoint and status, and endpoint stats", async () => {
    const pay = await newPayment(m, "sandbox");
    await startAttempt(db(), sandboxProcessor, pay, card(GOOD_CARD));
    await deliverAllPending();
    const all = await c().deliveries({ mode: "sandbox" });
    expect(all.items.map((d) => [d.endpointId, d.status]).sort()).toEqual(
      [
        [hookA, "DELIVERED"],
        [hookB, "PENDING"],
      ].sort(),
    );
    const failed = all.items.find((d) => d.endpointId === hookB)!;
    expect(failed.attempts).toHaveLength(1);
    expect(failed.attempts[0]).toMatchObject({ attemptNo: 1, statusCode: 500, responseExcerpt: "boom" });
    expect(failed.nextAttemptAt).not.toBeNull();
    expect((await c().deliveries({ mode: "sandbox", endpointId: hookA })).items.map((d) => d.status)).toEqual(["DELIVERED"]);
    expect((await c().deliveries({ mode: "sandbox", status: "PENDING" })).items.map((d) => d.endpointId)).toEqual([hookB]);
    expect((await c().deliveries({ mode: "sandbox", status: "FAILED" })).items).toEqual([]);
    const eps = (await c().list({ mode: "sandbox" })).endpoints;
    expect(eps.find((e) => e.id === hookA)).toMatchObject({
      stats: { delivered: 1, failed: 0, pending: 0 },
      lastDelivery: { status: "DELIVERED", lastStatusCode: 200, eventType: "payment.success" },
    });
    expect(eps.find((e) => e.id === hookB)).toMatchObject({
      stats: { delivered: 0, failed: 0, pending: 1 },
      lastDelivery: { status: "PENDING", lastStatusCode: 500 },
    });
    // Another merchant's endpoint id is not found; their list is empty.
    expect((await failure(callerFor(b).webhooks.deliveries({ mode: "sandbox", endpointId: hookA }))).code).toBe("NOT_FOUND");
    expect((await callerFor(b).webhooks.deliveries({ mode: "sandbox" })).items).toEqual([]);
  });

  it("pages deliveries with a cursor", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await c().deliveries({ mode: "sandbox", limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...r.items.map((d) => d.id));
      cursor = r.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual((await c().deliveries({ mode: "sandbox" })).items.map((d) => d.id));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("resend makes a new delivery of the same event (same id and body) to the same URL, with its own job", async () => {
    const original = (await c().deliveries({ mode: "sandbox", endpointId: hookA })).items[0]!;
    const event = await db().webhookEvent.findUniqueOrThrow({ where: { id: original.eventId } });
    const r = await c().resend({ mode: "sandbox", deliveryId: original.id });
    expect(r.deliveryId).not.toBe(original.id);
    expect(r.eventId).toBe(original.eventId);
    const fresh = await db().webhookDelivery.findUniqueOrThrow({ where: { id: r.deliveryId }, include: { event: true } });
    expect(fresh).toMatchObject({ eventId: original.eventId, endpointId: hookA, url: original.url, status: "PENDING", attemptCount: 0 });
    expect(fresh.event.body).toBe(event.body);
    const job = await db().job.findFirstOrThrow({ where: { uniqueKey: `deliver:${r.deliveryId}` } });
    expect(job).toMatchObject({ type: DELIVER_JOB, status: "QUEUED" });
    expect(JSON.parse(job.payload)).toEqual({ deliveryId: r.deliveryId });
    // Until it has been tried once, a second resend is refused (double clicks).
    expect((await failure(c().resend({ mode: "sandbox", deliveryId: original.id }))).appCode).toBe("CONFLICT");
    received.length = 0;
    await attemptDelivery(db(), r.deliveryId, { allowLoopbackInSandbox: true });
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toBe(event.body);
    expect(received[0]!.headers["x-webhook-id"]).toBe(original.eventId);
    // The original delivery is untouched.
    expect((await db().webhookDelivery.findUniqueOrThrow({ where: { id: original.id } })).status).toBe("DELIVERED");
  });

  it("resend answers NOT_FOUND for another merchant's or mode's delivery", async () => {
    const original = (await c().deliveries({ mode: "sandbox" })).items[0]!;
    expect((await failure(callerFor(b).webhooks.resend({ mode: "sandbox", deliveryId: original.id }))).code).toBe("NOT_FOUND");
    await approveGoLive(db(), m.merchantId);
    expect((await failure(c().resend({ mode: "live", deliveryId: original.id }))).code).toBe("NOT_FOUND");
    expect((await failure(c().resend({ mode: "sandbox", deliveryId: "del_nope" }))).code).toBe("NOT_FOUND");
  });

  it("sendTest delivers a signed webhook.test event to that endpoint only", async () => {
    const before = await db().webhookDelivery.count();
    const r = await c().sendTest({ mode: "sandbox", endpointId: hookB });
    expect(await db().webhookDelivery.count()).toBe(before + 1);
    const delivery = await db().webhookDelivery.findUniqueOrThrow({ where: { id: r.deliveryId }, include: { event: true } });
    expect(delivery).toMatchObject({ eventId: r.eventId, endpointId: hookB, url: `${receiverUrl}/fail`, status: "PENDING" });
    expect(delivery.event).toMatchObject({ merchantId: m.merchantId, mode: "sandbox", type: "webhook.test", subjectId: null });
    const body = JSON.parse(delivery.event.body);
    expect(body).toMatchObject({
      id: r.eventId,
      type: "webhook.test",
      mode: "sandbox",
      data: { test: true, endpoint_id: hookB, payment: { paymentId: "pay_0_TestEventSample", status: "SUCCESS" } },
    });
    expect(await db().job.count({ where: { uniqueKey: `deliver:${r.deliveryId}`, type: DELIVER_JOB } })).toBe(1);

    // Delivered like a real event: signed over the stored body with the mode's signing secret.
    const ok = await c().sendTest({ mode: "sandbox", endpointId: hookA });
    received.length = 0;
    await attemptDelivery(db(), ok.deliveryId, { allowLoopbackInSandbox: true });
    const got = received[0]!;
    expect(got.headers["x-webhook-event"]).toBe("webhook.test");
    expect(got.headers["x-webhook-id"]).toBe(ok.eventId);
    expect(verifyWebhookSignature(m.sandbox.signingSecret, String(got.headers["x-webhook-signature"]), got.body)).toBe(true);
    expect(verifyWebhookSignature(a.sandbox.signingSecret, String(got.headers["x-webhook-signature"]), got.body)).toBe(false);
    const [shown] = (await c().deliveries({ mode: "sandbox", endpointId: hookA })).items;
    expect(shown).toMatchObject({
      id: ok.deliveryId,
      eventType: "webhook.test",
      status: "DELIVERED",
      attempts: [{ attemptNo: 1, statusCode: 200, responseExcerpt: '{"ok":true}' }],
    });
  });

  it("sendTest works on a disabled endpoint, not on another merchant's, and is rate limited", async () => {
    await c().update({ mode: "sandbox", endpointId: hookA, enabled: false });
    await c().sendTest({ mode: "sandbox", endpointId: hookA });
    expect((await failure(callerFor(b).webhooks.sendTest({ mode: "sandbox", endpointId: hookA }))).code).toBe("NOT_FOUND");
    expect((await failure(c().sendTest({ mode: "live", endpointId: hookA }))).code).toBe("NOT_FOUND");
    const sent = await db().webhookEvent.count({ where: { merchantId: m.merchantId, type: "webhook.test" } });
    for (let i = sent; i < 10; i++) await c().sendTest({ mode: "sandbox", endpointId: hookA });
    expect((await failure(c().sendTest({ mode: "sandbox", endpointId: hookA }))).appCode).toBe("RATE_LIMITED");
  });
});

describe("isolation and CSRF", () => {
  it("another merchant sees nothing of A's and cannot change it", async () => {
    const outsider = await createMerchant(db(), { name: "Outsider", email: "outsider@example.com", password: "a-long-password" });
    const aPay = await newPayment(a, "sandbox");
    const aHook = await callerFor(a).webhooks.create({ mode: "sandbox", url: "https://a.example/iso", events: ["*"] });
    await cancelPayment(db(), aPay);
    const aDelivery = (await callerFor(a).webhooks.deliveries({ mode: "sandbox", endpointId: aHook.id })).items[0]!;
    const cb = callerFor(outsider);
    expect((await cb.payments.list({ mode: "sandbox" })).items).toEqual([]);
    expect((await cb.payments.list({ mode: "sandbox", orderId: (await db().payment.findUniqueOrThrow({ where: { id: aPay } })).orderId })).items).toEqual([]);
    expect((await cb.webhooks.list({ mode: "sandbox" })).endpoints).toEqual([]);
    expect((await cb.webhooks.deliveries({ mode: "sandbox" })).items).toEqual([]);
    expect((await failure(cb.payments.get({ mode: "sandbox", paymentId: aPay }))).code).toBe("NOT_FOUND");
    expect((await failure(cb.webhooks.update({ mode: "sandbox", endpointId: aHook.id, url: "https://evil.example/x" }))).code).toBe("NOT_FOUND");
    expect((await failure(cb.webhooks.delete({ mode: "sandbox", endpointId: aHook.id }))).code).toBe("NOT_FOUND");
    expect((await failure(cb.webhooks.sendTest({ mode: "sandbox", endpointId: aHook.id }))).code).toBe("NOT_FOUND");
    expect((await failure(cb.webhooks.resend({ mode: "sandbox", deliveryId: aDelivery.id }))).code).toBe("NOT_FOUND");
    expect(await db().webhookEndpoint.findUniqueOrThrow({ where: { id: aHook.id } })).toMatchObject({ url: "https://a.example/iso", merchantId: a.merchantId });
  });

  it("refuses every mutation without the same-origin marker; queries still answer", async () => {
    const ep = await callerFor(a).webhooks.create({ mode: "sandbox", url: "https://a.example/csrf", events: ["*"] });
    await cancelPayment(db(), await newPayment(a, "sandbox"));
    const delivery = (await callerFor(a).webhooks.deliveries({ mode: "sandbox", endpointId: ep.id })).items[0]!;
    const x = callerFor(a, { sameOrigin: false }).webhooks;
    expect((await failure(x.create({ mode: "sandbox", url: "https://a.example/csrf2", events: ["*"] }))).code).toBe("FORBIDDEN");
    expect((await failure(x.update({ mode: "sandbox", endpointId: ep.id, enabled: false }))).code).toBe("FORBIDDEN");
    expect((await failure(x.delete({ mode: "sandbox", endpointId: ep.id }))).code).toBe("FORBIDDEN");
    expect((await failure(x.resend({ mode: "sandbox", deliveryId: delivery.id }))).code).toBe("FORBIDDEN");
    expect((await failure(x.sendTest({ mode: "sandbox", endpointId: ep.id }))).code).toBe("FORBIDDEN");
    expect(await db().webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } })).toMatchObject({ enabled: true });
    expect(await db().webhookEndpoint.count({ where: { url: "https://a.example/csrf2" } })).toBe(0);
    await x.list({ mode: "sandbox" });
    await callerFor(a, { sameOrigin: false }).payments.list({ mode: "sandbox" });
  });

  it("refuses callers without a merchant session", async () => {
    const anon = dashboardRouter.createCaller(dashboardContext(services(), null, { clientIp: null }));
    expect((await failure(anon.payments.list({ mode: "sandbox" }))).code).toBe("UNAUTHORIZED");
    expect((await failure(anon.webhooks.list({ mode: "sandbox" }))).code).toBe("UNAUTHORIZED");
  });
});

describe("CSV export", () => {
  let m: Merchant;
  const sessionCookie = async (sub: string, role: "merchant" | "admin" = "merchant") =>
    `next-auth.session-token=${await encode({ token: { sub, role, email: "x@example.com" }, secret: getConfig().secrets.nextAuthSecret })}`;
  const get = async (query: string, cookie?: string) => {
    const res = await exportCsv(new NextRequest(`http://localhost/api/dashboard/payments/export${query}`, { headers: cookie ? { cookie } : {} }));
    // Keep the BOM (Response.text() would drop it) to check it is sent.
    return { status: res.status, headers: res.headers, text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(await res.arrayBuffer()) };
  };
  beforeAll(async () => {
    m = await createMerchant(db(), { name: "Exporter", email: "exporter@example.com", password: "a-long-password" });
    await newPayment(m, "sandbox", {
      orderId: "ORDER_CSV1",
      description: '=HYPERLINK("http://evil.example","click")',
      name: "Rao, Asha",
      phone: "+919876543210",
      createdAt: ist("2025-03-10T10:00:00.000"),
    });
    await newPayment(m, "sandbox", { orderId: "ORDER_CSV2", description: 'Line one\nsays "hi"', name: "@admin", createdAt: ist("2025-03-11T10:00:00.000") });
    const paid = await newPayment(m, "sandbox", { orderId: "ORDER_CSV3", amount: 100, createdAt: ist("2025-03-12T10:00:00.000") });
    await startAttempt(db(), sandboxProcessor, paid, card(GOOD_CARD));
    await newPayment(b, "sandbox", { orderId: "ORDER_CSV_OTHER" });
  });

  it("escapes cells and guards against formulas", () => {
    expect(csvCell(null)).toBe("");
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    for (const f of ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"]) expect(csvCell(f).replace(/^"/, "").startsWith("'")).toBe(true);
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
  });

  it("needs a merchant session", async () => {
    expect((await get("?mode=sandbox")).status).toBe(401);
    expect((await get("?mode=sandbox", await sessionCookie(m.merchantId, "admin"))).status).toBe(401);
    expect((await get("?mode=sandbox", "next-auth.session-token=forged")).status).toBe(401);
  });

  it("streams the merchant's payments of the mode as CSV, newest first, escaped", async () => {
    const res = await get("?mode=sandbox", await sessionCookie(m.merchantId));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="payments-sandbox-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.text.startsWith("\uFEFFpayment_id,order_id,amount,")).toBe(true);
    const rows = csvRows(res.text.slice(1));
    expect(rows[0]).toEqual([
      "payment_id",
      "order_id",
      "amount",
      "currency",
      "status",
      "method",
      "description",
      "customer_name",
      "customer_email",
      "customer_phone",
      "bank_reference",
      "created_at",
      "paid_at",
      "expires_at",
      "mode",
      "amount_refunded",
      "refund_status",
    ]);
    const body = rows.slice(1);
    expect(body.map((r) => r[1])).toEqual(["ORDER_CSV3", "ORDER_CSV2", "ORDER_CSV1"]);
    const [r3, r2, r1] = body as [string[], string[], string[]];
    expect(r3.slice(2, 6)).toEqual(["1.00", "INR", "SUCCESS", "CARD"]);
    expect(r3[12]).not.toBe("");
    expect(r2[6]).toBe(`Line one\nsays "hi"`);
    expect(r2[7]).toBe("'@admin");
    expect(r1[6]).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(r1[7]).toBe("Rao, Asha");
    expect(r1[9]).toBe("'+919876543210");
    expect(r1[11]).toBe(ist("2025-03-10T10:00:00.000").toISOString());
    expect(r1[14]).toBe("sandbox");
    expect(r1.slice(15)).toEqual(["0.00", "NONE"]);
  });

  it("applies the list filters and checks them", async () => {
    const cookie = await sessionCookie(m.merchantId);
    const orders = async (q: string) =>
      csvRows((await get(q, cookie)).text.slice(1))
        .slice(1)
        .map((r) => r[1]);
    expect(await orders("?mode=sandbox&status=SUCCESS")).toEqual(["ORDER_CSV3"]);
    expect(await orders("?mode=sandbox&from=2025-03-10&to=2025-03-11")).toEqual(["ORDER_CSV2", "ORDER_CSV1"]);
    expect(await orders("?mode=sandbox&orderId=ORDER_CSV2")).toEqual(["ORDER_CSV2"]);
    expect(await orders("?mode=sandbox&orderId=ORDER_CSV_OTHER")).toEqual([]);
    expect((await get("?mode=sandbox&status=NOPE", cookie)).status).toBe(400);
    expect((await get("?mode=sandbox&from=2025-03-12&to=2025-03-01", cookie)).status).toBe(400);
    expect((await get("?mode=staging", cookie)).status).toBe(400);
    // Live before go-live is refused; after it, only live rows come out.
    expect((await get("?mode=live", cookie)).status).toBe(403);
    await approveGoLive(db(), m.merchantId);
    await newPayment(m, "live", { orderId: "ORDER_CSV_LIVE2" });
    expect(await orders("?mode=live")).toEqual(["ORDER_CSV_LIVE2"]);
  });

  it("pages through more rows than one database batch", async () => {
    const big = await createMerchant(db(), { name: "Big", email: "big@example.com", password: "a-long-password" });
    const base = Date.parse("2025-01-01T00:00:00.000Z");
    await db().payment.createMany({
      data: Array.from({ length: 1203 }, (_, i) => ({
        id: `pay_${base}_${String(i).padStart(6, "0")}`,
        merchantId: big.merchantId,
        mode: "sandbox",
        orderId: `ORDER_BIG${i}`,
        amountPaise: 100 + i,
        status: "CREATED",
        expiresAt: new Date(base + 3600_000),
        // Every ten rows share a time: ties across batch edges.
        createdAt: new Date(base + Math.floor(i / 10) * 1000),
      })),
    });
    const rows = csvRows((await get("?mode=sandbox", await sessionCookie(big.merchantId))).text.slice(1)).slice(1);
    expect(rows).toHaveLength(1203);
    expect(new Set(rows.map((r) => r[0])).size).toBe(1203);
  });
});
