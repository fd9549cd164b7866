import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { dashboardContext } from "../helpers/dashboard";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-account-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
delete process.env.BASE_URL;

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getServices } = await import("@/server/services");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { signInMerchant, signInAdmin, LOCK_AFTER, SLOW_DOWN_AFTER } = await import("@/server/services/accounts/sign-in");
const { throttleSubject } = await import("@/server/services/accounts/throttle");
const { totpAt } = await import("@/server/services/accounts/totp");
const { createAdmin } = await import("@/server/services/merchants/merchants");
const { decrypt } = await import("@/server/lib/crypto");
const { getConfig } = await import("@/server/config");

const ctx = (session: { id: string; email: string; role: "merchant" | "admin" } | null, sameOrigin = true) =>
  dashboardContext(getServices(), session, { sameOrigin });
const anon = () => dashboardRouter.createCaller(ctx(null));
const as = (id: string, email = "x@example.com") => dashboardRouter.createCaller(ctx({ id, email, role: "merchant" }));

let seq = 0;
async function signup(password = "a-long-password") {
  const email = `owner${seq++}@shop.example`;
  const { merchantId } = await anon().account.signup({ name: "Chai Point", email, password });
  return { merchantId, email, password };
}

describe("merchant accounts", () => {
  beforeAll(async () => {
    await migrateTestDatabase(process.env.DATABASE_URL!);
  });

  it("signs up a merchant with a sandbox key, signing secret and ₹10,000.00 of sandbox credit", async () => {
    const { merchantId, email } = await signup();
    const db = getServices().db;
    expect(await db.apiKey.count({ where: { merchantId, mode: "sandbox" } })).toBe(1);
    expect(await db.signingSecret.count({ where: { merchantId, mode: "sandbox" } })).toBe(1);
    const me = await as(merchantId, email).account.me();
    expect(me).toMatchObject({ email, status: "ACTIVE", liveEnabled: false, totpEnabled: false });
    expect(me.wallets).toEqual([{ mode: "sandbox", balancePaise: 1_000_000, balance: "10000.00" }]);
    const ledger = await db.ledgerEntry.findMany({ where: { merchantId } });
    expect(ledger).toMatchObject([{ amountPaise: 1_000_000, balanceAfterPaise: 1_000_000, reason: "SANDBOX_CREDIT" }]);
  });

  it("hashes the password at PASSWORD_HASH_COST (this run's 12: N = 4096), and an admin's too", async () => {
    expect(process.env.PASSWORD_HASH_COST).toBe("12");
    const { merchantId } = await signup();
    const db = getServices().db;
    const merchant = await db.merchant.findUniqueOrThrow({ where: { id: merchantId } });
    expect(merchant.passwordHash).toMatch(/^scrypt\$4096\$8\$1\$/);
    const { adminId } = await createAdmin(db, `cost-${merchantId}@example.com`, "a-long-admin-password");
    expect((await db.adminUser.findUniqueOrThrow({ where: { id: adminId } })).passwordHash).toMatch(/^scrypt\$4096\$8\$1\$/);
  });

  it("refuses bad sign-up input with field errors, duplicates, and cross-site requests", async () => {
    await expect(anon().account.signup({ name: "X", email: "nope", password: "short" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const { email } = await signup();
    await expect(anon().account.signup({ name: "Again", email: email.toUpperCase(), password: "a-long-password" })).rejects.toMatchObject({ code: "CONFLICT" });
    const crossSite = dashboardRouter.createCaller(ctx(null, false));
    await expect(crossSite.account.signup({ name: "Evil", email: "evil@example.com", password: "a-long-password" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });

  it("needs a merchant session for account procedures", async () => {
    await expect(anon().account.me()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const admin = dashboardRouter.createCaller(ctx({ id: "adm_x", email: "a@b.c", role: "admin" }));
    await expect(admin.account.me()).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("saves the profile and branding with the shared schema's rules", async () => {
    const { merchantId } = await signup();
    const caller = as(merchantId);
    await caller.account.updateProfile({
      name: "Chai Point Pvt Ltd",
      displayName: "Chai Point",
      supportEmail: "Help@Chai.example",
      brandColor: "#aa3300",
      logoUrl: "https://chai.example/logo.png",
      checkoutExpiryMinutes: 45,
      checkoutFrameOrigins: "https://Shop.Chai.example/, http://localhost:5173",
    });
    const me = await caller.account.me();
    expect(me.profile).toEqual({
      name: "Chai Point Pvt Ltd",
      displayName: "Chai Point",
      supportEmail: "help@chai.example",
      brandColor: "#AA3300",
      logoUrl: "https://chai.example/logo.png",
      checkoutExpiryMinutes: 45,
      checkoutFrameOrigins: "https://shop.chai.example http://localhost:5173",
    });
    await expect(caller.account.updateProfile({ ...me.profile, brandColor: "red" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(caller.account.updateProfile({ ...me.profile, logoUrl: "http://insecure.example/x.png" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(caller.account.updateProfile({ ...me.profile, checkoutExpiryMinutes: 2 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    for (const bad of ["http://shop.chai.example", "https://shop.chai.example/pay", "https://*.chai.example", "javascript:alert(1)"]) {
      await expect(caller.account.updateProfile({ ...me.profile, checkoutFrameOrigins: bad }), bad).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
  });

  it("records a go-live request once", async () => {
    const { merchantId } = await signup();
    const first = await as(merchantId).account.requestGoLive();
    const again = await as(merchantId).account.requestGoLive();
    expect(again.requestedAt).toEqual(first.requestedAt);
    expect(first.alreadyLive).toBe(false);
  });

  it("slows down, then locks an account after repeated wrong passwords, even for the right one", async () => {
    const { email, password } = await signup();
    const db = getServices().db;
    const timed = async (pw: string) => {
      const started = performance.now();
      const err = await signInMerchant(db, { email, password: pw }, "10.0.0.1").then(
        () => null,
        (e: { code: string }) => e,
      );
      return { code: err?.code ?? "OK", ms: performance.now() - started };
    };
    const tries = [];
    for (let i = 1; i < LOCK_AFTER; i++) tries.push(await timed("wrong-password"));
    expect(tries.map((t) => t.code)).toEqual(Array(LOCK_AFTER - 1).fill("INVALID_CREDENTIALS"));
    // From SLOW_DOWN_AFTER on, each failure waits 500 ms longer than the one before (500 ms, then 1 s).
    // Only lower bounds: a busy machine makes answers slower, never faster than the wait.
    expect(tries[SLOW_DOWN_AFTER - 1]!.ms).toBeGreaterThanOrEqual(490);
    expect(tries[SLOW_DOWN_AFTER]!.ms).toBeGreaterThanOrEqual(990);
    expect((await timed("wrong-password")).code).toBe("ACCOUNT_LOCKED");
    const locked = await timed(password);
    expect(locked.code).toBe("ACCOUNT_LOCKED");
    // A lock answers without the wait (and without checking the password).
    expect(locked.ms).toBeLessThan(tries[SLOW_DOWN_AFTER - 1]!.ms);
    const row = await db.signInThrottle.findFirstOrThrow({ where: { lockedUntil: { not: null } }, orderBy: { updatedAt: "desc" } });
    expect(row.lockedUntil!.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
  }, 30_000);

  it("resets the failure count after a successful sign-in and hides which emails exist", async () => {
    const { email, password } = await signup();
    const db = getServices().db;
    await expect(signInMerchant(db, { email, password: "wrong-password" }, "10.0.0.2")).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
    expect(await db.signInThrottle.count({ where: { subject: throttleSubject("merchant", email) } })).toBe(1);
    await expect(signInMerchant(db, { email, password }, "10.0.0.2")).resolves.toMatchObject({ email, role: "merchant" });
    expect(await db.signInThrottle.count({ where: { subject: throttleSubject("merchant", email) } })).toBe(0);
    await expect(signInMerchant(db, { email: "nobody@shop.example", password }, "10.0.0.2")).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
  });

  it("turns on TOTP, then asks for a code, accepts a valid one and each recovery code once", async () => {
    const { merchantId, email, password } = await signup();
    const caller = as(merchantId, email);
    const { proof: reauth } = await caller.security.confirmPassword({ password });
    const setup = await caller.account.totpSetup({ reauth });
    await expect(caller.account.totpEnable({ code: "000000" === totpAt(setup.secret, Date.now()) ? "111111" : "000000", reauth })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    const { recoveryCodes } = await caller.account.totpEnable({ code: totpAt(setup.secret, Date.now()), reauth });
    expect(recoveryCodes).toHaveLength(10);
    const stored = await getServices().db.merchant.findUniqueOrThrow({ where: { id: merchantId } });
    expect(stored.totpSecretEnc).not.toContain(setup.secret);
    expect(decrypt(stored.totpSecretEnc!, getConfig().secrets.encryptionKey)).toBe(setup.secret);
    const db = getServices().db;
    await expect(signInMerchant(db, { email, password }, "10.0.0.3")).rejects.toMatchObject({ code: "TOTP_REQUIRED" });
    await expect(signInMerchant(db, { email, password, code: "12345x" }, "10.0.0.3")).rejects.toMatchObject({ code: "TOTP_INVALID" });
    const code = totpAt(setup.secret, Date.now());
    await expect(signInMerchant(db, { email, password, code }, "10.0.0.3")).resolves.toMatchObject({ id: merchantId });
    // The same code again within its window is a replay.
    await expect(signInMerchant(db, { email, password, code }, "10.0.0.3")).rejects.toMatchObject({ code: "TOTP_INVALID" });
    await expect(signInMerchant(db, { email, password, code: recoveryCodes[0] }, "10.0.0.3")).resolves.toMatchObject({ id: merchantId });
    await expect(signInMerchant(db, { email, password, code: recoveryCodes[0] }, "10.0.0.3")).rejects.toMatchObject({ code: "TOTP_INVALID" });
    await expect(caller.account.totpDisable({ password: "not-my-password" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await caller.account.totpDisable({ password });
    await expect(signInMerchant(db, { email, password }, "10.0.0.3")).resolves.toMatchObject({ id: merchantId });
  });

  it("signs in operators with their own lockout", async () => {
    await createAdmin(getServices().db, "root@parakh.example", "a-long-password");
    await expect(signInAdmin(getServices().db, { email: "root@parakh.example", password: "a-long-password" }, "10.0.0.4")).resolves.toMatchObject({
      role: "admin",
    });
    await expect(signInAdmin(getServices().db, { email: "root@parakh.example", password: "nope-nope-nope" }, "10.0.0.4")).rejects.toMatchObject({
      code: "INVALID_CREDENTIALS",
    });
  });
});
