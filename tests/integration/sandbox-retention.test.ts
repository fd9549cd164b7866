import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import type { AppServices } from "@/server/services";
import { request } from "../helpers/http";
import { dashboardContext, merchantSession } from "../helpers/dashboard";
import { cli, createMerchantViaCli, startServer, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";

const DAY_MS = 24 * 60 * 60 * 1000;
/** A small allowance, so the test reaches it with a few small batches. */
const ITEMS_PER_DAY = 25;
const SETTINGS = { SANDBOX_BATCH_ITEMS_PER_DAY: String(ITEMS_PER_DAY) };

const pan = (i: number) => `ABCPK${String(1000 + i).padStart(4, "0")}F`;
const panItems = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ pan: pan(from + i), reference_id: `r${from + i}` }));

/**
 * What a sandbox merchant can make the server keep: its sandbox batches, verification rows and
 * request-log records are purged after SANDBOX_RETENTION_DAYS (30) while live data keeps the audit
 * rule, and it may submit SANDBOX_BATCH_ITEMS_PER_DAY batch items in any 24 hours.
 */
describe.each(DB_TARGETS)("sandbox retention and batch allowance on %s", (target) => {
  let env: Started;
  let db: Db;
  let dashboard: (typeof import("@/server/api/dashboard/router"))["dashboardRouter"];

  const bearer = (secretKey: string) => ({ Authorization: `Bearer ${secretKey}` });
  // A live batch carries the person's consent and its purpose (C6); sandbox needs neither.
  const submit = (m: MerchantFixture, items: unknown[], secretKey = m.sandbox.secretKey) =>
    request(env.server.url, "/v1/identity/pan/batch", {
      method: "POST",
      body: secretKey.startsWith("sk_live_") ? { items, consent: true, purpose: "Seller onboarding: identity check before payouts" } : { items },
      headers: bearer(secretKey),
    });
  const completed = (m: MerchantFixture, batchId: string) =>
    waitFor(
      `batch ${batchId} to complete`,
      async () => {
        const r = await request(env.server.url, `/v1/identity/pan/batch/${batchId}`, { headers: bearer(m.sandbox.secretKey) });
        return r.json.data.status === "COMPLETED" ? r.json.data : null;
      },
      30_000,
      100,
    );
  const dashboardOf = (m: MerchantFixture) =>
    dashboard.createCaller(dashboardContext({ db, config: { sandboxBatchItemsPerDay: ITEMS_PER_DAY } } as unknown as AppServices, merchantSession(m)));

  beforeAll(async () => {
    env = await startFor(target, SETTINGS);
    db = createPrismaClient(env.server.databaseUrl);
    process.env.DATA_DIR = env.server.dataDir;
    process.env.LOG_LEVEL = "silent";
    dashboard = (await import("@/server/api/dashboard/router")).dashboardRouter;
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.server.stop(); // the server restarted by the purge test, when it ran
    await env?.stop();
  });

  it("purges sandbox batches, verification rows and request-log records past the retention; live and recent ones stay", async () => {
    const m = await createMerchantViaCli(env.server.env, "Retention Store");
    const other = await createMerchantViaCli(env.server.env, "Other Store");
    const verify = (who: MerchantFixture) =>
      request(env.server.url, "/v1/identity/pan/verify", { method: "POST", body: { pan: pan(900) }, headers: bearer(who.sandbox.secretKey) });

    // Traffic that will be old: a batch (its items become verification rows) and a single call.
    const oldBatch = (await submit(m, panItems(3))).json.data.batch_id as string;
    await completed(m, oldBatch);
    const oldCall = await verify(m);
    expect(oldCall.status).toBe(200);
    const oldRequestId = oldCall.headers["x-request-id"] as string;

    // Rows are backdated with no server running, so no purge pass sees them half-done.
    await env.server.stop();
    const longAgo = new Date(Date.now() - 31 * DAY_MS);
    const sandboxOf = { merchantId: m.merchantId, mode: "sandbox" };
    await db.batch.updateMany({ where: sandboxOf, data: { createdAt: longAgo } });
    const oldVerifications = await db.verification.updateMany({ where: sandboxOf, data: { createdAt: longAgo } });
    const oldAudit = await db.auditLog.updateMany({ where: sandboxOf, data: { createdAt: longAgo } });
    expect(oldVerifications.count).toBe(4); // 3 batch items and the single call
    expect(oldAudit.count).toBeGreaterThanOrEqual(3); // the batch POST, its polls and the single call
    expect(await db.batchChunk.count({ where: { batchId: oldBatch } })).toBe(1);

    // Live data of the same age (and older) keeps the audit rule; so do refused strangers' records.
    const liveBatch = `batch_live${target}old`;
    await db.batch.create({
      data: {
        id: liveBatch,
        merchantId: m.merchantId,
        mode: "live",
        kind: "PAN",
        status: "COMPLETED",
        total: 1,
        accepted: 1,
        rejected: 0,
        processed: 1,
        succeeded: 1,
        failed: 0,
        chunkSize: 100,
        chunkCount: 1,
        requestId: "req_liveold",
        createdAt: new Date(Date.now() - 400 * DAY_MS),
        chunks: { create: { id: `${liveBatch}_0`, seq: 0, status: "DONE", results: "[]", availableAt: longAgo, itemsRow: { create: { items: "[]" } } } },
      },
    });
    const live = { merchantId: m.merchantId, mode: "live", requestId: "req_liveold", createdAt: longAgo };
    await db.verification.create({ data: { id: `ver_live${target}`, ...live, kind: "PAN", subject: pan(1), outcome: "VALID" } });
    const auditRow = (id: string, over: Record<string, unknown>) => ({
      id,
      requestId: "req_liveold",
      method: "POST",
      path: "/v1/identity/pan/verify",
      status: 200,
      latencyMs: 1,
      clientIp: "203.0.113.9",
      createdAt: longAgo,
      ...over,
    });
    await db.auditLog.createMany({
      data: [
        auditRow(`aud_live${target}`, { merchantId: m.merchantId, mode: "live" }),
        auditRow(`aud_stranger${target}`, { merchantId: null, mode: null, status: 401 }),
        // Another merchant's sandbox record a day short of the retention.
        auditRow(`aud_recent${target}`, { merchantId: other.merchantId, mode: "sandbox", createdAt: new Date(Date.now() - 29 * DAY_MS) }),
      ],
    });

    // The restarted server's first retention pass (10 s after start) runs the purge.
    env.server = await startServer({ databaseUrl: env.server.databaseUrl, env: { DATA_DIR: env.server.dataDir, ...SETTINGS } });
    const recentBatch = (await submit(m, panItems(2, 10))).json.data.batch_id as string;
    await completed(m, recentBatch);
    expect((await verify(m)).status).toBe(200);

    await waitFor("the sandbox purge", async () => ((await db.batch.count({ where: { id: oldBatch } })) === 0 ? true : null), 40_000, 250);
    await waitFor("the purge pass to end", async () => (/"msg":"retention purge"[^\n]*"sandboxAuditRecords"/.test(env.server.logs()) ? true : null), 10_000);
    expect(await db.batchChunk.count({ where: { batchId: oldBatch } })).toBe(0);
    expect(await db.verification.count({ where: { ...sandboxOf, createdAt: { lt: new Date(Date.now() - 30 * DAY_MS) } } })).toBe(0);
    expect(await db.auditLog.count({ where: { ...sandboxOf, createdAt: { lt: new Date(Date.now() - 30 * DAY_MS) } } })).toBe(0);
    expect(await db.auditLog.count({ where: { requestId: oldRequestId } })).toBe(0);
    const log = env.server
      .logs()
      .split("\n")
      .find((l) => l.includes('"msg":"retention purge"'))!;
    expect(JSON.parse(log)).toMatchObject({ sandboxBatches: 1, sandboxVerifications: 4, sandboxAuditRecords: oldAudit.count });

    // Recent sandbox data stays, and its results still page.
    expect(await db.batch.count({ where: { id: recentBatch } })).toBe(1);
    expect(await db.verification.count({ where: sandboxOf })).toBe(3);
    expect(await db.auditLog.count({ where: sandboxOf })).toBeGreaterThan(0);
    const results = await request(env.server.url, `/v1/identity/pan/batch/${recentBatch}/results`, { headers: bearer(m.sandbox.secretKey) });
    expect(results.json.data.items).toHaveLength(2);
    // Live, stranger and younger records stay.
    expect(await db.batch.count({ where: { id: liveBatch } })).toBe(1);
    expect(await db.batchChunk.count({ where: { batchId: liveBatch } })).toBe(1);
    expect(await db.verification.count({ where: { id: `ver_live${target}` } })).toBe(1);
    expect(await db.auditLog.count({ where: { id: { in: [`aud_live${target}`, `aud_stranger${target}`, `aud_recent${target}`] } } })).toBe(3);
    // An old sandbox request id is gone from the dashboard's request log too.
    await expect(dashboardOf(m).logs.get({ mode: "sandbox", requestId: oldRequestId })).rejects.toThrow(TRPCError);
  }, 120_000);

  it("caps a sandbox merchant's batch items per rolling 24 hours: 429 RATE_LIMITED with Retry-After, through the API and the dashboard", async () => {
    const m = await createMerchantViaCli(env.server.env, "Allowance Store");
    const batches = () => db.batch.findMany({ where: { merchantId: m.merchantId }, orderBy: { createdAt: "asc" } });
    expect((await submit(m, panItems(10))).status).toBe(202);
    expect((await submit(m, panItems(10))).status).toBe(202);

    const over = await submit(m, panItems(10));
    expect(over.status, over.text).toBe(429);
    expect(over.json).toMatchObject({ status: "error", error: { code: "RATE_LIMITED" } });
    expect(over.json.error.message).toMatch(/25 items in any 24 hours and 5 are left/);
    // The first batch leaves the window a day after it came: that frees enough.
    const wait = Number(over.headers["retry-after"]);
    expect(wait).toBeGreaterThan(DAY_MS / 1000 - 120);
    expect(wait).toBeLessThanOrEqual(DAY_MS / 1000);
    expect(await batches()).toHaveLength(2);

    // What is left can be used, to the item; then nothing more.
    expect((await submit(m, panItems(5))).status).toBe(202);
    const full = await submit(m, panItems(1));
    expect(full.status).toBe(429);
    expect(Number(full.headers["retry-after"])).toBeGreaterThan(0);

    // The dashboard's upload goes through the same allowance.
    const refused = await dashboardOf(m)
      .batches.create({ mode: "sandbox", kind: "PAN", items: [{ pan: pan(1) }] })
      .then(
        () => null,
        (err: TRPCError) => err,
      );
    expect(refused).toBeInstanceOf(TRPCError);
    expect(refused!.code).toBe("TOO_MANY_REQUESTS");
    expect((refused!.cause as { code?: string }).code).toBe("RATE_LIMITED");
    expect(await batches()).toHaveLength(3);

    // 30 s before the first batch is a day old, the wait is those 30 s; once it is, its 10 items are free again.
    const [first] = await batches();
    await db.batch.update({ where: { id: first!.id }, data: { createdAt: new Date(Date.now() - DAY_MS + 30_000) } });
    const soon = await submit(m, panItems(10));
    expect(soon.status).toBe(429);
    expect(Number(soon.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(soon.headers["retry-after"])).toBeLessThanOrEqual(31);
    await db.batch.update({ where: { id: first!.id }, data: { createdAt: new Date(Date.now() - DAY_MS - 1000) } });
    expect((await submit(m, panItems(10))).status).toBe(202);
    const created = await dashboardOf(m)
      .batches.create({ mode: "sandbox", kind: "PAN", items: [{ pan: pan(1) }] })
      .catch((err: TRPCError) => err);
    expect(created).toBeInstanceOf(TRPCError); // 25 again within the day

    // A batch larger than the whole allowance can never fit.
    const huge = await submit(await createMerchantViaCli(env.server.env, "Huge Store"), panItems(ITEMS_PER_DAY + 1));
    expect(huge.status).toBe(400);
    expect(huge.json.error.code).toBe("BATCH_TOO_LARGE");
  });

  it("counts racing submissions one after the other", async () => {
    const m = await createMerchantViaCli(env.server.env, "Racing Store");
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => submit(m, panItems(10, i * 10))));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 429, 429, 429, 429]);
    const stored = await db.batch.aggregate({ where: { merchantId: m.merchantId, mode: "sandbox" }, _sum: { total: true } });
    expect(stored._sum.total).toBe(20);
  });

  it("leaves live batches out of the sandbox allowance", async () => {
    const m = await createMerchantViaCli(env.server.env, "Live Batch Store");
    expect((await cli(env.server.env, ["merchant", "go-live", "--merchant", m.merchantId])).code).toBe(0);
    const key = await cli(env.server.env, ["key", "create", "--merchant", m.merchantId, "--mode", "live", "--json"]);
    expect(key.code, key.stderr).toBe(0);
    expect((await submit(m, panItems(20))).status).toBe(202);
    expect((await submit(m, panItems(20), key.json.secretKey)).status).toBe(202);
    expect((await submit(m, panItems(20), key.json.secretKey)).status).toBe(202);
  });
});
