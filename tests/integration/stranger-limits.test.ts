import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Server modules read their settings when first imported, so set them before importing.
const savedEnv = { ...process.env };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-stranger-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
process.env.SIGNUPS_PER_ADDRESS_PER_HOUR = "3";

const { applyMigrations } = await import("@/server/db/migrate");
const { getServices } = await import("@/server/services");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { signInMerchant, SignInError } = await import("@/server/services/accounts/sign-in");

type Ctx = Parameters<typeof dashboardRouter.createCaller>[0];
const anonymous = (clientIp: string): Ctx => ({ services: getServices(), rest: null, req: null, res: null, session: null, clientIp, sameOrigin: true });

/** What someone with no account can make the dashboard's public endpoints do, bounded per address. */
describe("public dashboard endpoints against a stranger", () => {
  beforeAll(async () => {
    await applyMigrations(process.env.DATABASE_URL!);
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
});
