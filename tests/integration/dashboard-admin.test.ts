import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardContext, failure } from "../helpers/dashboard";

// The operator area's router against a real SQLite database: listing, usage, the three actions and
// who may call them.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-admin-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
delete process.env.BASE_URL;

const { migrateTestDatabase } = await import("../helpers/test-db");
const { getServices } = await import("@/server/services");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { fetchRequestHandler } = await import("@trpc/server/adapters/fetch");
const { createAdmin, createMerchant } = await import("@/server/services/merchants/merchants");
const { addWhitelistEntry } = await import("@/server/services/merchants/whitelist");
const { newId } = await import("@/server/lib/ids");
type SessionUser = import("@/server/trpc/init").SessionUser;

const services = () => getServices();
const db = () => services().db;

const ctx = (session: SessionUser | null, sameOrigin = true) => dashboardContext(services(), session, { sameOrigin });
const caller = (session: SessionUser | null, sameOrigin = true) => dashboardRouter.createCaller(ctx(session, sameOrigin));

/** The tRPC error code a call fails with (the test fails if it succeeds). */
const codeOf = async (p: Promise<unknown>) => (await failure(p)).code;

/** A mutation through the real fetch handler, so the error shape is what the browser receives. */
async function postOverHttp(procedure: string, input: unknown, session: SessionUser) {
  const res = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req: new Request(`http://127.0.0.1/api/trpc/${procedure}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(input),
    }),
    router: dashboardRouter,
    createContext: () => ctx(session),
  });
  return { status: res.status, body: (await res.json()) as { error?: { message: string; data: { code: string; fieldErrors?: Record<string, string> } } } };
}

const DAY = 24 * 60 * 60 * 1000;

async function insertCalls(merchantId: string, mode: "sandbox" | "live", count: number, ageMs = 0, pathName = "/v1/identity/pan/verify") {
  const base = Date.now() - ageMs;
  await db().auditLog.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      id: newId("aud"),
      requestId: newId("req"),
      merchantId,
      apiKeyId: null,
      mode,
      method: "POST",
      path: pathName,
      status: 200,
      latencyMs: 3,
      clientIp: "127.0.0.1",
      createdAt: new Date(base - i * 1000),
    })),
  });
}

describe("admin router (operator area)", () => {
  let admin: SessionUser;
  let alpha: Awaited<ReturnType<typeof createMerchant>>;
  let beta: Awaited<ReturnType<typeof createMerchant>>;
  let gamma: Awaited<ReturnType<typeof createMerchant>>;
  let alphaSession: SessionUser;

  beforeAll(async () => {
    await migrateTestDatabase(process.env.DATABASE_URL!);
    const a = await createAdmin(db(), "ops@example.com", "ops-password-123");
    admin = { id: a.adminId, email: a.email, role: "admin" };
    alpha = await createMerchant(db(), { name: "Alpha Traders", email: "alpha@example.com", password: "a-long-password" });
    beta = await createMerchant(db(), { name: "Beta Foods", email: "beta@example.com", password: "a-long-password" });
    gamma = await createMerchant(db(), { name: "Gamma Stores", email: "gamma@example.com", password: "a-long-password" });
    alphaSession = { id: alpha.merchantId, email: alpha.email, role: "merchant" };
    // Beta asks for go-live through its own dashboard.
    await caller({ id: beta.merchantId, email: beta.email, role: "merchant" }).account.requestGoLive();
  });
  afterAll(async () => {
    await services().authCache.stop();
  });

  describe("who may call", () => {
    const calls = (c: ReturnType<typeof caller>, merchantId: string) => [
      c.admin.merchants({}),
      c.admin.merchant({ merchantId }),
      c.admin.approveGoLive({ merchantId }),
      c.admin.suspend({ merchantId, reason: "testing access" }),
      c.admin.reinstate({ merchantId }),
      c.admin.actions({}),
    ];

    it("refuses a merchant session on every admin procedure (FORBIDDEN), and changes nothing", async () => {
      const codes = await Promise.all(calls(caller(alphaSession), alpha.merchantId).map(codeOf));
      expect(codes).toEqual(Array(6).fill("FORBIDDEN"));
      const m = await db().merchant.findUniqueOrThrow({ where: { id: alpha.merchantId } });
      expect(m.status).toBe("ACTIVE");
      expect(m.liveEnabled).toBe(false);
      expect(await db().operatorAction.count()).toBe(0);
    });

    it("refuses anonymous callers", async () => {
      const codes = await Promise.all(calls(caller(null), alpha.merchantId).map(codeOf));
      expect(codes).toEqual(Array(6).fill("UNAUTHORIZED"));
    });

    it("refuses a cross-site mutation (CSRF) even from an operator", async () => {
      const c = caller(admin, false);
      expect(await codeOf(c.admin.suspend({ merchantId: alpha.merchantId, reason: "cross site" }))).toBe("FORBIDDEN");
      expect(await codeOf(c.admin.approveGoLive({ merchantId: alpha.merchantId }))).toBe("FORBIDDEN");
      expect(await codeOf(c.admin.reinstate({ merchantId: alpha.merchantId }))).toBe("FORBIDDEN");
      expect((await db().merchant.findUniqueOrThrow({ where: { id: alpha.merchantId } })).status).toBe("ACTIVE");
      expect(await db().operatorAction.count()).toBe(0);
      // Reads stay allowed: they change nothing.
      await expect(c.admin.merchants({})).resolves.toBeTruthy();
    });
  });

  describe("merchants list", () => {
    it("lists every merchant with pending go-live requests first", async () => {
      const page = await caller(admin).admin.merchants({});
      expect(page.total).toBe(3);
      expect(page.items.map((m) => m.id)).toEqual([beta.merchantId, gamma.merchantId, alpha.merchantId]);
      expect(page.items[0]!.goLive.state).toBe("requested");
      expect(page.items[0]!.goLive.requestedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(page.items[1]!.goLive.state).toBe("sandbox");
      expect(page.items[0]!.status).toBe("ACTIVE");
      expect(page.pendingGoLive).toBe(1);
      expect(page.nextCursor).toBeNull();
    });

    it("searches by name (any case), email and id", async () => {
      const c = caller(admin).admin;
      expect((await c.merchants({ q: "alpha" })).items.map((m) => m.id)).toEqual([alpha.merchantId]);
      expect((await c.merchants({ q: "BETA@EXAMPLE" })).items.map((m) => m.id)).toEqual([beta.merchantId]);
      expect((await c.merchants({ q: gamma.merchantId })).items.map((m) => m.id)).toEqual([gamma.merchantId]);
      const none = await c.merchants({ q: "nobody-here" });
      expect(none.items).toEqual([]);
      expect(none.total).toBe(0);
    });

    it("filters: go-live requested, live, suspended", async () => {
      const c = caller(admin).admin;
      expect((await c.merchants({ filter: "go_live_requested" })).items.map((m) => m.id)).toEqual([beta.merchantId]);
      expect((await c.merchants({ filter: "live" })).items).toEqual([]);
      expect((await c.merchants({ filter: "suspended" })).items).toEqual([]);
      await db().merchant.update({ where: { id: gamma.merchantId }, data: { status: "SUSPENDED" } });
      try {
        const suspended = await c.merchants({ filter: "suspended" });
        expect(suspended.items.map((m) => [m.id, m.status])).toEqual([[gamma.merchantId, "SUSPENDED"]]);
      } finally {
        await db().merchant.update({ where: { id: gamma.merchantId }, data: { status: "ACTIVE" } });
      }
    });

    it("counts API calls per merchant from the audit log", async () => {
      await insertCalls(alpha.merchantId, "sandbox", 3);
      await insertCalls(alpha.merchantId, "sandbox", 2, 10 * DAY);
      await insertCalls(alpha.merchantId, "live", 1, DAY);
      await insertCalls(beta.merchantId, "sandbox", 4, 8 * DAY);
      const items = (await caller(admin).admin.merchants({})).items;
      const usage = Object.fromEntries(items.map((m) => [m.id, m.usage]));
      expect(usage[alpha.merchantId]).toEqual({ last7Days: 4, sandbox: 5, live: 1 });
      expect(usage[beta.merchantId]).toEqual({ last7Days: 0, sandbox: 4, live: 0 });
      expect(usage[gamma.merchantId]).toEqual({ last7Days: 0, sandbox: 0, live: 0 });
    });

    it("pages 50 at a time without repeating or skipping anyone", async () => {
      const now = Date.now();
      const extra = Array.from({ length: 60 }, (_, i) => ({
        id: newId("mer"),
        name: `Bulk ${String(i).padStart(2, "0")}`,
        email: `bulk${i}@example.com`,
        passwordHash: "unused",
        createdAt: new Date(now - (i + 1) * 60_000),
        // Two of them are waiting for go-live and must lead page one.
        goLiveRequestedAt: i === 40 || i === 59 ? new Date(now - i * 1000) : null,
      }));
      await db().merchant.createMany({ data: extra });
      try {
        const c = caller(admin).admin;
        const first = await c.merchants({ filter: "all" });
        expect(first.total).toBe(63);
        expect(first.items).toHaveLength(50);
        expect(first.nextCursor).toBe(50);
        expect(first.items.slice(0, 3).every((m) => m.goLive.state === "requested")).toBe(true);
        expect(first.items.slice(3).every((m) => m.goLive.state !== "requested")).toBe(true);
        const second = await c.merchants({ filter: "all", cursor: first.nextCursor! });
        expect(second.items).toHaveLength(13);
        expect(second.nextCursor).toBeNull();
        const ids = [...first.items, ...second.items].map((m) => m.id);
        expect(new Set(ids).size).toBe(63);
        expect((await c.merchants({ q: "bulk", filter: "go_live_requested" })).items).toHaveLength(2);
      } finally {
        await db().merchant.deleteMany({ where: { id: { in: extra.map((m) => m.id) } } });
      }
    });
  });

  describe("merchant detail", () => {
    it("shows profile, keys, whitelist, wallets, usage and the last 20 calls newest first", async () => {
      await addWhitelistEntry(db(), alpha.merchantId, "203.0.113.0/24");
      await insertCalls(alpha.merchantId, "sandbox", 25, 0, "/v1/employment/epfo/verify");
      await insertCalls(alpha.merchantId, "live", 1, -5_000, "/v1/newest");
      const d = await caller(admin).admin.merchant({ merchantId: alpha.merchantId });
      expect(d).toMatchObject({
        id: alpha.merchantId,
        name: "Alpha Traders",
        email: "alpha@example.com",
        status: "ACTIVE",
        suspension: null,
        goLive: { state: "sandbox", requestedAt: null, approvedAt: null },
        keys: { sandbox: { total: 1, active: 1 }, live: { total: 0, active: 0 } },
        whitelist: { entries: 1, enforceAll: false },
      });
      expect(d.wallets).toEqual([
        { mode: "sandbox", exists: true, balancePaise: 1_000_000, balance: "10000.00" },
        { mode: "live", exists: false, balancePaise: 0, balance: "0.00" },
      ]);
      expect(d.usage).toEqual({ last7Days: 30, sandbox: 30, live: 2 });
      expect(d.recentCalls).toHaveLength(20);
      expect(d.recentCalls[0]).toMatchObject({ path: "/v1/newest", mode: "live", method: "POST", status: 200 });
      const times = d.recentCalls.map((c) => Date.parse(c.createdAt));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it("answers NOT_FOUND for an unknown merchant, on reads and actions", async () => {
      const c = caller(admin).admin;
      expect(await codeOf(c.merchant({ merchantId: "mer_doesNotExist" }))).toBe("NOT_FOUND");
      expect(await codeOf(c.approveGoLive({ merchantId: "mer_doesNotExist" }))).toBe("NOT_FOUND");
      expect(await codeOf(c.suspend({ merchantId: "mer_doesNotExist", reason: "no such merchant" }))).toBe("NOT_FOUND");
      expect(await codeOf(c.reinstate({ merchantId: "mer_doesNotExist" }))).toBe("NOT_FOUND");
      expect(await db().operatorAction.count()).toBe(0);
    });
  });

  describe("approve go-live", () => {
    it("unlocks live mode with a live signing secret and wallet, and records who did it", async () => {
      const res = await caller(admin).admin.approveGoLive({ merchantId: beta.merchantId });
      expect(res).toEqual({ merchantId: beta.merchantId, liveEnabled: true });
      const m = await db().merchant.findUniqueOrThrow({ where: { id: beta.merchantId } });
      expect(m.liveEnabled).toBe(true);
      expect(m.goLiveApprovedAt).toBeInstanceOf(Date);
      expect(await db().signingSecret.count({ where: { merchantId: beta.merchantId, mode: "live" } })).toBe(1);
      expect(await db().wallet.count({ where: { merchantId: beta.merchantId, mode: "live" } })).toBe(1);
      const actions = await db().operatorAction.findMany({ where: { merchantId: beta.merchantId } });
      expect(actions).toHaveLength(1);
      expect(actions[0]).toMatchObject({ action: "APPROVE_GO_LIVE", adminId: admin.id, adminEmail: "ops@example.com" });

      const list = await caller(admin).admin.merchants({ filter: "live" });
      expect(list.items.map((x) => x.id)).toEqual([beta.merchantId]);
      expect(list.items[0]!.goLive.state).toBe("live");
      expect(list.pendingGoLive).toBe(0);
      // The merchant can now use live mode from its dashboard.
      await expect(caller({ id: beta.merchantId, email: beta.email, role: "merchant" }).account.me()).resolves.toMatchObject({ liveEnabled: true });
    });

    it("refuses to approve a merchant that is already live, without recording anything", async () => {
      expect(await codeOf(caller(admin).admin.approveGoLive({ merchantId: beta.merchantId }))).toBe("CONFLICT");
      expect(await db().operatorAction.count({ where: { merchantId: beta.merchantId } })).toBe(1);
    });
  });

  describe("suspend and reinstate", () => {
    it("validates the reason with field errors (same schema as the form)", async () => {
      for (const reason of ["ab", "   ", "x".repeat(201)]) {
        const { status, body } = await postOverHttp("admin.suspend", { merchantId: alpha.merchantId, reason }, admin);
        expect(status).toBe(400);
        expect(body.error?.data.code).toBe("BAD_REQUEST");
        expect(body.error?.data.fieldErrors?.reason).toMatch(/reason/i);
      }
      expect(await codeOf(caller(admin).admin.suspend({ merchantId: alpha.merchantId, reason: "no" }))).toBe("BAD_REQUEST");
      expect((await db().merchant.findUniqueOrThrow({ where: { id: alpha.merchantId } })).status).toBe("ACTIVE");
    });

    it("suspends: status, recorded reason, and the API's auth cache sees it", async () => {
      const cache = services().authCache;
      const secret = alpha.sandbox.key.secretKey;
      expect((await cache.bySecret(secret))?.merchant.status).toBe("ACTIVE");

      const res = await caller(admin).admin.suspend({ merchantId: alpha.merchantId, reason: "  Chargeback fraud review  " });
      expect(res).toEqual({ merchantId: alpha.merchantId, status: "SUSPENDED" });
      expect((await db().merchant.findUniqueOrThrow({ where: { id: alpha.merchantId } })).status).toBe("SUSPENDED");
      const action = await db().operatorAction.findFirstOrThrow({ where: { merchantId: alpha.merchantId, action: "SUSPEND" } });
      expect(action).toMatchObject({ adminEmail: "ops@example.com", details: "Chargeback fraud review" });

      cache.clear();
      expect((await cache.bySecret(secret))?.merchant.status).toBe("SUSPENDED");

      const d = await caller(admin).admin.merchant({ merchantId: alpha.merchantId });
      expect(d.suspension).toMatchObject({ reason: "Chargeback fraud review", by: "ops@example.com" });
      expect(await codeOf(caller(admin).admin.suspend({ merchantId: alpha.merchantId, reason: "again" }))).toBe("CONFLICT");
    });

    it("reinstates, records it, and the API's auth cache sees it", async () => {
      const cache = services().authCache;
      const res = await caller(admin).admin.reinstate({ merchantId: alpha.merchantId });
      expect(res).toEqual({ merchantId: alpha.merchantId, status: "ACTIVE" });
      expect(await db().operatorAction.count({ where: { merchantId: alpha.merchantId, action: "REINSTATE" } })).toBe(1);
      cache.clear();
      expect((await cache.bySecret(alpha.sandbox.key.secretKey))?.merchant.status).toBe("ACTIVE");
      expect((await caller(admin).admin.merchant({ merchantId: alpha.merchantId })).suspension).toBeNull();
      expect(await codeOf(caller(admin).admin.reinstate({ merchantId: alpha.merchantId }))).toBe("CONFLICT");
    });
  });

  describe("activity", () => {
    it("lists every operator action newest first, per merchant too", async () => {
      const all = await caller(admin).admin.actions({});
      expect(all.items.map((a) => a.action)).toEqual(["REINSTATE", "SUSPEND", "APPROVE_GO_LIVE"]);
      expect(all.items[0]).toMatchObject({ adminEmail: "ops@example.com", merchantId: alpha.merchantId, merchantName: "Alpha Traders" });
      expect(all.items[1]!.details).toBe("Chargeback fraud review");
      expect(all.nextCursor).toBeNull();
      const forBeta = await caller(admin).admin.actions({ merchantId: beta.merchantId });
      expect(forBeta.items.map((a) => a.action)).toEqual(["APPROVE_GO_LIVE"]);
    });

    it("pages by cursor", async () => {
      const base = Date.now() + 60_000;
      await db().operatorAction.createMany({
        data: Array.from({ length: 60 }, (_, i) => ({
          id: newId("opa"),
          adminId: admin.id,
          adminEmail: admin.email,
          action: "SUSPEND",
          merchantId: gamma.merchantId,
          details: `bulk ${i}`,
          createdAt: new Date(base - i * 1000),
        })),
      });
      const c = caller(admin).admin;
      const first = await c.actions({});
      expect(first.items).toHaveLength(50);
      expect(first.items[0]!.details).toBe("bulk 0");
      expect(first.nextCursor).toBe(first.items[49]!.id);
      const second = await c.actions({ cursor: first.nextCursor });
      expect(second.items).toHaveLength(13);
      expect(second.nextCursor).toBeNull();
      expect(new Set([...first.items, ...second.items].map((a) => a.id)).size).toBe(63);
      expect(second.items.at(-1)!.action).toBe("APPROVE_GO_LIVE");
    });
  });
});
