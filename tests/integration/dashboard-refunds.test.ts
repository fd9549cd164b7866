import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_TARGETS } from "../helpers/db-targets";
import { csvRows } from "../helpers/csv";
import { startPostgres, type PostgresCluster } from "../helpers/postgres";
import { ist } from "../helpers/ist";
import { dashboardContext, failure, merchantSession } from "../helpers/dashboard";

// The dashboard's refunds (refunds.create / list / forPayment, the payment page's refund summary and
// timeline, the CSV export) through the real router (createCaller) on both databases. Payments are
// paid with the sandbox simulation service and refunds processed by calling the refund job's
// function, as the job runner would.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-dash-refunds-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
delete process.env.NEXTAUTH_URL;

const { migrateTestDatabase } = await import("../helpers/test-db");
const { createServices, getServices } = await import("@/server/services");
const { getConfig } = await import("@/server/config");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { createMerchant, approveGoLive } = await import("@/server/services/merchants/merchants");
const { createPayment } = await import("@/server/services/payments/payments");
const { simulatePayment } = await import("@/server/services/payments/simulate");
const { sandboxProcessor } = await import("@/server/providers/payments/sandbox");
const { createRefund, processRefund } = await import("@/server/services/refunds/refunds");
const { exportRefundsCsv } = await import("@/server/services/refunds/dashboard");
const { exportPaymentsCsv } = await import("@/server/services/payments/queries");
const { AUTO_REFUND_REASON, refundFiltersFromQuery } = await import("@/lib/schemas/refunds");
const { GET: exportCsv } = await import("@/app/api/dashboard/refunds/export/route");
const { encode } = await import("next-auth/jwt");
const { NextRequest } = await import("next/server");

type Db = import("@/server/db/client").Db;
type Services = ReturnType<typeof getServices>;
type Merchant = Awaited<ReturnType<typeof createMerchant>>;
type Mode = "sandbox" | "live";

describe("the refunds list filters", () => {
  it("reads the list filters from a URL query (page and CSV export)", () => {
    const q = new URLSearchParams({ status: "FAILED", q: "rfnd_abc", from: "2025-01-01", to: "2025-01-31" });
    expect(refundFiltersFromQuery(q)).toEqual({ filters: { status: "FAILED", q: "rfnd_abc", from: "2025-01-01", to: "2025-01-31" }, errors: {} });
    const bad = refundFiltersFromQuery(new URLSearchParams({ status: "DONE", q: "pay 1" }));
    expect(bad.filters).toEqual({});
    expect(Object.keys(bad.errors).sort()).toEqual(["q", "status"]);
  });
});

