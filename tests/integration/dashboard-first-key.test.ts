import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardContext } from "../helpers/dashboard";

// Server modules read their settings when first imported, so set them before importing.
const savedEnv = { ...process.env };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-first-key-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
process.env.APP_URL = "https://app.parakh.example";
process.env.API_BASE_URL = "https://api.parakh.example";
delete process.env.PAYMENT_BASE_URL;
delete process.env.KYC_BASE_URL;

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getServices } = await import("@/server/services");
const { dashboardRouter } = await import("@/server/api/dashboard/router");

const ctx = (session: { id: string; email: string } | null) => dashboardContext(getServices(), session && { ...session, role: "merchant" });

describe("sign-up hands over the first secret key, once", () => {
  beforeAll(async () => {
    await migrateTestDatabase(process.env.DATABASE_URL!);
    getServices().authCache.start();
  });
  afterAll(async () => {
    await getServices().authCache.stop();
    process.env = savedEnv;
  });

  it("answers the sandbox key pair with its working secret, which is stored only as a hash", async () => {
    const email = "first-key@shop.example";
    const res = await dashboardRouter.createCaller(ctx(null)).account.signup({ name: "First Key Foods", email, password: "a-long-password" });
    expect(res.sandboxKey.publicKey).toMatch(/^pk_test_[A-Za-z0-9]+$/);
    expect(res.sandboxKey.secretKey).toMatch(/^sk_test_[A-Za-z0-9]+$/);
    expect(res.apiBaseUrls).toEqual({ v1: "https://api.parakh.example", payments: "https://app.parakh.example", kyc: "https://app.parakh.example" });

    const db = getServices().db;
    const keys = await db.apiKey.findMany({ where: { merchantId: res.merchantId } });
    expect(keys).toHaveLength(1);
    expect(keys[0]!.publicKey).toBe(res.sandboxKey.publicKey);
    // Nothing in the row is the secret itself.
    expect(JSON.stringify(keys[0])).not.toContain(res.sandboxKey.secretKey);
    expect(await getServices().authCache.bySecret(res.sandboxKey.secretKey)).toMatchObject({ id: keys[0]!.id, merchantId: res.merchantId, mode: "sandbox" });

    // Later reads never carry it again.
    const list = await dashboardRouter.createCaller(ctx({ id: res.merchantId, email })).keys.list({ mode: "sandbox" });
    expect(JSON.stringify(list)).not.toContain(res.sandboxKey.secretKey);
  });

  it("lists the merchant id and each API family's address beside the keys", async () => {
    const email = "addresses@shop.example";
    const { merchantId } = await dashboardRouter.createCaller(ctx(null)).account.signup({ name: "Address Traders", email, password: "a-long-password" });
    const list = await dashboardRouter.createCaller(ctx({ id: merchantId, email })).keys.list({ mode: "sandbox" });
    expect(list.merchantId).toBe(merchantId);
    expect(list.apiBaseUrls).toEqual({ v1: "https://api.parakh.example", payments: "https://app.parakh.example", kyc: "https://app.parakh.example" });
  });
});
