import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { verhoeffDigit } from "@/lib/verhoeff";
import { dashboardContext, failure, merchantSession } from "../helpers/dashboard";
import { startFakeCashfreePg, type FakeCashfreePg } from "../helpers/fake-cashfree-pg";
import { FAKE_OTP, startFakeCashfreeVerification, type FakeCashfreeVerification } from "../helpers/fake-cashfree-verification";

// The operator console's upstream panel: the admin query over services wired to the fake vendor,
// after real calls through the live providers (answers, a refused account, an opened breaker).
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-admin-upstream-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
delete process.env.LIVE_VERIFICATION_PROVIDER;
delete process.env.LIVE_PAYMENT_PROVIDER;

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getConfig } = await import("@/server/config");
const { createServices } = await import("@/server/services");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { createAdmin, createMerchant } = await import("@/server/services/merchants/merchants");
type AppServices = import("@/server/services").AppServices;
type SessionUser = import("@/server/trpc/init").SessionUser;

const CLIENT_ID = "CF_TEST_CLIENT_4410";
const CLIENT_SECRET = "cfsk_ma_test_panel_5e6f7a8b9c0d";
const PG_CLIENT_ID = "CF_PG_PANEL_CLIENT";
const PG_CLIENT_SECRET = "cfsk_ma_pg_panel_1a2b3c4d5e6f";
const PAN = "ABCPV1234D";
const UAN = "100200300400";
const ACCOUNT = "026291800001191";
const first11 = `${2 + crypto.randomInt(8)}${String(crypto.randomInt(1e10)).padStart(10, "0")}`;
const AADHAAR = first11 + verhoeffDigit(first11);