describe.each(DB_TARGETS)("dashboard refunds on %s", (target) => {
  let pg: PostgresCluster | undefined;
  let services: Services;
  let db: Db;
  let seq = 0;

  const dash = (m: Merchant, sameOrigin = true) => dashboardRouter.createCaller(dashboardContext(services, merchantSession(m), { sameOrigin }));
  const newMerchant = (name: string) =>
    createMerchant(db, { name, email: `${name.toLowerCase().replace(/\W+/g, "-")}-${target}-${++seq}@example.com`, password: "a-long-password" });

  async function newPayment(m: Merchant, mode: Mode = "sandbox", amount = 50_000, orderId = `ORDER_RF${++seq}`) {
    const { payment } = await createPayment(db, services.bulk, m.merchantId, mode, { orderId, amount }, 30);
    return payment.id;
  }
  const simulate = (m: Merchant, paymentId: string, input: Parameters<typeof simulatePayment>[4]) =>
    simulatePayment(db, sandboxProcessor, { merchantId: m.merchantId, mode: "sandbox" }, paymentId, input);
  async function paidPayment(m: Merchant, amount = 50_000, orderId?: string) {
    const id = await newPayment(m, "sandbox", amount, orderId);
    expect((await simulate(m, id, { outcome: "SUCCESS" })).payment.status).toBe("SUCCESS");
    return id;
  }
  const detail = (m: Merchant, paymentId: string) => dash(m).payments.get({ mode: "sandbox", paymentId });
  const runRefund = (refundId: string) => processRefund(services.atomicWriter, services.paymentProcessors, refundId);

  beforeAll(async () => {
    if (target === "sqlite") {
      await migrateTestDatabase(process.env.DATABASE_URL!);
      services = getServices();
    } else {
      pg = await startPostgres({ migrated: true });
      await migrateTestDatabase(pg.url);
      services = createServices({ ...getConfig(), databaseUrl: pg.url });
    }
    db = services.db;
  }, 60_000);
  afterAll(async () => {
    if (pg) {
      await db.$disconnect();
      await pg.stop();
    }
  });

  it("refunds in part, then the rest, and the payment page shows the refunds, the summary and the timeline", async () => {
    const m = await newMerchant("Partial");
    await dash(m).webhooks.create({ mode: "sandbox", url: "http://127.0.0.1:9/refund-hook", events: ["refund.processed", "refund.failed"] });
    const paymentId = await paidPayment(m, 50_000);
    const before = await detail(m, paymentId);
    expect(before.payment).toMatchObject({ refundedPaise: 0, amountRefunded: "0.00", refundStatus: "NONE", refundablePaise: 50_000, refundable: "500.00" });
    expect(Date.parse(before.payment.refundableUntil!) - Date.parse(before.payment.paidAt!)).toBe(180 * 86_400_000);
    expect(before.refunds).toEqual([]);

    const r1 = await dash(m).refunds.create({ mode: "sandbox", paymentId, amount: "120.50", reason: "  Returned one item  " });
    expect(r1).toMatchObject({ paymentId, amount: "120.50", status: "PENDING", reason: "Returned one item", automatic: false, merchantRefundId: null });
    expect(r1.refundId).toMatch(/^rfnd_/);
    let d = await detail(m, paymentId);
    expect(d.payment).toMatchObject({ amountRefunded: "120.50", refundStatus: "PARTIAL", refundablePaise: 37_950, refundable: "379.50" });
    expect(d.refunds.map((r) => [r.refundId, r.amountPaise, r.status, r.attemptId])).toEqual([[r1.refundId, 12_050, "PENDING", null]]);
    expect(d.timeline.at(-1)).toMatchObject({
      fromStatus: "SUCCESS",
      toStatus: "SUCCESS",
      reason: "REFUND_CREATED",
      refundId: r1.refundId,
      refund: { amountPaise: 12_050, amount: "120.50", automatic: false },
    });
    // Payment status rows carry no refund.
    expect(d.timeline.filter((e) => e.reason !== "REFUND_CREATED").every((e) => e.refundId === null && e.refund === null)).toBe(true);

    // An empty reason is no reason.
    const r2 = await dash(m).refunds.create({ mode: "sandbox", paymentId, amount: "379.5", reason: "" });
    expect(r2).toMatchObject({ amount: "379.50", reason: null });
    d = await detail(m, paymentId);
    expect(d.payment).toMatchObject({ amountRefunded: "500.00", refundStatus: "FULL", refundablePaise: 0 });
    expect(d.refunds.map((r) => r.refundId)).toEqual([r2.refundId, r1.refundId]);

    await runRefund(r1.refundId);
    await runRefund(r2.refundId);
    d = await detail(m, paymentId);
    expect(d.refunds.map((r) => r.status)).toEqual(["PROCESSED", "PROCESSED"]);
    expect(d.refunds.every((r) => r.processedAt !== null)).toBe(true);
    expect(d.timeline.filter((e) => e.refundId).map((e) => [e.reason, e.refundId, e.refund?.amount])).toEqual([
      ["REFUND_CREATED", r1.refundId, "120.50"],
      ["REFUND_CREATED", r2.refundId, "379.50"],
      ["REFUND_PROCESSED", r1.refundId, "120.50"],
      ["REFUND_PROCESSED", r2.refundId, "379.50"],
    ]);
    // The refunds' webhook events are listed with the payment's.
    const types = d.webhooks.map((w) => w.type);
    expect(types).toContain("payment.success");
    expect(types.filter((t) => t === "refund.processed")).toHaveLength(2);
    expect(d.webhooks.filter((w) => w.type === "refund.processed").every((w) => w.deliveries.length === 1)).toBe(true);

    const listed = await dash(m).refunds.forPayment({ mode: "sandbox", paymentId });
    expect(listed.items.map((r) => r.refundId)).toEqual([r2.refundId, r1.refundId]);
    expect(listed.items[1]).toMatchObject({ merchantOrderId: d.payment.orderId, currency: "INR", failureReason: null });

    // Fully refunded: nothing is left, by default or by amount.
    expect(await failure(dash(m).refunds.create({ mode: "sandbox", paymentId, amount: "0.01" }))).toMatchObject({
      code: "BAD_REQUEST",
      appCode: "REFUND_EXCEEDS_AMOUNT",
      fields: ["amount"],
    });
    // The payments list shows the refund state.
    expect((await dash(m).payments.list({ mode: "sandbox" })).items.find((p) => p.id === paymentId)?.refundStatus).toBe("FULL");
  });

  it("a failed refund shows its reason and frees its amount", async () => {
    const m = await newMerchant("Failing");
    const paymentId = await paidPayment(m, 20_000);
    const r = await dash(m).refunds.create({ mode: "sandbox", paymentId, amount: "200.00", reason: "test fail_refund" });
    expect((await detail(m, paymentId)).payment.refundablePaise).toBe(0);
    await runRefund(r.refundId);
    const d = await detail(m, paymentId);
    expect(d.refunds[0]).toMatchObject({ refundId: r.refundId, status: "FAILED", processedAt: null });
    expect(d.refunds[0]!.failureReason).toMatch(/refused/);
    expect(d.payment).toMatchObject({ refundedPaise: 0, refundStatus: "NONE", refundablePaise: 20_000 });
    expect(d.timeline.at(-1)).toMatchObject({ reason: "REFUND_FAILED", refundId: r.refundId });
  });

  it("the payments CSV carries each payment's refunded amount and refund status", async () => {
    const m = await newMerchant("Exporter");
    const none = await paidPayment(m, 30_000, `ORDER_EXP_NONE_${target}`);
    const part = await paidPayment(m, 30_000, `ORDER_EXP_PART_${target}`);
    const full = await paidPayment(m, 30_000, `ORDER_EXP_FULL_${target}`);
    const failedBack = await paidPayment(m, 30_000, `ORDER_EXP_FAILED_${target}`);
    const p1 = await dash(m).refunds.create({ mode: "sandbox", paymentId: part, amount: "75.25" });
    await runRefund(p1.refundId);
    await dash(m).refunds.create({ mode: "sandbox", paymentId: full, amount: "100" }); // still PENDING: it counts
    await runRefund((await dash(m).refunds.create({ mode: "sandbox", paymentId: full, amount: "200" })).refundId);
    await runRefund((await dash(m).refunds.create({ mode: "sandbox", paymentId: failedBack, amount: "50", reason: "fail_refund" })).refundId);

    let text = "";
    for await (const chunk of exportPaymentsCsv(db, m.merchantId, "sandbox", {})) text += chunk;
    const [header, ...rows] = csvRows(text.slice(1));
    const col = (name: string) => header!.indexOf(name);
    expect(col("amount_refunded")).toBeGreaterThan(-1);
    expect(col("refund_status")).toBeGreaterThan(-1);
    const byId = new Map(rows.map((r) => [r[0], [r[col("amount")], r[col("amount_refunded")], r[col("refund_status")]]]));
    expect(byId.get(none)).toEqual(["300.00", "0.00", "NONE"]);
    expect(byId.get(part)).toEqual(["300.00", "75.25", "PARTIAL"]);
    expect(byId.get(full)).toEqual(["300.00", "300.00", "FULL"]);
    // A FAILED refund gives its amount back.
    expect(byId.get(failedBack)).toEqual(["300.00", "0.00", "NONE"]);
  });

  it("refuses more than is refundable, a payment that is not SUCCESS, bad input, and other merchants' or modes' payments", async () => {
    const m = await newMerchant("Refuser");
    const other = await newMerchant("Stranger");
    const paid = await paidPayment(m, 10_000);
    const create = (input: Record<string, unknown>, who = m, mode: Mode = "sandbox") =>
      failure(dash(who).refunds.create({ mode, paymentId: paid, amount: "1", ...input } as never));

    const over = await create({ amount: "100.01" });
    expect(over).toMatchObject({ code: "BAD_REQUEST", appCode: "REFUND_EXCEEDS_AMOUNT", fields: ["amount"] });
    expect(over.message).toMatch(/100\.00/);
    await dash(m).refunds.create({ mode: "sandbox", paymentId: paid, amount: "60" });
    expect(await create({ amount: "40.01" })).toMatchObject({ appCode: "REFUND_EXCEEDS_AMOUNT" });

    for (const amount of ["0", "0.00", "-1", "1.234", "abc", "", "1e3", " "]) {
      expect(await create({ amount }), amount).toMatchObject({ code: "BAD_REQUEST", fields: ["amount"] });
    }
    expect(await create({ reason: "x".repeat(256) })).toMatchObject({ code: "BAD_REQUEST", fields: ["reason"] });

    const open = await newPayment(m);
    expect(await create({ paymentId: open })).toMatchObject({ code: "CONFLICT", appCode: "PAYMENT_NOT_REFUNDABLE" });
    const failed = await newPayment(m);
    await simulate(m, failed, { outcome: "FAILED" });
    expect(await create({ paymentId: failed })).toMatchObject({ code: "CONFLICT", appCode: "PAYMENT_NOT_REFUNDABLE" });

    // Another merchant's payment, an unknown id and the other mode's are all "not found".
    expect(await create({}, other)).toMatchObject({ code: "NOT_FOUND", appCode: "PAYMENT_NOT_FOUND" });
    expect(await create({ paymentId: "pay_1_nope" })).toMatchObject({ code: "NOT_FOUND", appCode: "PAYMENT_NOT_FOUND" });
    expect(await failure(dash(other).refunds.forPayment({ mode: "sandbox", paymentId: paid }))).toMatchObject({ appCode: "PAYMENT_NOT_FOUND" });
    expect(await failure(dash(other).payments.get({ mode: "sandbox", paymentId: paid }))).toMatchObject({ appCode: "PAYMENT_NOT_FOUND" });
    // Live before go-live is refused; after it, the sandbox payment is not found there.
    expect(await create({}, m, "live")).toMatchObject({ appCode: "LIVE_MODE_NOT_ENABLED" });
    await approveGoLive(db, m.merchantId);
    expect(await create({}, m, "live")).toMatchObject({ appCode: "PAYMENT_NOT_FOUND" });
    // Live has no processor yet: 503 as in the API.
    const live = await newPayment(m, "live");
    expect(await create({ paymentId: live }, m, "live")).toMatchObject({ code: "SERVICE_UNAVAILABLE", appCode: "SERVICE_UNAVAILABLE" });

    // A cross-site request is refused before anything is read.
    expect(await failure(dash(m, false).refunds.create({ mode: "sandbox", paymentId: paid, amount: "1" }))).toMatchObject({ code: "FORBIDDEN" });
    // Nothing above created a refund.
    expect((await dash(m).refunds.forPayment({ mode: "sandbox", paymentId: paid })).items.map((r) => r.amount)).toEqual(["60.00"]);
    expect((await dash(other).refunds.list({ mode: "sandbox" })).items).toEqual([]);
  });

  it("shows a late success and an automatic refund in the timeline and the refunds list", async () => {
    const m = await newMerchant("Late");
    // A customer leaves a pending attempt, and it succeeds late: it pays the payment.
    const latePaid = await newPayment(m, "sandbox", 30_000);
    const { attemptId: first } = await simulate(m, latePaid, { outcome: "PENDING" });
    await simulate(m, latePaid, { outcome: "ABANDONED", attemptId: first });
    await simulate(m, latePaid, { outcome: "SUCCESS", attemptId: first });
    let d = await detail(m, latePaid);
    expect(d.payment.status).toBe("SUCCESS");
    expect(d.timeline.map((e) => e.reason)).toEqual(["CREATED", "ATTEMPT_STARTED", "ATTEMPT_ABANDONED", "LATE_ATTEMPT_SUCCEEDED"]);
    expect(d.attempts.map((a) => a.status)).toEqual(["SUCCESS"]);

    // Another customer pays by another method meanwhile: the late money goes back in full, automatically.
    const paymentId = await newPayment(m, "sandbox", 30_000);
    const { attemptId: left } = await simulate(m, paymentId, { outcome: "PENDING" });
    await simulate(m, paymentId, { outcome: "ABANDONED", attemptId: left });
    await simulate(m, paymentId, { outcome: "SUCCESS" });
    await simulate(m, paymentId, { outcome: "SUCCESS", attemptId: left });
    d = await detail(m, paymentId);
    expect(d.refunds).toHaveLength(1);
    const auto = d.refunds[0]!;
    expect(auto).toMatchObject({ amount: "300.00", status: "PENDING", reason: AUTO_REFUND_REASON, automatic: true, attemptId: left });
    expect(d.timeline.map((e) => e.reason)).toEqual([
      "CREATED",
      "ATTEMPT_STARTED",
      "ATTEMPT_ABANDONED",
      "ATTEMPT_STARTED",
      "ATTEMPT_SUCCEEDED",
      AUTO_REFUND_REASON,
    ]);
    expect(d.timeline.at(-1)).toMatchObject({ attemptId: left, refundId: auto.refundId, refund: { amount: "300.00", automatic: true } });
    // Money beyond the payment: the payment itself is still all refundable.
    expect(d.payment).toMatchObject({ refundedPaise: 0, refundStatus: "NONE", refundablePaise: 30_000 });

    await runRefund(auto.refundId);
    d = await detail(m, paymentId);
    expect(d.timeline.at(-1)).toMatchObject({ reason: "REFUND_PROCESSED", attemptId: left, refundId: auto.refundId, refund: { automatic: true } });
    const list = await dash(m).refunds.list({ mode: "sandbox" });
    expect(list.items.map((r) => [r.refundId, r.paymentId, r.status, r.automatic])).toEqual([[auto.refundId, paymentId, "PROCESSED", true]]);
  });

  describe("the Refunds list and its CSV", () => {
    let m: Merchant;
    const r: Record<string, string> = {};
    const pay: Record<string, string> = {};
    beforeAll(async () => {
      m = await newMerchant("Lister");
      const other = await newMerchant("Other lister");
      await approveGoLive(db, m.merchantId);
      pay.a = await paidPayment(m, 100_000, `ORDER_LIST_A_${target}`);
      pay.b = await paidPayment(m, 100_000, `ORDER_LIST_B_${target}`);
      const make = async (key: string, paymentId: string, amount: string, createdAt: Date, reason?: string) => {
        r[key] = (await dash(m).refunds.create({ mode: "sandbox", paymentId, amount, reason })).refundId;
        await db.refund.update({ where: { id: r[key] }, data: { createdAt } });
      };
      await make("early", pay.a, "10", ist("2025-03-09T23:59:59.999"), '=HYPERLINK("http://evil.example","x")');
      await make("d10", pay.a, "20", ist("2025-03-10T00:00:00.000"), "Rao, Asha: returned");
      // Two at the same instant: the cursor must still page through both.
      await make("d11a", pay.b, "30", ist("2025-03-11T12:00:00.000"));
      await make("d11b", pay.b, "40", ist("2025-03-11T12:00:00.000"), "fail_refund please");
      // One the merchant names, through the API's service.
      const named = await createRefund(services, sandboxProcessor, { merchantId: m.merchantId, mode: "sandbox" }, pay.a, {
        amount: 5_000,
        merchantRefundId: "MY_RF_1",
      });
      r.named = named.refundId;
      await db.refund.update({ where: { id: r.named }, data: { createdAt: ist("2025-03-12T08:00:00.000") } });
      await runRefund(r.d10);
      await runRefund(r.d11b);
      // The other merchant's, and a live refund of this merchant's (the live processor is not configured, so through the service).
      await dash(other).refunds.create({ mode: "sandbox", paymentId: await paidPayment(other), amount: "1" });
      const live = await newPayment(m, "live", 7_000);
      await db.payment.update({ where: { id: live }, data: { status: "SUCCESS", paidAt: new Date() } });
      pay.live = live;
      r.live = (await createRefund(services, sandboxProcessor, { merchantId: m.merchantId, mode: "live" }, live, { amount: 700 })).refundId;
    });
    const list = (input: Record<string, unknown>, mode: Mode = "sandbox") => dash(m).refunds.list({ mode, ...input });
    const ids = (x: { items: { refundId: string }[] }) => x.items.map((i) => i.refundId);
    const tied = () => [r.d11a!, r.d11b!].sort().reverse();

    it("lists the merchant's refunds of the mode, newest first", async () => {
      const all = await list({});
      expect(ids(all)).toEqual([r.named, ...tied(), r.d10, r.early]);
      expect(all.nextCursor).toBeNull();
      expect(all.items[0]).toMatchObject({
        paymentId: pay.a,
        merchantOrderId: `ORDER_LIST_A_${target}`,
        merchantRefundId: "MY_RF_1",
        amount: "50.00",
        amountPaise: 5_000,
      });
      expect(ids(await list({}, "live"))).toEqual([r.live]);
      expect((await dash(m).refunds.forPayment({ mode: "live", paymentId: pay.live })).items.map((x) => x.refundId)).toEqual([r.live]);
      expect(await failure(dash(m).refunds.forPayment({ mode: "sandbox", paymentId: pay.live }))).toMatchObject({ appCode: "PAYMENT_NOT_FOUND" });
    });

    it("filters by status, an exact id and IST days (both ends inclusive)", async () => {
      expect(ids(await list({ status: "PROCESSED" }))).toEqual([r.d10]);
      expect(ids(await list({ status: "FAILED" }))).toEqual([r.d11b]);
      expect(ids(await list({ status: "PENDING" }))).toEqual([r.named, r.d11a, r.early]);
      expect(ids(await list({ q: r.d10 }))).toEqual([r.d10]);
      expect(ids(await list({ q: pay.b }))).toEqual(tied());
      expect(ids(await list({ q: "MY_RF_1" }))).toEqual([r.named]);
      expect(ids(await list({ q: `ORDER_LIST_A_${target}` }))).toEqual([r.named, r.d10, r.early]);
      expect(ids(await list({ q: "MY_RF" }))).toEqual([]);
      expect(ids(await list({ q: r.live }))).toEqual([]);
      expect(ids(await list({ from: "2025-03-10", to: "2025-03-11" }))).toEqual([...tied(), r.d10]);
      expect(ids(await list({ to: "2025-03-09" }))).toEqual([r.early]);
      expect(ids(await list({ from: "2025-03-12" }))).toEqual([r.named]);
      expect(ids(await list({ q: pay.b, status: "PENDING", from: "2025-03-11", to: "2025-03-11" }))).toEqual([r.d11a]);
    });

    it("pages with a cursor without gaps or duplicates, ties included, also with a search", async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await list({ limit: 2, ...(cursor ? { cursor } : {}) });
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...ids(page));
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([r.named, ...tied(), r.d10, r.early]);
      const first = await list({ q: pay.b, limit: 1 });
      expect(ids(first)).toEqual([tied()[0]]);
      const second = await list({ q: pay.b, limit: 1, cursor: first.nextCursor! });
      expect(ids(second)).toEqual([tied()[1]]);
      expect(second.nextCursor).toBeNull();
    });

    it("refuses bad filters", async () => {
      expect((await failure(list({ status: "DONE" }))).code).toBe("BAD_REQUEST");
      expect((await failure(list({ from: "2025-03-12", to: "2025-03-10" }))).fields).toEqual(["to"]);
      expect((await failure(list({ q: "rfnd 1" }))).fields).toEqual(["q"]);
      expect((await failure(list({ q: "x".repeat(81) }))).fields).toEqual(["q"]);
      expect((await failure(list({ cursor: "garbage" }))).appCode).toBe("VALIDATION_ERROR");
    });

    const csv = async (mode: Mode, filters: Record<string, string> = {}) => {
      let text = "";
      for await (const chunk of exportRefundsCsv(db, m.merchantId, mode, filters)) text += chunk;
      return text;
    };

    it("exports the filtered refunds as CSV, newest first, formula-safe", async () => {
      const text = await csv("sandbox");
      expect(text.startsWith("\uFEFFrefund_id,payment_id,order_id,")).toBe(true);
      const rows = csvRows(text.slice(1));
      expect(rows[0]).toEqual([
        "refund_id",
        "payment_id",
        "order_id",
        "merchant_refund_id",
        "amount",
        "currency",
        "status",
        "reason",
        "automatic",
        "failure_reason",
        "created_at",
        "processed_at",
        "mode",
      ]);
      const body = rows.slice(1);
      expect(body.map((x) => x[0])).toEqual([r.named, ...tied(), r.d10, r.early]);
      const byId = new Map(body.map((x) => [x[0], x]));
      expect(byId.get(r.named)).toEqual([
        r.named,
        pay.a,
        `ORDER_LIST_A_${target}`,
        "MY_RF_1",
        "50.00",
        "INR",
        "PENDING",
        "",
        "false",
        "",
        ist("2025-03-12T08:00:00.000").toISOString(),
        "",
        "sandbox",
      ]);
      expect(byId.get(r.early)![7]).toBe(`'=HYPERLINK("http://evil.example","x")`);
      expect(byId.get(r.d10)!.slice(4, 8)).toEqual(["20.00", "INR", "PROCESSED", "Rao, Asha: returned"]);
      expect(byId.get(r.d10)![11]).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
      expect(byId.get(r.d11b)!.slice(6, 7)).toEqual(["FAILED"]);
      expect(byId.get(r.d11b)![9]).toMatch(/refused/);

      const only = async (mode: Mode, f: Record<string, string>) =>
        csvRows((await csv(mode, f)).slice(1))
          .slice(1)
          .map((x) => x[0]);
      expect(await only("sandbox", { status: "FAILED" })).toEqual([r.d11b]);
      expect(await only("sandbox", { q: pay.b })).toEqual(tied());
      expect(await only("sandbox", { from: "2025-03-10", to: "2025-03-10" })).toEqual([r.d10]);
      expect(await only("live", {})).toEqual([r.live]);
    });

    it.runIf(target === "sqlite")("serves the CSV to the signed-in merchant only, with the page's filters checked", async () => {
      const sessionCookie = async (sub: string, role: "merchant" | "admin" = "merchant") =>
        `next-auth.session-token=${await encode({ token: { sub, role, email: "x@example.com" }, secret: getConfig().secrets.nextAuthSecret })}`;
      const get = async (query: string, cookie?: string) => {
        const res = await exportCsv(new NextRequest(`http://localhost/api/dashboard/refunds/export${query}`, { headers: cookie ? { cookie } : {} }));
        return { status: res.status, headers: res.headers, text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(await res.arrayBuffer()) };
      };
      expect((await get("?mode=sandbox")).status).toBe(401);
      expect((await get("?mode=sandbox", await sessionCookie(m.merchantId, "admin"))).status).toBe(401);
      const cookie = await sessionCookie(m.merchantId);
      const res = await get(`?mode=sandbox&q=${pay.b}`, cookie);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="refunds-sandbox-\d{4}-\d{2}-\d{2}\.csv"$/);
      expect(res.text).toBe(await csv("sandbox", { q: pay.b! }));
      expect((await get("?mode=sandbox&status=DONE", cookie)).status).toBe(400);
      expect((await get("?mode=sandbox&from=2025-03-12&to=2025-03-01", cookie)).status).toBe(400);
      expect(
        csvRows((await get("?mode=live", cookie)).text.slice(1))
          .slice(1)
          .map((x) => x[0]),
      ).toEqual([r.live]);
      // Another merchant's export holds none of these.
      const stranger = await newMerchant("CSV stranger");
      expect(csvRows((await get("?mode=sandbox", await sessionCookie(stranger.merchantId))).text.slice(1))).toHaveLength(1);
    });
  });
});
