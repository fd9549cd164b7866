import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardContext } from "../helpers/dashboard";

// Server modules read their settings when first imported, so set them before importing.
const savedEnv = { ...process.env };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-stranger-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
process.env.SIGNUPS_PER_ADDRESS_PER_HOUR = "3";

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getServices } = await import("@/server/services");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { signInMerchant, SignInError } = await import("@/server/services/accounts/sign-in");

const anonymous = (clientIp: string) => dashboardContext(getServices(), null, { clientIp });

/** What someone with no account can make the dashboard's public endpoints do, bounded per address. */
describe("public dashboard endpoints against a stranger", () => {
  beforeAll(async () => {
    await migrateTestDatabase(process.env.DATABASE_URL!);
  });
  afterAll(() => {
    process.env = savedEnv;
  });

  it("creates at most SIGNUPS_PER_ADDRESS_PER_HOUR accounts per address, then answers TOO_MANY_REQUESTS", async () => {
    const signup = (ip: string, n: number) =>
      dashboardRouter.createCaller(anonymous(ip)).account.signup({ name: `Shop ${n}`, email: `s${n}-${ip}@example.com`, password: "a-long-password" });
    for (let n = 0; n < 3; n++) await expect(signup("198.51.100.7", n)).resolves.toMatchObject({ merchantId: expect.any(String) });
    await expect(signup("198.51.100.7", 3)).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
    expect(await getServices().db.merchant.count({ where: { email: { endsWith: "-198.51.100.7@example.com" } } })).toBe(3);
    // Another address is not affected.
    await expect(signup("198.51.100.8", 0)).resolves.toMatchObject({ merchantId: expect.any(String) });
  });

  it("lets at most 30 wrong passwords from one address through, even when they all arrive at once", async () => {
    const tries = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) => signInMerchant(getServices().db, { email: `nobody${i}@example.com`, password: "wrong-password" }, "203.0.113.9")),
    );
    const codes = tries.map((t) => (t.status === "rejected" && t.reason instanceof SignInError ? t.reason.code : "OTHER"));
    expect(codes.filter((c) => c === "INVALID_CREDENTIALS")).toHaveLength(30);
    expect(codes.filter((c) => c === "TOO_MANY_ATTEMPTS")).toHaveLength(30);
  });

  it("lets a browser that signed in to its account before past the cap an attack from its address filled, and nobody else", async () => {
    const office = "198.51.100.40";
    const signupFrom = "198.51.100.41";
    const caller = dashboardRouter.createCaller(anonymous(signupFrom));
    const owner = { email: `owner-${Date.now()}@example.com`, password: "owner-long-password" };
    const colleague = { email: `colleague-${Date.now()}@example.com`, password: "colleague-long-password" };
    for (const a of [owner, colleague]) await caller.account.signup({ name: "Shop", email: a.email, password: a.password });
    const db = getServices().db;
    // The owner's browser signed in from the office last week and kept its device token.
    const { deviceToken } = await signInMerchant(db, owner, office);
    expect(deviceToken).toMatch(/^[A-Za-z0-9]+\.\d+\.[0-9a-f]{64}$/);

    // 40 wrong passwords for a third account from the same address: the address's cap is used up.
    const victim = `victim-${Date.now()}@example.com`;
    const attack = await Promise.allSettled(Array.from({ length: 40 }, () => signInMerchant(db, { email: victim, password: "guess-guess" }, office)));
    const codeOf = (t: PromiseSettledResult<unknown>) => (t.status === "rejected" && t.reason instanceof SignInError ? t.reason.code : "OTHER");
    expect(attack.filter((t) => codeOf(t) === "TOO_MANY_ATTEMPTS")).toHaveLength(10);

    // A browser without a device token, from that address, is refused even with the right password.
    await expect(signInMerchant(db, colleague, office)).rejects.toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
    await expect(signInMerchant(db, owner, office)).rejects.toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
    // The owner's browser signs in, and gets a fresh token.
    const again = await signInMerchant(db, { ...owner, deviceToken }, office);
    expect(again.email).toBe(owner.email);
    expect(again.deviceToken).not.toBe(deviceToken);
    // The owner's token opens nothing for another account, and an edited token nothing at all.
    await expect(signInMerchant(db, { ...colleague, deviceToken }, office)).rejects.toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
    const edited = deviceToken.replace(/\.(\d+)\./, (_m, t: string) => `.${Number(t) + 1}.`);
    await expect(signInMerchant(db, { ...owner, deviceToken: edited }, office)).rejects.toMatchObject({ code: "TOO_MANY_ATTEMPTS" });

    // The token has a failure cap of its own (the per-account lock per address still applies too):
    // ten wrong passwords through it, spread over addresses, and it no longer passes the office's cap.
    for (let i = 0; i < 10; i++) {
      await expect(
        signInMerchant(db, { email: owner.email, password: "not-it-at-all", deviceToken: again.deviceToken }, `198.51.100.${50 + (i % 5)}`),
      ).rejects.toMatchObject({
        code: "INVALID_CREDENTIALS",
      });
    }
    await expect(signInMerchant(db, { ...owner, deviceToken: again.deviceToken }, office)).rejects.toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
  });
});
