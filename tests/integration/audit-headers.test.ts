import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import type { AppServices } from "@/server/services";
import { request } from "../helpers/http";
import { dashboardContext, merchantSession } from "../helpers/dashboard";
import { createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";

/**
 * Header values are stored like bodies: redacted. A card number, an Aadhaar number or a secret key
 * sent in User-Agent, X-Request-Id or Idempotency-Key never reaches the audit log, the dashboard's
 * request log or the idempotency records in clear.
 */
const SENSITIVE = [
  ["a Luhn-valid card number", "4111111111111111"],
  ["a Verhoeff-valid Aadhaar number", "234567890009"],
  ["an sk_test_ secret key", "sk_test_Q2x7LmP0aZk3Vb9TQ2x7LmP0"],
] as const;

describe.each(DB_TARGETS)("stored header values on %s", (target) => {
  let env: Started;
  let m: MerchantFixture;
  let db: Db;
  let dashboard: (typeof import("@/server/api/dashboard/router"))["dashboardRouter"];
  const logs = () => dashboard.createCaller(dashboardContext({ db } as unknown as AppServices, merchantSession(m))).logs;

  const pan = (headers: Record<string, string>, auth = true) =>
    request(env.server.url, "/v1/identity/pan/verify", {
      method: "POST",
      body: { pan: "ABCPK1234F" },
      headers: { ...(auth ? { Authorization: `Bearer ${m.sandbox.secretKey}` } : {}), ...headers },
    });

  beforeAll(async () => {
    env = await startFor(target);
    m = await createMerchantViaCli(env.server.env);
    db = createPrismaClient(env.server.databaseUrl);
    // The router's modules read settings when loaded: the server's, not ./data.
    process.env.DATA_DIR = env.server.dataDir;
    process.env.LOG_LEVEL = "silent";
    dashboard = (await import("@/server/api/dashboard/router")).dashboardRouter;
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
  });

  it.each(SENSITIVE)("redacts %s in User-Agent, X-Request-Id and Idempotency-Key", async (_what, value) => {
    const headers = { "User-Agent": `probe/1.0 (${value})`, "X-Request-Id": value, "Idempotency-Key": `order-${value}` };
    const first = await pan(headers);
    expect(first.status, first.text).toBe(200);
    const requestId = first.headers["x-request-id"] as string;
    // A client id holding the value is replaced, as a malformed one is.
    expect(requestId).toMatch(/^req_[A-Za-z0-9]{16}$/);

    const row = await db.auditLog.findFirstOrThrow({ where: { requestId } });
    expect(row.userAgent).toBe("probe/1.0 ([REDACTED])");
    expect(JSON.stringify(row)).not.toContain(value);
    expect(await db.auditLog.count({ where: { requestId: value } })).toBe(0);

    // The key still works as a key: the same one replays, and no record holds it in clear.
    const again = await pan(headers);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json).toEqual(first.json);
    const records = await db.idempotencyRecord.findMany({ where: { merchantId: m.merchantId } });
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) expect(r.key).not.toContain(value);

    const shown = await logs().get({ mode: "sandbox", requestId });
    expect(shown.userAgent).toBe("probe/1.0 ([REDACTED])");
    expect(JSON.stringify(shown)).not.toContain(value);
    const listed = await logs().list({ mode: "sandbox", limit: 100 });
    expect(JSON.stringify(listed)).not.toContain(value);
  });

  it("keeps two keys that differ only in their sensitive part apart", async () => {
    const a = await pan({ "Idempotency-Key": "card-4111111111111111" });
    const b = await pan({ "Idempotency-Key": "card-5500000000000004" });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers["idempotent-replayed"]).toBeUndefined();
    expect((await pan({ "Idempotency-Key": "card-5500000000000004" })).headers["idempotent-replayed"]).toBe("true");
  });

  it("redacts the headers of a refused stranger's request too", async () => {
    const [, card] = SENSITIVE[0];
    const refused = await pan({ "User-Agent": `stranger ${card}`, "X-Request-Id": card }, false);
    expect(refused.status).toBe(401);
    const requestId = refused.headers["x-request-id"] as string;
    expect(requestId).not.toBe(card);
    const row = await db.auditLog.findFirstOrThrow({ where: { requestId } });
    expect(row.userAgent).toBe("stranger [REDACTED]");
    expect(JSON.stringify(row)).not.toContain(card);
  });

  it("keeps harmless header values as sent", async () => {
    const r = await pan({ "User-Agent": "shop-backend/2.3 (build 20240611)", "X-Request-Id": `order_${target}_42` });
    expect(r.headers["x-request-id"]).toBe(`order_${target}_42`);
    expect((await db.auditLog.findFirstOrThrow({ where: { requestId: `order_${target}_42` } })).userAgent).toBe("shop-backend/2.3 (build 20240611)");
  });
});
