import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_TARGETS } from "../helpers/db-targets";
import { request } from "../helpers/http";
import type { TestServer } from "../helpers/server";
import { csvRows } from "../helpers/csv";
import { ist } from "../helpers/ist";
import { dashboardContext, failure, merchantSession, openDashboardTarget } from "../helpers/dashboard";

// The dashboard's Wallet and KYC pages and the operator's fee and wallet forms, through the real
// router (createCaller) on both databases. KYC calls go over HTTP to a real server on the same
// database, with the same keys, so the dashboard reads what the API stored.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-dash-wallet-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
// The server child inherits these, so both processes encrypt and sign alike.
process.env.ENCRYPTION_KEY = crypto.randomBytes(32).toString("base64");
process.env.HASH_KEY = crypto.randomBytes(32).toString("base64");
process.env.NEXTAUTH_SECRET = crypto.randomBytes(32).toString("base64url");
delete process.env.NEXTAUTH_URL;

const { getConfig } = await import("@/server/config");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { createAdmin, createMerchant, approveGoLive } = await import("@/server/services/merchants/merchants");
const { exportLedgerCsv } = await import("@/server/services/wallet/ledger");
const { MAX_KYC_FEE_PAISE } = await import("@/server/services/wallet/operator");
const { KYC_FEE_MAX_PAISE, SANDBOX_BALANCE_CAP_PAISE, TEST_FUNDS_MAX_PAISE } = await import("@/lib/schemas/wallet");
const { GET: exportCsv } = await import("@/app/api/dashboard/wallet/export/route");
const { encode } = await import("next-auth/jwt");
const { NextRequest } = await import("next/server");