describe("operator console: upstream panel", () => {
  let vendor: FakeCashfreeVerification;
  let pg: FakeCashfreePg;
  let services: AppServices;
  let admin: SessionUser;
  let merchant: SessionUser;
  const caller = (session: SessionUser | null, over: Partial<AppServices> = {}) =>
    dashboardRouter.createCaller(dashboardContext({ ...services, ...over }, session));

  beforeAll(async () => {
    vendor = await startFakeCashfreeVerification({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    pg = await startFakeCashfreePg({ clientId: PG_CLIENT_ID, clientSecret: PG_CLIENT_SECRET });
    const config = getConfig();
    expect(config.liveVerification.provider).toBe("none");
    await migrateTestDatabase(config.databaseUrl);
    services = createServices({
      ...config,
      liveVerification: {
        ...config.liveVerification,
        provider: "cashfree",
        vendors: { pan: ["cashfree"], epfo: ["cashfree"], aadhaar: ["cashfree"], bank: ["cashfree"] },
        cashfree: { baseUrl: vendor.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      },
      livePayments: {
        ...config.livePayments,
        provider: "cashfree",
        cashfree: { baseUrl: pg.url, clientId: PG_CLIENT_ID, clientSecret: PG_CLIENT_SECRET },
      },
    });
    const a = await createAdmin(services.db, "ops@example.com", "ops-password-123");
    admin = { id: a.adminId, email: a.email, role: "admin" };
    merchant = merchantSession(await createMerchant(services.db, { name: "Panel Traders", email: "panel@example.com", password: "a-long-password" }));
  });
  afterEach(() => {
    expect(vendor.problems).toEqual([]);
    expect(pg.problems).toEqual([]);
  });
  afterAll(async () => {
    await services?.db.$disconnect();
    await vendor?.close();
    await pg?.close();
  });

  it("is for operators only", async () => {
    expect((await failure(caller(merchant).admin.upstream())).code).toBe("FORBIDDEN");
    expect((await failure(caller(null).admin.upstream())).code).toBe("UNAUTHORIZED");
  });

  it("lists every family of the configured vendors, payments included, each OK before any call", async () => {
    const health = await caller(admin).admin.upstream();
    expect(health).toMatchObject({ provider: "cashfree", liveVerificationConfigured: true, paymentsProvider: "cashfree" });
    expect(health.families.map((f) => f.label)).toEqual(["PAN", "EPFO", "Aadhaar OTP", "Bank account", "Payments"]);
    for (const f of health.families) expect(f).toMatchObject({ status: "ok", breaker: "closed", misconfigured: false, failuresLast5Min: 0 });
  });

  it("reports calls, failures, p95, an open breaker and a refused account, without personal data", async () => {
    const live = services.providers.live;
    vendor.panRecords.set(PAN, { name: "JOHN RONALD DOE", dob: "1985-02-11" });
    await live.pan.lookup(PAN, { name: "John Doe" });
    await live.pan.lookup(PAN);
    const otp = await live.aadhaar.sendOtp(AADHAAR);
    await live.aadhaar.submitOtp(AADHAAR, otp.reference, FAKE_OTP);
    expect((await live.bank.verifyAccount(ACCOUNT, "YESB0000262")).accountStatus).toBe("VALID");

    // The vendor refuses Parakh's credentials for EPFO: the family is marked, not counted as an outage.
    vendor.fail("epfo", "401");
    await expect(live.epfo.byUan(UAN)).rejects.toMatchObject({ code: "SOURCE_UNAVAILABLE" });
    vendor.clear("epfo");

    // Five failures in a row open PAN's breaker; the next call is refused without reaching the vendor.
    vendor.fail("pan", "500");
    for (let i = 0; i < 5; i++) await expect(live.pan.lookup(PAN)).rejects.toMatchObject({ code: "SOURCE_UNAVAILABLE" });
    const sent = vendor.count("/pan");
    await expect(live.pan.lookup(PAN)).rejects.toMatchObject({ code: "SOURCE_UNAVAILABLE" });
    expect(vendor.count("/pan")).toBe(sent);
    vendor.clear();

    const health = await caller(admin).admin.upstream();
    const family = (name: string) => health.families.find((f) => f.family === name)!;
    const pan = family("pan");
    expect(pan).toMatchObject({ status: "breaker-open", breaker: "open", misconfigured: false, callsLast5Min: 8, failuresLast5Min: 5 });
    // The breaker pauses 30 s from the fifth failure.
    const retryIn = Date.parse(pan.retryAt!) - Date.parse(health.at);
    expect(retryIn).toBeGreaterThan(20_000);
    expect(retryIn).toBeLessThanOrEqual(30_000);
    expect(pan.p95LatencyMs).toBeGreaterThanOrEqual(0);
    expect(pan.lastError?.message).toMatch(/paused/);

    expect(family("epfo")).toMatchObject({ status: "misconfigured", misconfigured: true, breaker: "closed", callsLast5Min: 1, failuresLast5Min: 0 });
    expect(family("epfo").lastError?.message).toContain("HTTP 401");
    expect(family("aadhaar")).toMatchObject({ status: "ok", callsLast5Min: 2, failuresLast5Min: 0, lastError: null, retryAt: null });
    expect(family("bank")).toMatchObject({ status: "ok", failuresLast5Min: 0, lastError: null });
    expect(family("bank").callsLast5Min).toBeGreaterThanOrEqual(1);

    const json = JSON.stringify(health);
    for (const secret of [PAN, AADHAAR, UAN, ACCOUNT, "JOHN", FAKE_OTP, otp.reference, CLIENT_SECRET, CLIENT_ID]) expect(json).not.toContain(secret);
  });

  it("shows the payments family: calls, p95, a refused account, then failures, the last error and an open breaker", async () => {
    const processor = services.paymentProcessors.live;
    const payment = (n: number) => ({
      id: `pay_1764230400000_Panel${String(n).padStart(4, "0")}`,
      amountPaise: 49_900,
      expiresAt: new Date(Date.now() + 30 * 60_000),
    });
    const payments = async () => (await caller(admin).admin.upstream()).families.find((f) => f.family === "payments")!;
    await processor.prepareAttempt!(payment(1));
    // The same order again: the vendor's 409, then the read of that order (two calls).
    await processor.prepareAttempt!(payment(1));

    pg.fail("401", { operation: "PGCreateOrder", times: 1 });
    await expect(processor.prepareAttempt!(payment(2))).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503 });
    const refused = await payments();
    expect(refused).toMatchObject({ status: "misconfigured", misconfigured: true, breaker: "closed", callsLast5Min: 4, failuresLast5Min: 0 });
    expect(refused.lastError?.message).toContain("HTTP 401");
    // The next answered call clears the mark.
    await processor.prepareAttempt!(payment(2));
    expect(await payments()).toMatchObject({ status: "ok", misconfigured: false, callsLast5Min: 5 });

    pg.fail("500", { operation: "PGCreateOrder" });
    for (let i = 0; i < 5; i++) await expect(processor.prepareAttempt!(payment(10 + i))).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    const sent = pg.count("PGCreateOrder");
    await expect(processor.prepareAttempt!(payment(20))).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(pg.count("PGCreateOrder")).toBe(sent);
    pg.clear();
    const open = await payments();
    expect(open).toMatchObject({ status: "breaker-open", breaker: "open", callsLast5Min: 11, failuresLast5Min: 5 });
    expect(open.p95LatencyMs).toBeGreaterThanOrEqual(0);
    expect(open.lastError?.message).toMatch(/paused/);
    expect(JSON.stringify(open)).not.toContain(PG_CLIENT_SECRET);
  });

  it("says live verification is not configured when no provider is set, and payments not configured without a processor", async () => {
    const config = services.config;
    const none = {
      ...config,
      liveVerification: { ...config.liveVerification, provider: "none" as const, vendors: { pan: [], epfo: [], aadhaar: [], bank: [] } },
      livePayments: { ...config.livePayments, provider: "none" as const },
    };
    const health = await caller(admin, { config: none }).admin.upstream();
    expect(health).toMatchObject({ provider: "none", liveVerificationConfigured: false, paymentsProvider: "none" });
    // The payments client of the other settings has calls and an open breaker; none of that is shown.
    expect(health.families).toEqual([
      expect.objectContaining({ family: "payments", label: "Payments", status: "not-configured", callsLast5Min: 0, failuresLast5Min: 0, lastError: null }),
    ]);
  });
});
