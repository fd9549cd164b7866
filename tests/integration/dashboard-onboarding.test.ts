import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_TARGETS } from "../helpers/db-targets";
import { request } from "../helpers/http";
import type { TestServer } from "../helpers/server";
import { waitFor } from "../helpers/wait";
import { dashboardContext, failure, merchantSession, openDashboardTarget } from "../helpers/dashboard";

// The Overview's first-day checklist through the real router, fed by calls to a real server on the
// same database: each tick comes from what those calls stored, and the refused address it offers
// is the one the server saw (a second loopback address stands in for the merchant's server).
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-dash-onboarding-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
process.env.WEBHOOK_SANDBOX_ALLOW_LOOPBACK = "true";
// The server child inherits these, so both processes hash keys alike.
process.env.ENCRYPTION_KEY = crypto.randomBytes(32).toString("base64");
process.env.HASH_KEY = crypto.randomBytes(32).toString("base64");
process.env.NEXTAUTH_SECRET = crypto.randomBytes(32).toString("base64url");

const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { createMerchant } = await import("@/server/services/merchants/merchants");

type Db = import("@/server/db/client").Db;
type Services = import("@/server/services").AppServices;
type Merchant = Awaited<ReturnType<typeof createMerchant>>;

const SERVER_IP = "127.0.0.2";

describe.each(DB_TARGETS)("the onboarding checklist on %s", (target) => {
  let close: (() => Promise<void>) | undefined;
  let server: TestServer;
  let services: Services;
  let db: Db;
  let seq = 0;

  const dash = (m: Merchant) => dashboardRouter.createCaller(dashboardContext(services, merchantSession(m)));
  const newMerchant = (name: string) =>
    createMerchant(db, { name, email: `${name.toLowerCase()}-${target}-${++seq}@example.com`, password: "a-long-password" });
  const stepsOf = async (m: Merchant) => Object.fromEntries((await dash(m).overview.onboarding()).steps.map((s) => [s.id, s.done]));
  const checkout = (m: Merchant, from: string, orderId: string) =>
    request(server.url, "/api/checkout", {
      localAddress: from,
      body: { orderId, amount: "100" },
      headers: { "x-merchant-id": m.merchantId, "x-api-key": m.sandbox.key.publicKey, "x-secret-key": m.sandbox.key.secretKey },
    });
  const refusedFor = (m: Merchant, ip: string) =>
    waitFor(`a refused call from ${ip}`, async () => {
      const r = (await dash(m).overview.onboarding()).lastRefused;
      return r?.clientIp === ip ? r : null;
    });

  beforeAll(async () => {
    ({ services, server, close } = await openDashboardTarget(target));
    db = services.db;
  });
  afterAll(() => close?.());

  it("ticks the first verification for an EPFO call as for a PAN call", async () => {
    const m = await newMerchant("Payroll");
    expect(await stepsOf(m)).toMatchObject({ firstVerification: false });
    const epfo = await request(server.url, "/v1/employment/epfo/verify", {
      body: { uan: "100200300400" },
      headers: { Authorization: `Bearer ${m.sandbox.key.secretKey}` },
    });
    expect(epfo.status).toBe(200);
    await waitFor("the EPFO call's tick", async () => (await stepsOf(m)).firstVerification);
  });

  it("ticks each step from stored activity, in order, and offers the newest refused address of this merchant only", async () => {
    const m = await newMerchant("Fresh");
    const other = await newMerchant("Other");
    const start = await dash(m).overview.onboarding();
    expect(start.merchantId).toBe(m.merchantId);
    expect(start.steps).toEqual([
      { id: "sandboxKeyUsed", done: false },
      { id: "firstVerification", done: false },
      { id: "serverIpWhitelisted", done: false },
      { id: "firstTestPayment", done: false },
      { id: "webhookEndpoint", done: false },
      { id: "goLiveRequested", done: false },
    ]);
    expect(start.lastRefused).toBeNull();

    // /v1 does not check the whitelist unless the merchant turns that on: the PAN call goes through.
    const pan = await request(server.url, "/v1/identity/pan/verify", {
      localAddress: SERVER_IP,
      body: { pan: "ABCPK1234F", name: "Arjun Kapoor" },
      headers: { Authorization: `Bearer ${m.sandbox.key.secretKey}` },
    });
    expect(pan.status).toBe(200);
    await waitFor("the PAN call's ticks", async () => {
      const s = await stepsOf(m);
      return s.sandboxKeyUsed && s.firstVerification;
    });
    expect(await stepsOf(other)).toMatchObject({ sandboxKeyUsed: false, firstVerification: false });

    // Payments always check it.
    const refused = await checkout(m, SERVER_IP, "ORDER_ONB_1");
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe("IP_NOT_WHITELISTED");
    expect(await refusedFor(m, SERVER_IP)).toMatchObject({ method: "POST", path: "/api/checkout" });
    // Another merchant's refusal is not offered here; a newer one of this merchant is.
    expect((await checkout(other, "127.0.0.3", "ORDER_ONB_X")).status).toBe(403);
    await refusedFor(other, "127.0.0.3");
    expect((await dash(m).overview.onboarding()).lastRefused?.clientIp).toBe(SERVER_IP);
    expect((await checkout(m, "127.0.0.4", "ORDER_ONB_2")).status).toBe(403);
    const newest = await refusedFor(m, "127.0.0.4");

    // The one click is the whitelist's own add, checks and all.
    await dash(m).whitelist.add({ ip: newest.clientIp, label: "Server (from a refused call)" });
    const afterAdd = await dash(m).overview.onboarding();
    expect(afterAdd.steps.find((s) => s.id === "serverIpWhitelisted")!.done).toBe(true);
    expect(afterAdd.lastRefused).toBeNull();
    expect((await failure(dash(m).whitelist.add({ ip: newest.clientIp, label: "" }))).appCode).toBe("CONFLICT");

    // The server hears of the new entry within a second (it polls for changes).
    await waitFor("the server to accept the listed address", async () => (await checkout(m, "127.0.0.4", "ORDER_ONB_2")).status === 200);
    expect(await stepsOf(m)).toMatchObject({ firstTestPayment: true, webhookEndpoint: false, goLiveRequested: false });
    await dash(m).webhooks.create({ mode: "sandbox", url: "http://127.0.0.1:9/hooks", events: ["*"] });
    expect(await stepsOf(m)).toMatchObject({ webhookEndpoint: true, goLiveRequested: false });
    await dash(m).account.requestGoLive();
    expect(Object.values(await stepsOf(m))).toEqual([true, true, true, true, true, true]);
    expect(Object.values(await stepsOf(other)).filter(Boolean)).toHaveLength(1);
  });

  it("offers no refused address older than a week", async () => {
    const m = await newMerchant("Returning");
    await db.auditLog.create({
      data: {
        id: `aud_onb_${target}`,
        requestId: `req_onb_${target}`,
        merchantId: m.merchantId,
        apiKeyId: m.sandbox.key.id,
        mode: "sandbox",
        method: "POST",
        path: "/api/checkout",
        status: 403,
        latencyMs: 1,
        clientIp: "198.51.100.7",
        errorCode: "IP_NOT_WHITELISTED",
        createdAt: new Date(Date.now() - 8 * 24 * 3600 * 1000),
      },
    });
    expect((await dash(m).overview.onboarding()).lastRefused).toBeNull();
    await db.auditLog.update({ where: { id: `aud_onb_${target}` }, data: { createdAt: new Date(Date.now() - 6 * 24 * 3600 * 1000) } });
    expect((await dash(m).overview.onboarding()).lastRefused?.clientIp).toBe("198.51.100.7");
  });
});