type Db = import("@/server/db/client").Db;
type Services = import("@/server/services").AppServices;
type Merchant = Awaited<ReturnType<typeof createMerchant>>;
type SessionUser = import("@/server/trpc/init").SessionUser;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(DB_TARGETS)("dashboard wallet, KYC and operator fees on %s", (target) => {
  let close: (() => Promise<void>) | undefined;
  let server: TestServer;
  let services: Services;
  let db: Db;
  let admin: SessionUser;
  let seq = 0;

  const dash = (m: Merchant, sameOrigin = true) => dashboardRouter.createCaller(dashboardContext(services, merchantSession(m), { sameOrigin }));
  const asAdmin = () => dashboardRouter.createCaller(dashboardContext(services, admin));

  const newMerchant = async (name: string) =>
    createMerchant(db, { name, email: `${name.toLowerCase().replace(/\W+/g, "-")}-${target}-${++seq}@example.com`, password: "a-long-password" });

  /** A KYC call over HTTP with the merchant's sandbox keys; fails the test unless it answers 200. */
  async function kyc(m: Merchant, pathName: string, body: Record<string, unknown>) {
    const res = await request(server.url, pathName, {
      method: "POST",
      body: { merchantId: m.merchantId, ...body },
      headers: { "x-api-key": m.sandbox.key.publicKey, "x-api-secret": m.sandbox.key.secretKey },
    });
    expect(res.status, res.text).toBe(200);
    return res.json.data as Record<string, any>;
  }
  const panKyc = (m: Merchant, body: Record<string, unknown> = {}) => kyc(m, "/api/kyc/pan/verify", { pan: "ABCPK1234F", ...body });
  const bankKyc = (m: Merchant) => kyc(m, "/api/kyc/bank/verify", { accountNumber: "50100123456789", ifsc: "HDFC0001234", name: "Arjun Kapoor" });
  async function aadhaarKyc(m: Merchant) {
    const sent = await kyc(m, "/api/kyc/aadhaar/generate-otp", { aadhaarNumber: "234567890009" });
    return kyc(m, "/api/kyc/aadhaar/verify-otp", { aadhaarNumber: "234567890009", otp: "123456", requestId: sent.requestId });
  }

  const walletRow = (m: Merchant, mode = "sandbox") => db.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId: m.merchantId, mode } } });
  const lowBalanceEvents = (m: Merchant) => db.webhookEvent.count({ where: { merchantId: m.merchantId, type: "wallet.low_balance" } });
  async function ledgerSum(m: Merchant, mode = "sandbox") {
    const rows = await db.ledgerEntry.findMany({ where: { merchantId: m.merchantId, mode }, select: { amountPaise: true } });
    return rows.reduce((s, r) => s + r.amountPaise, 0);
  }

  beforeAll(async () => {
    ({ services, server, close } = await openDashboardTarget(target));
    db = services.db;
    const a = await createAdmin(db, `ops-${target}@example.com`, "ops-password-123");
    admin = { id: a.adminId, email: a.email, role: "admin" };
  });
  afterAll(() => close?.());

  describe("wallet.summary", () => {
    it("shows the balance, what is held, the threshold, the merchant's fees and the test-funds limits", async () => {
      const m = await newMerchant("Summary");
      const s = await dash(m).wallet.summary({ mode: "sandbox" });
      expect(s).toEqual({
        mode: "sandbox",
        exists: true,
        balancePaise: 1_000_000,
        availablePaise: 1_000_000,
        heldPaise: 0,
        lowBalanceThresholdPaise: null,
        lowBalanceAlerted: false,
        fees: [
          { kind: "AADHAAR_OTP", feePaise: 300 },
          { kind: "PAN", feePaise: 100 },
          { kind: "BANK", feePaise: 200 },
        ],
        testFunds: { maxPerAddPaise: TEST_FUNDS_MAX_PAISE, balanceCapPaise: SANDBOX_BALANCE_CAP_PAISE },
      });
      // A hold in flight shows as held, not as spent.
      await db.wallet.update({ where: { id: (await walletRow(m)).id }, data: { availablePaise: { decrement: 300 } } });
      expect(await dash(m).wallet.summary({ mode: "sandbox" })).toMatchObject({ balancePaise: 1_000_000, availablePaise: 999_700, heldPaise: 300 });
    });

    it("is live only after go-live, and then shows the live wallet without test funds", async () => {
      const m = await newMerchant("SummaryLive");
      expect((await failure(dash(m).wallet.summary({ mode: "live" }))).code).toBe("FORBIDDEN");
      await approveGoLive(db, m.merchantId);
      expect(await dash(m).wallet.summary({ mode: "live" })).toMatchObject({ mode: "live", balancePaise: 0, testFunds: null });
    });
  });

  describe("ledger list, filters and CSV", () => {
    let m: Merchant;
    const ids: Record<string, string> = {};
    let kycTxnId = "";

    beforeAll(async () => {
      m = await newMerchant("Ledger");
      const other = await newMerchant("LedgerOther");
      await dash(m).wallet.addTestFunds({ mode: "sandbox", amount: "500" });
      kycTxnId = (await panKyc(m)).kycTransactionId;
      await bankKyc(m);
      await asAdmin().admin.adjustWallet({
        merchantId: m.merchantId,
        mode: "sandbox",
        direction: "credit",
        amount: "25.50",
        reason: "Goodwill for the outage",
      });
      await asAdmin().admin.adjustWallet({
        merchantId: m.merchantId,
        mode: "sandbox",
        direction: "debit",
        amount: "10",
        reason: "=SUM(A1) correction, see ticket",
      });
      await panKyc(other);
      const dates: Record<string, Date> = {
        SANDBOX_CREDIT: ist("2025-03-09T23:59:59.999"),
        TEST_FUNDS: ist("2025-03-10T10:00:00.000"),
        KYC_PAN: ist("2025-03-11T00:00:00.000"),
        KYC_BANK: ist("2025-03-11T23:59:59.999"),
        OPERATOR_CREDIT: ist("2025-03-12T00:00:00.000"),
        OPERATOR_DEBIT: ist("2025-03-12T12:00:00.000"),
      };
      for (const e of await db.ledgerEntry.findMany({ where: { merchantId: m.merchantId } })) {
        ids[e.reason] = e.id;
        await db.ledgerEntry.update({ where: { id: e.id }, data: { createdAt: dates[e.reason]! } });
      }
      expect(Object.keys(ids).sort()).toEqual(Object.keys(dates).sort());
    });

    const list = (input: Record<string, unknown> = {}) => dash(m).wallet.ledger({ mode: "sandbox", ...input });
    const reasons = async (input: Record<string, unknown> = {}) => (await list(input)).items.map((i) => i.reason);

    it("lists the merchant's own entries of the mode, newest first, with signed amounts and balances", async () => {
      const r = await list();
      expect(r.items.map((i) => i.reason)).toEqual(["OPERATOR_DEBIT", "OPERATOR_CREDIT", "KYC_BANK", "KYC_PAN", "TEST_FUNDS", "SANDBOX_CREDIT"]);
      expect(r.nextCursor).toBeNull();
      const by = Object.fromEntries(r.items.map((i) => [i.reason, i]));
      expect(by.SANDBOX_CREDIT).toMatchObject({ amountPaise: 1_000_000, balanceAfterPaise: 1_000_000, kycTransactionId: null });
      expect(by.TEST_FUNDS).toMatchObject({ amountPaise: 50_000, balanceAfterPaise: 1_050_000 });
      expect(by.KYC_PAN).toMatchObject({ amountPaise: -100, balanceAfterPaise: 1_049_900, kycTransactionId: kycTxnId, reference: kycTxnId });
      expect(by.KYC_BANK).toMatchObject({ amountPaise: -200, balanceAfterPaise: 1_049_700 });
      expect(by.OPERATOR_CREDIT).toMatchObject({ amountPaise: 2_550, reference: "Goodwill for the outage" });
      expect(by.OPERATOR_DEBIT).toMatchObject({ amountPaise: -1_000, balanceAfterPaise: 1_051_250 });
      expect(Object.keys(r.items[0]!).sort()).toEqual(["amountPaise", "balanceAfterPaise", "createdAt", "id", "kycTransactionId", "reason", "reference"]);
      // The balance is the sum of the ledger, and the summary says so.
      expect(await ledgerSum(m)).toBe(1_051_250);
      expect((await dash(m).wallet.summary({ mode: "sandbox" })).balancePaise).toBe(1_051_250);
    });

    it("filters credits, debits and one reason", async () => {
      expect(await reasons({ type: "credits" })).toEqual(["OPERATOR_CREDIT", "TEST_FUNDS", "SANDBOX_CREDIT"]);
      expect(await reasons({ type: "debits" })).toEqual(["OPERATOR_DEBIT", "KYC_BANK", "KYC_PAN"]);
      expect(await reasons({ type: "KYC_PAN" })).toEqual(["KYC_PAN"]);
      expect(await reasons({ type: "TOP_UP" })).toEqual([]);
      expect((await failure(list({ type: "REFUND" }))).code).toBe("BAD_REQUEST");
    });

    it("filters by IST dates, both ends inclusive, and with the type", async () => {
      expect(await reasons({ from: "2025-03-11", to: "2025-03-11" })).toEqual(["KYC_BANK", "KYC_PAN"]);
      expect(await reasons({ from: "2025-03-10" })).toEqual(["OPERATOR_DEBIT", "OPERATOR_CREDIT", "KYC_BANK", "KYC_PAN", "TEST_FUNDS"]);
      expect(await reasons({ to: "2025-03-09" })).toEqual(["SANDBOX_CREDIT"]);
      expect(await reasons({ type: "credits", from: "2025-03-11" })).toEqual(["OPERATOR_CREDIT"]);
      expect((await failure(list({ from: "2025-03-12", to: "2025-03-11" }))).code).toBe("BAD_REQUEST");
    });

    it("pages with a cursor, without gaps or repeats", async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 5; i++) {
        const page = await list({ limit: 2, ...(cursor ? { cursor } : {}) });
        seen.push(...page.items.map((x) => x.reason));
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      expect(seen).toEqual(["OPERATOR_DEBIT", "OPERATOR_CREDIT", "KYC_BANK", "KYC_PAN", "TEST_FUNDS", "SANDBOX_CREDIT"]);
    });

    it("exports the filtered ledger as CSV, newest first, formulas defused", async () => {
      let text = "";
      for await (const chunk of exportLedgerCsv(db, m.merchantId, "sandbox", { type: "debits" })) text += chunk;
      expect(text.startsWith("\uFEFFentry_id,created_at,reason,credit,debit,balance_after,currency,reference,mode\r\n")).toBe(true);
      const rows = csvRows(text.slice(1)).slice(1);
      expect(rows.map((r) => r[2])).toEqual(["OPERATOR_DEBIT", "KYC_BANK", "KYC_PAN"]);
      expect(rows[0]).toEqual([
        ids.OPERATOR_DEBIT,
        "2025-03-12T06:30:00.000Z",
        "OPERATOR_DEBIT",
        "",
        "10.00",
        "10512.50",
        "INR",
        "'=SUM(A1) correction, see ticket",
        "sandbox",
      ]);
      expect(rows[2]!.slice(2, 8)).toEqual(["KYC_PAN", "", "1.00", "10499.00", "INR", kycTxnId]);
    });

    it.runIf(target === "sqlite")("serves the CSV to the signed-in merchant only, with the page's filters", async () => {
      const secret = getConfig().secrets.nextAuthSecret;
      const cookie = async (sub: string, role: "merchant" | "admin" = "merchant") =>
        `next-auth.session-token=${await encode({ token: { sub, role, email: "x@example.com" }, secret })}`;
      const get = async (query: string, c?: string) => {
        const res = await exportCsv(new NextRequest(`http://localhost/api/dashboard/wallet/export${query}`, { headers: c ? { cookie: c } : {} }));
        return { status: res.status, headers: res.headers, text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(await res.arrayBuffer()) };
      };
      expect((await get("?mode=sandbox")).status).toBe(401);
      expect((await get("?mode=sandbox", await cookie(m.merchantId, "admin"))).status).toBe(401);
      const res = await get("?mode=sandbox&type=credits&from=2025-03-10", await cookie(m.merchantId));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="wallet-ledger-sandbox-\d{4}-\d{2}-\d{2}\.csv"$/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const rows = csvRows(res.text.slice(1));
      expect(rows.map((r) => r[2])).toEqual(["reason", "OPERATOR_CREDIT", "TEST_FUNDS"]);
      expect(rows[1]!.slice(3, 5)).toEqual(["25.50", ""]);
      expect((await get("?mode=sandbox&type=nonsense", await cookie(m.merchantId))).status).toBe(400);
      expect((await get("?mode=live", await cookie(m.merchantId))).status).toBe(403);
    });
  });

  describe("test funds", () => {
    it("adds bounded sandbox money as a TEST_FUNDS entry", async () => {
      const m = await newMerchant("Funds");
      const r = await dash(m).wallet.addTestFunds({ mode: "sandbox", amount: "1,000.50" });
      expect(r).toEqual({ balancePaise: 1_100_050, addedPaise: 100_050 });
      const [entry] = (await dash(m).wallet.ledger({ mode: "sandbox", type: "TEST_FUNDS" })).items;
      expect(entry).toMatchObject({ amountPaise: 100_050, balanceAfterPaise: 1_100_050 });
      for (const amount of ["0", "0.5", "100000.01", "-5", "abc", ""]) {
        const f = await failure(dash(m).wallet.addTestFunds({ mode: "sandbox", amount }));
        expect(f.code, amount).toBe("BAD_REQUEST");
      }
      expect(await ledgerSum(m)).toBe(1_100_050);
    });

    it("never takes a sandbox wallet past ₹10,00,000, even with racing clicks", async () => {
      const m = await newMerchant("FundsCap");
      for (let i = 0; i < 8; i++) await dash(m).wallet.addTestFunds({ mode: "sandbox", amount: "100000" });
      expect((await walletRow(m)).balancePaise).toBe(81_000_000);
      // Room for ₹1,90,000: of five racing ₹1,00,000 clicks exactly one fits.
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => dash(m).wallet.addTestFunds({ mode: "sandbox", amount: "100000" })));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const w = await walletRow(m);
      expect(w.balancePaise).toBe(91_000_000);
      const over = await failure(dash(m).wallet.addTestFunds({ mode: "sandbox", amount: "100000" }));
      expect(over).toMatchObject({ code: "BAD_REQUEST", appCode: "VALIDATION_ERROR" });
      expect(over.message).toContain("you can add up to ₹90,000.00 now");
      await dash(m).wallet.addTestFunds({ mode: "sandbox", amount: "90000" });
      expect((await walletRow(m)).balancePaise).toBe(SANDBOX_BALANCE_CAP_PAISE);
      expect((await failure(dash(m).wallet.addTestFunds({ mode: "sandbox", amount: "1" }))).message).toContain("this one is full");
      expect(await ledgerSum(m)).toBe(SANDBOX_BALANCE_CAP_PAISE);
      expect(await db.ledgerEntry.count({ where: { merchantId: m.merchantId, reason: "TEST_FUNDS" } })).toBe(10);
    });

    it("is refused in live mode, and without the page's own origin", async () => {
      const m = await newMerchant("FundsLive");
      expect(await failure(dash(m).wallet.addTestFunds({ mode: "live", amount: "100" }))).toMatchObject({
        code: "FORBIDDEN",
        appCode: "LIVE_MODE_NOT_ENABLED",
      });
      await approveGoLive(db, m.merchantId);
      expect(await failure(dash(m).wallet.addTestFunds({ mode: "live", amount: "100" }))).toMatchObject({ code: "FORBIDDEN", appCode: "FORBIDDEN" });
      expect(await failure(dash(m, false).wallet.addTestFunds({ mode: "sandbox", amount: "100" }))).toMatchObject({ code: "FORBIDDEN" });
      expect(await db.ledgerEntry.count({ where: { merchantId: m.merchantId, reason: "TEST_FUNDS" } })).toBe(0);
      expect((await walletRow(m, "live")).balancePaise).toBe(0);
    });
  });

  describe("low-balance threshold", () => {
    /** Waits for the alert count to settle at `n` (the alert may follow the charge's answer). */
    async function expectAlerts(m: Merchant, n: number) {
      for (let i = 0; i < 20 && (await lowBalanceEvents(m)) < n; i++) await sleep(100);
      await sleep(150);
      expect(await lowBalanceEvents(m)).toBe(n);
    }

    it("alerts once per crossing; a new threshold re-arms it, the same one does not, clearing turns it off", async () => {
      const m = await newMerchant("Threshold");
      const c = dash(m);
      // Already below when set: the next debit alerts, once.
      expect(await c.wallet.setLowBalanceThreshold({ mode: "sandbox", threshold: "20000" })).toEqual({ lowBalanceThresholdPaise: 2_000_000, changed: true });
      expect(await c.wallet.summary({ mode: "sandbox" })).toMatchObject({ lowBalanceThresholdPaise: 2_000_000, lowBalanceAlerted: false });
      await panKyc(m);
      await expectAlerts(m, 1);
      await panKyc(m);
      await expectAlerts(m, 1);
      expect((await c.wallet.summary({ mode: "sandbox" })).lowBalanceAlerted).toBe(true);
      const event = await db.webhookEvent.findFirstOrThrow({ where: { merchantId: m.merchantId, type: "wallet.low_balance" } });
      expect(JSON.parse(event.body).data).toEqual({ wallet: { mode: "sandbox", balance: "9999.00", threshold: "20000.00", currency: "INR" } });

      // Saving the same threshold again changes nothing.
      expect((await c.wallet.setLowBalanceThreshold({ mode: "sandbox", threshold: "20,000.00" })).changed).toBe(false);
      await panKyc(m);
      await expectAlerts(m, 1);

      // A new threshold re-arms the alert.
      await c.wallet.setLowBalanceThreshold({ mode: "sandbox", threshold: "15000" });
      await panKyc(m);
      await expectAlerts(m, 2);

      // A credit back to the threshold re-arms it too: the next dip below alerts again.
      await c.wallet.setLowBalanceThreshold({ mode: "sandbox", threshold: "10000" });
      await panKyc(m);
      await expectAlerts(m, 3);
      expect((await walletRow(m)).balancePaise).toBe(999_500);
      await c.wallet.addTestFunds({ mode: "sandbox", amount: "6" });
      expect((await c.wallet.summary({ mode: "sandbox" })).lowBalanceAlerted).toBe(false);
      await panKyc(m);
      await expectAlerts(m, 3);
      await panKyc(m);
      await expectAlerts(m, 4);

      // Cleared: no more alerts.
      expect(await c.wallet.setLowBalanceThreshold({ mode: "sandbox", threshold: "" })).toEqual({ lowBalanceThresholdPaise: null, changed: true });
      await panKyc(m);
      await expectAlerts(m, 4);
      expect(await c.wallet.summary({ mode: "sandbox" })).toMatchObject({ lowBalanceThresholdPaise: null, lowBalanceAlerted: false });
      await c.wallet.setLowBalanceThreshold({ mode: "sandbox", threshold: "500" });
      expect((await c.wallet.setLowBalanceThreshold({ mode: "sandbox", threshold: null })).lowBalanceThresholdPaise).toBeNull();
    });

    it("takes ₹1.00 to ₹1,00,00,000 in rupees", async () => {
      const m = await newMerchant("ThresholdBad");
      for (const threshold of ["0", "0.99", "abc", "100000000.01", "1e3"]) {
        expect((await failure(dash(m).wallet.setLowBalanceThreshold({ mode: "sandbox", threshold }))).code, threshold).toBe("BAD_REQUEST");
      }
      expect((await dash(m).wallet.setLowBalanceThreshold({ mode: "sandbox", threshold: "99.5" })).lowBalanceThresholdPaise).toBe(9_950);
    });
  });

  describe("KYC transactions", () => {
    let m: Merchant;
    let other: Merchant;
    let pan: Record<string, any>;
    let bank: Record<string, any>;
    let aadhaar: Record<string, any>;

    beforeAll(async () => {
      m = await newMerchant("Kyc");
      other = await newMerchant("KycOther");
      pan = await panKyc(m, { name: "Arjun Kapoor" });
      bank = await bankKyc(m);
      aadhaar = await aadhaarKyc(m);
      await panKyc(other);
    });

    const list = (input: Record<string, unknown> = {}) => dash(m).kyc.list({ mode: "sandbox", ...input });

    it("are counted on the overview", async () => {
      const s = await dash(m).overview.stats({ mode: "sandbox" });
      expect(s.kyc).toEqual({ today: 3, calls: 3, feesPaise: 600 });
      expect((await dash(other).overview.stats({ mode: "sandbox" })).kyc).toEqual({ today: 1, calls: 1, feesPaise: 100 });
    });

    it("list the merchant's own calls, masked: never the photo, the address or a full number", async () => {
      const r = await list();
      expect(r.items.map((i) => i.id)).toEqual([aadhaar.kycTransactionId, bank.kycTransactionId, pan.kycTransactionId]);
      for (const i of r.items)
        expect(Object.keys(i).sort()).toEqual(["createdAt", "feePaise", "id", "kind", "nameMatchScore", "outcome", "reversedAt", "subjectMasked"]);
      expect(r.items.map((i) => [i.kind, i.subjectMasked, i.outcome, i.feePaise])).toEqual([
        ["AADHAAR_OTP", "XXXXXXXX0009", "VERIFIED", 300],
        ["BANK", "XXXXXXXXXX6789 @ HDFC0001234", bank.accountStatus, 200],
        ["PAN", "ABCPKXXXXF", "VALID", 100],
      ]);
      expect(r.items[2]!.nameMatchScore).toBe(pan.nameMatch.score);
      const text = JSON.stringify(r);
      for (const secret of [aadhaar.photo, aadhaar.fullAddress, aadhaar.address.house, aadhaar.name, "234567890009", "ABCPK1234F", "50100123456789"]) {
        expect(text).not.toContain(secret);
      }
    });

    it("filter by kind, outcome and IST dates", async () => {
      expect((await list({ kind: "PAN" })).items.map((i) => i.id)).toEqual([pan.kycTransactionId]);
      expect((await list({ outcome: "VERIFIED" })).items.map((i) => i.id)).toEqual([aadhaar.kycTransactionId]);
      await db.kycTransaction.update({ where: { id: pan.kycTransactionId }, data: { createdAt: ist("2025-03-10T23:59:59.999") } });
      expect((await list({ to: "2025-03-10" })).items.map((i) => i.id)).toEqual([pan.kycTransactionId]);
      expect((await list({ from: "2025-03-11" })).items.map((i) => i.id)).toEqual([aadhaar.kycTransactionId, bank.kycTransactionId]);
      expect((await list({ kind: "PAN", from: "2025-03-11" })).items).toEqual([]);
      expect((await failure(list({ kind: "EPFO" }))).code).toBe("BAD_REQUEST");
      expect((await failure(list({ outcome: "MAYBE" }))).code).toBe("BAD_REQUEST");
    });

    it("detail: the masked summary, the charge, its ledger entry and the request, still without personal data", async () => {
      const d = await dash(m).kyc.get({ mode: "sandbox", id: aadhaar.kycTransactionId });
      const ledger = await db.ledgerEntry.findFirstOrThrow({ where: { reference: aadhaar.kycTransactionId } });
      expect(d).toMatchObject({
        id: aadhaar.kycTransactionId,
        kind: "AADHAAR_OTP",
        subjectMasked: "XXXXXXXX0009",
        outcome: "VERIFIED",
        feePaise: 300,
        balanceAfterPaise: Math.round(Number(aadhaar.walletBalance) * 100),
        ledgerEntry: { id: ledger.id, amountPaise: -300, reason: "KYC_AADHAAR" },
        result: { retained: true, retentionDays: 30 },
      });
      expect(d.requestId).toMatch(/^req_/);
      expect(d.result.expiresAt).not.toBeNull();
      const log = await dash(m).logs.get({ mode: "sandbox", requestId: d.requestId! });
      expect(log).toBeTruthy();
      const text = JSON.stringify(d);
      for (const secret of [aadhaar.photo, aadhaar.fullAddress, aadhaar.address.house, aadhaar.name]) expect(text).not.toContain(secret);
    });

    it("result: the stored answer, photo and address included, on request", async () => {
      const r = await dash(m).kyc.result({ mode: "sandbox", id: aadhaar.kycTransactionId });
      if (!r.retained) throw new Error("expected the result to be retained");
      expect(r.kind).toBe("AADHAAR_OTP");
      expect(r.photo).toBe(aadhaar.photo);
      expect(r.address?.full).toBe(aadhaar.fullAddress);
      expect(r.address?.parts).toContainEqual({ label: "House", value: aadhaar.address.house });
      expect(r.facts).toContainEqual({ label: "Name", value: aadhaar.name });
      expect(r.facts).toContainEqual({ label: "Charged", value: "₹3.00" });
      expect(r.facts).toContainEqual({
        label: "Wallet balance after",
        value: `₹${Number(aadhaar.walletBalance).toLocaleString("en-IN", { minimumFractionDigits: 2 })}`,
      });
      expect(JSON.parse(r.json)).toEqual(aadhaar);
      const p = await dash(m).kyc.result({ mode: "sandbox", id: pan.kycTransactionId });
      if (!p.retained) throw new Error("expected the result to be retained");
      // The charge and balance come from the row's columns, the rest from the stored answer: together, the API's answer.
      expect(JSON.parse(p.json)).toEqual(pan);
      expect(p.photo).toBeNull();
      expect(p.address).toBeNull();
      expect(p.facts).toContainEqual({ label: "PAN", value: "ABCPK1234F" });
      expect(p.facts).toContainEqual({ label: "Registered name", value: pan.registeredName });
      const b = await dash(m).kyc.result({ mode: "sandbox", id: bank.kycTransactionId });
      if (!b.retained) throw new Error("expected the result to be retained");
      expect(b.facts).toContainEqual({ label: "Bank reference", value: bank.bankReference });
    });

    it("after the retention purge: the summary stays and the result says it was deleted", async () => {
      await db.kycTransaction.update({ where: { id: bank.kycTransactionId }, data: { resultEnc: null, resultExpiresAt: null } });
      const d = await dash(m).kyc.get({ mode: "sandbox", id: bank.kycTransactionId });
      expect(d).toMatchObject({
        subjectMasked: "XXXXXXXXXX6789 @ HDFC0001234",
        feePaise: 200,
        result: { retained: false, expiresAt: null, retentionDays: 30 },
      });
      expect(await dash(m).kyc.result({ mode: "sandbox", id: bank.kycTransactionId })).toEqual({ retained: false, retentionDays: 30 });
    });

    it("another merchant's, the other mode's and an unknown id are all NOT_FOUND", async () => {
      for (const id of [aadhaar.kycTransactionId, pan.kycTransactionId]) {
        expect((await failure(dash(other).kyc.get({ mode: "sandbox", id }))).code).toBe("NOT_FOUND");
        expect((await failure(dash(other).kyc.result({ mode: "sandbox", id }))).code).toBe("NOT_FOUND");
      }
      expect((await dash(other).kyc.list({ mode: "sandbox" })).items).toHaveLength(1);
      expect((await failure(dash(m).kyc.get({ mode: "sandbox", id: "kyc_txn_nope" }))).code).toBe("NOT_FOUND");
      await approveGoLive(db, m.merchantId);
      expect((await failure(dash(m).kyc.get({ mode: "live", id: aadhaar.kycTransactionId }))).code).toBe("NOT_FOUND");
      expect((await failure(dash(m).kyc.result({ mode: "live", id: aadhaar.kycTransactionId }))).code).toBe("NOT_FOUND");
      expect((await dash(m).kyc.list({ mode: "live" })).items).toEqual([]);
      const anon = dashboardRouter.createCaller(dashboardContext(services, null));
      expect((await failure(anon.kyc.list({ mode: "sandbox" }))).code).toBe("UNAUTHORIZED");
    });
  });

  describe("operator fees and wallet adjustments", () => {
    it("keeps the browser and service fee limits equal", () => {
      expect(KYC_FEE_MAX_PAISE).toBe(MAX_KYC_FEE_PAISE);
    });

    it("a merchant cannot call them (FORBIDDEN), and nothing changes", async () => {
      const m = await newMerchant("NotOperator");
      const c = dash(m);
      const before = await db.operatorAction.count({ where: { merchantId: m.merchantId } });
      expect((await failure(c.admin.setKycFees({ merchantId: m.merchantId, aadhaarOtp: "0", pan: "0", bank: "0" }))).code).toBe("FORBIDDEN");
      expect(
        (await failure(c.admin.adjustWallet({ merchantId: m.merchantId, mode: "sandbox", direction: "credit", amount: "1000", reason: "free money" }))).code,
      ).toBe("FORBIDDEN");
      expect(await db.operatorAction.count({ where: { merchantId: m.merchantId } })).toBe(before);
      expect((await walletRow(m)).balancePaise).toBe(1_000_000);
      expect((await c.wallet.summary({ mode: "sandbox" })).fees.map((f) => f.feePaise)).toEqual([300, 100, 200]);
    });

    it("fees in rupees are saved, recorded with the operator, and the next call is charged the new fee", async () => {
      const m = await newMerchant("Fees");
      const r = await asAdmin().admin.setKycFees({ merchantId: m.merchantId, aadhaarOtp: "3.50", pan: "2.25", bank: "0" });
      expect(r).toEqual({ merchantId: m.merchantId, fees: { AADHAAR_OTP: "3.50", PAN: "2.25", BANK: "0.00" } });
      expect((await dash(m).wallet.summary({ mode: "sandbox" })).fees.map((f) => f.feePaise)).toEqual([350, 225, 0]);
      const action = await db.operatorAction.findFirstOrThrow({ where: { merchantId: m.merchantId, action: "KYC_FEES" } });
      expect(action).toMatchObject({ adminId: admin.id, adminEmail: admin.email });
      expect(action.details).toBe("Aadhaar OTP ₹3.00 → ₹3.50, PAN ₹1.00 → ₹2.25, bank ₹2.00 → ₹0.00");
      expect((await asAdmin().admin.merchant({ merchantId: m.merchantId })).kycFees).toEqual({ AADHAAR_OTP: 350, PAN: 225, BANK: 0 });
      // The API instance picks the new fees up within a second.
      await sleep(1500);
      const charged = await panKyc(m);
      expect(charged.charge).toEqual({ amount: "2.25", currency: "INR" });
      expect((await dash(m).kyc.list({ mode: "sandbox" })).items[0]!.feePaise).toBe(225);
      for (const bad of [{ pan: "1000.01" }, { pan: "-1" }, { bank: "x" }, { aadhaarOtp: "" }]) {
        const f = await failure(asAdmin().admin.setKycFees({ merchantId: m.merchantId, aadhaarOtp: "3", pan: "1", bank: "2", ...bad }));
        expect(f.code, JSON.stringify(bad)).toBe("BAD_REQUEST");
      }
      expect((await failure(asAdmin().admin.setKycFees({ merchantId: "mer_nope", aadhaarOtp: "3", pan: "1", bank: "2" }))).code).toBe("NOT_FOUND");
    });

    it("credits and debits with a reason land on the ledger and in the operator log; a debit past the balance is refused", async () => {
      const m = await newMerchant("Adjust");
      const credit = await asAdmin().admin.adjustWallet({
        merchantId: m.merchantId,
        mode: "sandbox",
        direction: "credit",
        amount: "250.00",
        reason: "  Refund of failed calls ",
      });
      expect(credit).toMatchObject({ direction: "credit", amount: "250.00", balance: "10250.00", balancePaise: 1_025_000 });
      const debit = await asAdmin().admin.adjustWallet({ merchantId: m.merchantId, mode: "sandbox", direction: "debit", amount: "50", reason: "Correction" });
      expect(debit).toMatchObject({ balancePaise: 1_020_000 });
      const refused = await failure(
        asAdmin().admin.adjustWallet({ merchantId: m.merchantId, mode: "sandbox", direction: "debit", amount: "20000", reason: "Too much" }),
      );
      expect(refused).toMatchObject({ code: "PRECONDITION_FAILED", appCode: "INSUFFICIENT_BALANCE" });
      const entries = (await dash(m).wallet.ledger({ mode: "sandbox" })).items;
      expect(entries.slice(0, 2).map((e) => [e.reason, e.amountPaise, e.reference])).toEqual([
        ["OPERATOR_DEBIT", -5_000, "Correction"],
        ["OPERATOR_CREDIT", 25_000, "Refund of failed calls"],
      ]);
      const actions = await db.operatorAction.findMany({ where: { merchantId: m.merchantId }, orderBy: { createdAt: "asc" } });
      expect(actions.map((a) => [a.action, a.adminEmail, a.details])).toEqual([
        ["WALLET_CREDIT", admin.email, "sandbox credit ₹250.00: Refund of failed calls"],
        ["WALLET_DEBIT", admin.email, "sandbox debit ₹50.00: Correction"],
      ]);
      const feed = await asAdmin().admin.actions({ merchantId: m.merchantId });
      expect(feed.items.map((a) => a.action)).toEqual(["WALLET_DEBIT", "WALLET_CREDIT"]);
      expect(await ledgerSum(m)).toBe(1_020_000);
      for (const bad of [{ reason: "ab" }, { amount: "0" }, { amount: "10000000.01" }, { mode: "test" }, { direction: "refund" }]) {
        const input = { merchantId: m.merchantId, mode: "sandbox", direction: "credit", amount: "1", reason: "valid reason", ...bad } as never;
        expect((await failure(asAdmin().admin.adjustWallet(input))).code, JSON.stringify(bad)).toBe("BAD_REQUEST");
      }
      expect(await db.operatorAction.count({ where: { merchantId: m.merchantId } })).toBe(2);
    });
  });
});
