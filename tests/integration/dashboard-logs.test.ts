import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_TARGETS } from "../helpers/db-targets";
import { startPostgres, type PostgresCluster } from "../helpers/postgres";
import { ist, istDateOf, IST_OFFSET_MS } from "../helpers/ist";
import { dashboardContext } from "../helpers/dashboard";

// The dashboard's request log, verification history and overview, called through the real router
// (createCaller) on both database providers. Rows are inserted directly so every number is known.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-dash-logs-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";

const { migrateTestDatabase } = await import("../helpers/test-db");
const { createServices, getServices } = await import("@/server/services");
const { getConfig } = await import("@/server/config");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { overviewStats } = await import("@/server/services/audit/overview");
const { createMerchant, approveGoLive } = await import("@/server/services/merchants/merchants");

type Db = import("@/server/db/client").Db;
type Services = ReturnType<typeof getServices>;

const DAY = 24 * 3600 * 1000;

let seq = 0;
function auditRow(merchantId: string | null, mode: string | null, createdAt: Date, over: Record<string, unknown> = {}) {
  seq++;
  return {
    id: `aud_t${String(seq).padStart(7, "0")}`,
    requestId: `req_t${seq}`,
    merchantId,
    apiKeyId: null as string | null,
    mode,
    method: "POST",
    path: "/v1/identity/pan/verify",
    status: 200,
    latencyMs: 12.5,
    clientIp: "203.0.113.7",
    userAgent: "curl/8.5.0",
    requestBody: '{"pan":"ABCPK1234F","name":"Arjun Kapoor"}',
    responseBody: '{"status":"success","data":{"pan":"ABCPK1234F"}}',
    errorCode: null as string | null,
    createdAt,
    ...over,
  };
}

describe.each(DB_TARGETS)("dashboard logs, verifications and overview on %s", (target) => {
  let pg: PostgresCluster | undefined;
  let services: Services;
  let db: Db;
  const merchants: Record<string, string> = {};
  const caller = (merchantId: string) =>
    dashboardRouter.createCaller(dashboardContext(services, { id: merchantId, email: `${merchantId}@example.com`, role: "merchant" }));
  const newMerchant = async (name: string) => {
    const m = await createMerchant(db, { name, email: `${name.toLowerCase()}-${target}@example.com`, password: "a-long-password" });
    merchants[name] = m.merchantId;
    return m;
  };
  const ids = (items: { id: string }[]) => items.map((i) => i.id);

  beforeAll(async () => {
    if (target === "sqlite") {
      await migrateTestDatabase(process.env.DATABASE_URL!);
      services = getServices();
    } else {
      pg = await startPostgres({ migrated: true });
      await migrateTestDatabase(pg.url);
      services = createServices({ ...getConfig(), databaseUrl: pg.url });
    }
    db = services.db;
  });
  afterAll(async () => {
    if (pg) {
      await db.$disconnect();
      await pg.stop();
    }
  });

  describe("logs.list filters", () => {
    let m: string;
    const rows: Record<string, ReturnType<typeof auditRow>> = {};
    beforeAll(async () => {
      m = (await newMerchant("Filters")).merchantId;
      const other = (await newMerchant("FiltersOther")).merchantId;
      rows.r5 = auditRow(m, "sandbox", ist("2025-03-09T23:59:59.999"), { status: 400, errorCode: "INVALID_PAN" });
      rows.r1 = auditRow(m, "sandbox", ist("2025-03-10T10:00:00.000"), { method: "POST" });
      rows.r2 = auditRow(m, "sandbox", ist("2025-03-11T00:00:00.000"), { path: "/v1/employment/epfo/verify", status: 404, errorCode: "UAN_NOT_FOUND" });
      rows.r3 = auditRow(m, "sandbox", ist("2025-03-11T23:59:59.999"), { status: 503, errorCode: "SOURCE_UNAVAILABLE" });
      rows.r4 = auditRow(m, "sandbox", ist("2025-03-12T00:00:00.000"), { method: "GET", path: "/api/payments/status?orderId=ORDER_1", status: 200 });
      rows.live = auditRow(m, "live", ist("2025-03-11T12:00:00.000"));
      rows.foreign = auditRow(other, "sandbox", ist("2025-03-11T12:00:00.000"));
      rows.anonymous = auditRow(null, null, ist("2025-03-11T12:00:00.000"), { status: 401, errorCode: "UNAUTHORIZED" });
      await db.auditLog.createMany({ data: Object.values(rows) });
    });
    const list = (input: Record<string, unknown>) => caller(m).logs.list({ mode: "sandbox", ...input });
    const expectRows = async (input: Record<string, unknown>, names: string[]) => {
      const r = await list(input);
      expect(ids(r.items)).toEqual(names.map((n) => rows[n]!.id));
      expect(r.nextCursor).toBeNull();
    };

    it("lists only the merchant's own calls of the mode, newest first, without bodies", async () => {
      await expectRows({}, ["r4", "r3", "r2", "r1", "r5"]);
      const r = await list({});
      expect(Object.keys(r.items[0]!).sort()).toEqual(["clientIp", "createdAt", "errorCode", "id", "latencyMs", "method", "path", "requestId", "status"]);
      expect(r.items[0]).toMatchObject({ method: "GET", path: "/api/payments/status?orderId=ORDER_1", status: 200, clientIp: "203.0.113.7" });
    });
    it("filters by path text (prefix or anywhere, query string included)", async () => {
      await expectRows({ path: "/v1/identity" }, ["r3", "r1", "r5"]);
      await expectRows({ path: "epfo" }, ["r2"]);
      await expectRows({ path: "orderId=ORDER_1" }, ["r4"]);
      await expectRows({ path: "/v2" }, []);
    });
    it("matches the path text literally, whatever the case of its letters, on every database", async () => {
      await expectRows({ path: "%" }, []);
      await expectRows({ path: "pan_verify" }, []);
      await expectRows({ path: "ORDER_1" }, ["r4"]);
      await expectRows({ path: "ORDER%1" }, []);
      await expectRows({ path: "/V1/IDENTITY" }, ["r3", "r1", "r5"]);
      await expectRows({ path: "/v1/Identity/PAN" }, ["r3", "r1", "r5"]);
      await expectRows({ path: "orderid=order_1" }, ["r4"]);
      await expectRows({ path: "EPFO/VERIFY" }, ["r2"]);
      await expectRows({ path: "ORDER_1X" }, []);
    });
    it("filters by status class", async () => {
      await expectRows({ statusClass: "2xx" }, ["r4", "r1"]);
      await expectRows({ statusClass: "4xx" }, ["r2", "r5"]);
      await expectRows({ statusClass: "5xx" }, ["r3"]);
    });
    it("filters by IST dates, both ends inclusive", async () => {
      await expectRows({ from: "2025-03-11" }, ["r4", "r3", "r2"]);
      await expectRows({ to: "2025-03-10" }, ["r1", "r5"]);
      await expectRows({ from: "2025-03-11", to: "2025-03-11" }, ["r3", "r2"]);
      await expectRows({ from: "2025-03-10", to: "2025-03-10" }, ["r1"]);
    });
    it("filters by exact request id", async () => {
      await expectRows({ requestId: rows.r2!.requestId }, ["r2"]);
      await expectRows({ requestId: rows.r2!.requestId.slice(0, -1) }, []);
      await expectRows({ requestId: rows.foreign!.requestId }, []);
      await expectRows({ requestId: rows.live!.requestId }, []);
    });
    it("combines filters", async () => {
      await expectRows({ path: "/v1/", statusClass: "4xx", from: "2025-03-10" }, ["r2"]);
    });
    it("rejects bad filters and cursors with field errors", async () => {
      await expect(list({ from: "2025-03-12", to: "2025-03-11" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(list({ from: "2025-02-30" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(list({ statusClass: "3xx" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(list({ requestId: "req with spaces" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(list({ cursor: "not-a-cursor" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(list({ limit: 101 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });
    it("refuses live mode before go-live", async () => {
      await expect(caller(m).logs.list({ mode: "live" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await approveGoLive(db, m);
      const r = await caller(m).logs.list({ mode: "live" });
      expect(ids(r.items)).toEqual([rows.live!.id]);
    });
  });

  describe("logs.list pagination", () => {
    let m: string;
    let all: ReturnType<typeof auditRow>[];
    const t0 = ist("2025-04-01T09:00:00.000").getTime();
    beforeAll(async () => {
      m = (await newMerchant("Pages")).merchantId;
      // 125 rows on 25 timestamps: five-way ties everywhere, so a page boundary falls inside a tie.
      all = Array.from({ length: 125 }, (_, i) => auditRow(m, "sandbox", new Date(t0 + Math.floor(i / 5) * 1000)));
      await db.auditLog.createMany({ data: [...all].sort(() => Math.random() - 0.5) });
    });
    const expectedOrder = () =>
      [...all].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((r) => r.id);

    it("walks every row exactly once in (time, id) order, 50 per page by default", async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      const sizes: number[] = [];
      do {
        const page = await caller(m).logs.list({ mode: "sandbox", cursor });
        sizes.push(page.items.length);
        seen.push(...ids(page.items));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(sizes).toEqual([50, 50, 25]);
      expect(seen).toEqual(expectedOrder());
    });
    it("is not disturbed by rows inserted between pages", async () => {
      const first = await caller(m).logs.list({ mode: "sandbox", limit: 50 });
      const newer = Array.from({ length: 10 }, (_, i) => auditRow(m, "sandbox", new Date(t0 + 3600_000 + i)));
      await db.auditLog.createMany({ data: newer });
      const rest: string[] = [];
      let cursor = first.nextCursor ?? undefined;
      while (cursor) {
        const page = await caller(m).logs.list({ mode: "sandbox", cursor, limit: 50 });
        rest.push(...ids(page.items));
        cursor = page.nextCursor ?? undefined;
      }
      expect([...ids(first.items), ...rest]).toEqual(expectedOrder());
      const top = await caller(m).logs.list({ mode: "sandbox", limit: 10 });
      expect(ids(top.items).sort()).toEqual(newer.map((r) => r.id).sort());
      all.push(...newer);
    });
    it("hands back a short page and a cursor when a path search scans many non-matching rows", async () => {
      const m2 = (await newMerchant("PathScan")).merchantId;
      const base = ist("2025-04-02T09:00:00.000").getTime();
      const literal = auditRow(m2, "sandbox", new Date(base), { path: "/v1/identity/pan_verify" });
      const near = Array.from({ length: 5100 }, (_, i) => auditRow(m2, "sandbox", new Date(base + 1 + i)));
      // Sequential chunks: one huge createMany makes Prisma send its chunks concurrently on one pg client.
      const rows = [literal, ...near];
      for (let i = 0; i < rows.length; i += 1000) await db.auditLog.createMany({ data: rows.slice(i, i + 1000) });
      const first = await caller(m2).logs.list({ mode: "sandbox", path: "pan_verify" });
      expect(first.items).toEqual([]);
      expect(first.nextCursor).not.toBeNull();
      const second = await caller(m2).logs.list({ mode: "sandbox", path: "pan_verify", cursor: first.nextCursor! });
      expect(ids(second.items)).toEqual([literal.id]);
      expect(second.nextCursor).toBeNull();
    });
    it("pages filtered results too", async () => {
      const p1 = await caller(m).logs.list({ mode: "sandbox", path: "/v1/identity", limit: 7 });
      const p2 = await caller(m).logs.list({ mode: "sandbox", path: "/v1/identity", limit: 7, cursor: p1.nextCursor! });
      expect([...ids(p1.items), ...ids(p2.items)]).toEqual(expectedOrder().slice(0, 14));
    });
    it("pages a path search typed in capitals the same way, every row once", async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await caller(m).logs.list({ mode: "sandbox", path: "/V1/IDENTITY/PAN", limit: 40, cursor });
        seen.push(...ids(page.items));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(expectedOrder());
    });
  });

  describe("logs.get", () => {
    let a: Awaited<ReturnType<typeof newMerchant>>;
    let b: Awaited<ReturnType<typeof newMerchant>>;
    let own: ReturnType<typeof auditRow>;
    beforeAll(async () => {
      a = await newMerchant("DetailA");
      b = await newMerchant("DetailB");
      own = auditRow(a.merchantId, "sandbox", ist("2025-05-01T10:00:00.000"), {
        apiKeyId: a.sandbox.key.id,
        status: 400,
        errorCode: "INVALID_PAN",
        requestBody: '{"pan":"ABC","secret_key":"[REDACTED]"}',
        responseBody: "not json",
      });
      await db.auditLog.createMany({
        data: [
          own,
          // A's record claiming B's key: the key must not be shown to A.
          auditRow(a.merchantId, "sandbox", ist("2025-05-01T10:00:01.000"), { requestId: "req_borrowed_key", apiKeyId: b.sandbox.key.id }),
          auditRow(a.merchantId, "live", ist("2025-05-01T10:00:02.000"), { requestId: "req_live_only" }),
          auditRow(b.merchantId, "sandbox", ist("2025-05-01T10:00:03.000"), { requestId: "req_b_only" }),
          // A client reused its own X-Request-Id for two calls.
          auditRow(a.merchantId, "sandbox", ist("2025-05-01T11:00:00.000"), { id: "aud_dup_old", requestId: "client-id-1", status: 200 }),
          auditRow(a.merchantId, "sandbox", ist("2025-05-01T12:00:00.000"), { id: "aud_dup_new", requestId: "client-id-1", status: 500 }),
          auditRow(b.merchantId, "sandbox", ist("2025-05-01T13:00:00.000"), { id: "aud_dup_b", requestId: "client-id-1", status: 201 }),
        ],
      });
      await approveGoLive(db, a.merchantId);
    });

    it("returns the record with the key used and the stored bodies, pretty-printed", async () => {
      const r = await caller(a.merchantId).logs.get({ mode: "sandbox", requestId: own.requestId });
      expect(r).toMatchObject({
        id: own.id,
        requestId: own.requestId,
        method: "POST",
        path: "/v1/identity/pan/verify",
        status: 400,
        errorCode: "INVALID_PAN",
        latencyMs: 12.5,
        clientIp: "203.0.113.7",
        userAgent: "curl/8.5.0",
        apiKey: { label: "Default", publicKeyPrefix: `${a.sandbox.key.publicKey.slice(0, 16)}…`, revoked: false },
        requestBody: '{\n  "pan": "ABC",\n  "secret_key": "[REDACTED]"\n}',
        responseBody: "not json",
        sameRequestId: [],
      });
      expect(r.createdAt.toISOString()).toBe(own.createdAt.toISOString());
    });
    it("does not reveal another merchant's key", async () => {
      const r = await caller(a.merchantId).logs.get({ mode: "sandbox", requestId: "req_borrowed_key" });
      expect(r.apiKey).toBeNull();
    });
    it("is NOT_FOUND for another merchant's record, another mode's record, or an unknown id", async () => {
      await expect(caller(b.merchantId).logs.get({ mode: "sandbox", requestId: own.requestId })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(caller(a.merchantId).logs.get({ mode: "sandbox", requestId: "req_b_only" })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(caller(a.merchantId).logs.get({ mode: "sandbox", requestId: "req_live_only" })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(caller(a.merchantId).logs.get({ mode: "live", requestId: own.requestId })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(caller(a.merchantId).logs.get({ mode: "sandbox", requestId: "req_nope" })).rejects.toMatchObject({ code: "NOT_FOUND" });
      const live = await caller(a.merchantId).logs.get({ mode: "live", requestId: "req_live_only" });
      expect(live.requestId).toBe("req_live_only");
    });
    it("shows the newest of several records sharing a request id, lists the others, and picks one by id", async () => {
      const r = await caller(a.merchantId).logs.get({ mode: "sandbox", requestId: "client-id-1" });
      expect(r.id).toBe("aud_dup_new");
      expect(r.sameRequestId.map((x) => x.id)).toEqual(["aud_dup_old"]);
      const old = await caller(a.merchantId).logs.get({ mode: "sandbox", requestId: "client-id-1", id: "aud_dup_old" });
      expect(old.status).toBe(200);
      // B's record with the same request id stays invisible, even when named.
      const named = await caller(a.merchantId).logs.get({ mode: "sandbox", requestId: "client-id-1", id: "aud_dup_b" });
      expect(named.id).toBe("aud_dup_new");
      const bView = await caller(b.merchantId).logs.get({ mode: "sandbox", requestId: "client-id-1" });
      expect(bView.id).toBe("aud_dup_b");
      expect(bView.sameRequestId).toEqual([]);
    });
  });

  describe("verifications.list", () => {
    let a: string;
    let b: string;
    const at = (s: number) => new Date(ist("2025-06-01T10:00:00.000").getTime() + s * 1000);
    const ver = (merchantId: string, mode: string, s: number, over: Record<string, unknown>) => ({
      id: `ver_t${merchantId.slice(-6)}${String(s).padStart(4, "0")}`,
      merchantId,
      mode,
      kind: "PAN",
      requestId: `req_v${s}`,
      subject: "ABCPK1234F",
      nameQueried: null as string | null,
      outcome: "VALID",
      nameMatch: null as number | null,
      errorCode: null as string | null,
      createdAt: at(s),
      ...over,
    });
    beforeAll(async () => {
      a = (await newMerchant("VerA")).merchantId;
      b = (await newMerchant("VerB")).merchantId;
      await db.verification.createMany({
        data: [
          ver(a, "sandbox", 1, { nameQueried: "Arjun Kapoor", nameMatch: 95.5 }),
          ver(a, "sandbox", 2, { subject: "ABCPK9991F", outcome: "INVALID", nameQueried: "Someone", nameMatch: 89.99 }),
          ver(a, "sandbox", 3, { subject: "ABCPK1234F", nameQueried: "A Kapoor", nameMatch: 69.99 }),
          ver(a, "sandbox", 4, { kind: "EPFO", subject: "100200300400", outcome: "ACTIVE" }),
          ver(a, "sandbox", 5, { kind: "EPFO", subject: "MH/BAN/0000064/000/0000123", outcome: "NOT_FOUND", errorCode: "PF_NUMBER_NOT_FOUND" }),
          ver(a, "sandbox", 6, { subject: "ABCPK9998F", outcome: "ERROR", errorCode: "SOURCE_UNAVAILABLE" }),
          ver(a, "live", 7, {}),
          ver(b, "sandbox", 8, {}),
        ],
      });
    });
    const list = (who: string, input: Record<string, unknown> = {}) => caller(who).verifications.list({ mode: "sandbox", ...input });

    it("lists the mode's checks newest first with the name-match band", async () => {
      const r = await list(a);
      expect(r.items.map((v) => v.requestId)).toEqual(["req_v6", "req_v5", "req_v4", "req_v3", "req_v2", "req_v1"]);
      expect(r.nextCursor).toBeNull();
      const byReq = Object.fromEntries(r.items.map((v) => [v.requestId, v]));
      expect(byReq.req_v1).toMatchObject({
        kind: "PAN",
        subject: "ABCPK1234F",
        nameQueried: "Arjun Kapoor",
        outcome: "VALID",
        nameMatch: 95.5,
        nameMatchResult: "MATCH",
      });
      expect(byReq.req_v2).toMatchObject({ nameMatch: 89.99, nameMatchResult: "PARTIAL" });
      expect(byReq.req_v3).toMatchObject({ nameMatch: 69.99, nameMatchResult: "NO_MATCH" });
      expect(byReq.req_v5).toMatchObject({ kind: "EPFO", outcome: "NOT_FOUND", errorCode: "PF_NUMBER_NOT_FOUND", nameMatchResult: null });
    });
    it("searches by exact subject, upper-cased, PF numbers with or without slashes", async () => {
      expect((await list(a, { subject: " abcpk1234f " })).items.map((v) => v.requestId)).toEqual(["req_v3", "req_v1"]);
      expect((await list(a, { subject: "ABCPK1234" })).items).toEqual([]);
      expect((await list(a, { subject: "mhban00000640000000123" })).items.map((v) => v.requestId)).toEqual(["req_v5"]);
      expect((await list(a, { subject: "MH/BAN/0000064/000/0000123" })).items.map((v) => v.requestId)).toEqual(["req_v5"]);
      expect((await list(a, { subject: "100200300400" })).items.map((v) => v.requestId)).toEqual(["req_v4"]);
    });
    it("filters by kind and pages", async () => {
      expect((await list(a, { kind: "EPFO" })).items.map((v) => v.requestId)).toEqual(["req_v5", "req_v4"]);
      const p1 = await list(a, { kind: "PAN", limit: 2 });
      const p2 = await list(a, { kind: "PAN", limit: 2, cursor: p1.nextCursor! });
      expect([...p1.items, ...p2.items].map((v) => v.requestId)).toEqual(["req_v6", "req_v3", "req_v2", "req_v1"]);
      expect(p2.nextCursor).toBeNull();
      await expect(list(a, { kind: "AADHAAR" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });
    it("keeps merchants and modes apart", async () => {
      expect((await list(b)).items.map((v) => v.requestId)).toEqual(["req_v8"]);
      expect((await list(b, { subject: "ABCPK9991F" })).items).toEqual([]);
      await approveGoLive(db, a);
      expect((await caller(a).verifications.list({ mode: "live" })).items.map((v) => v.requestId)).toEqual(["req_v7"]);
    });
  });

  describe("overview.stats", () => {
    // Known latencies per IST day; the expected percentiles are nearest-rank (value at rank ceil(p·n)).
    async function seed(merchantId: string, now: Date) {
      const todayStart = ist(`${istDateOf(now)}T00:00:00.000`).getTime();
      const rows = [
        // Today: 10 calls, 1×404 and 1×503; p50 = 50, p95 = 100.
        ...[10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((latencyMs, i) =>
          auditRow(merchantId, "sandbox", new Date(todayStart + i), { latencyMs, status: i === 3 ? 404 : i === 7 ? 503 : 200 }),
        ),
        // Yesterday's last millisecond: 4 calls, 2×500; p50 = 7, p95 = 11.
        ...[5, 7, 9, 11].map((latencyMs, i) => auditRow(merchantId, "sandbox", new Date(todayStart - 1), { latencyMs, status: i >= 2 ? 500 : 200 })),
        // First millisecond of the 7-day window.
        auditRow(merchantId, "sandbox", new Date(todayStart - 6 * DAY), { latencyMs: 1000 }),
        // Just outside the window, another mode, anonymous: none of these count.
        auditRow(merchantId, "sandbox", new Date(todayStart - 6 * DAY - 1), { latencyMs: 99999, status: 500 }),
        auditRow(merchantId, "live", new Date(todayStart + 5), { latencyMs: 99999, status: 500 }),
        auditRow(null, null, new Date(todayStart + 5), { latencyMs: 99999, status: 401 }),
      ];
      await db.auditLog.createMany({ data: rows });
    }
    const expectSeeded = (s: Awaited<ReturnType<typeof overviewStats>>, now: Date) => {
      const todayStart = ist(`${istDateOf(now)}T00:00:00.000`).getTime();
      expect(s.timeZone).toBe("Asia/Kolkata");
      expect(s.days.map((d) => d.date)).toEqual(Array.from({ length: 7 }, (_, i) => istDateOf(new Date(todayStart - (6 - i) * DAY))));
      expect(s.days.map((d) => d.calls)).toEqual([1, 0, 0, 0, 0, 4, 10]);
      expect(s.days[6]).toMatchObject({ calls: 10, errors: 2, serverErrors: 1, p50: 50, p95: 100 });
      expect(s.days[5]).toMatchObject({ calls: 4, errors: 2, serverErrors: 2, p50: 7, p95: 11 });
      expect(s.days[0]).toMatchObject({ calls: 1, errors: 0, p50: 1000, p95: 1000 });
      expect(s.days[1]).toMatchObject({ calls: 0, errors: 0, p50: null, p95: null });
      expect(s.today).toBe(10);
      expect(s.calls).toBe(15);
      expect(s.errors).toBe(4);
      expect(s.serverErrors).toBe(3);
      expect(s.errorRate).toBeCloseTo(4 / 15, 10);
      expect(s.serverErrorRate).toBeCloseTo(3 / 15, 10);
      // All 15: 5 7 9 10 11 20 30 40 50 60 70 80 90 100 1000 → rank 8 = 40, rank 15 = 1000.
      expect(s.p50).toBe(40);
      expect(s.p95).toBe(1000);
      expect(s.hasCalls).toBe(true);
      expect(s.exactLatency).toBe(true);
    };

    it("counts per IST day with error rates and percentiles (fixed clock)", async () => {
      const m = await newMerchant("OverviewFixed");
      // 00:10 IST is still the previous day in UTC: the buckets must follow IST.
      const now = ist("2025-03-12T00:10:00.000");
      await seed(m.merchantId, now);
      const s = await overviewStats(db, m.merchantId, "sandbox", now);
      expectSeeded(s, now);
      expect(s.days.at(-1)!.date).toBe("2025-03-12");
      expect(s.wallet).toEqual({ balancePaise: 1_000_000 });
    });

    it("estimates percentiles from each day's most recent calls beyond the sample cap", async () => {
      const m = await newMerchant("OverviewSampled");
      const now = ist("2025-03-12T18:00:00.000");
      await seed(m.merchantId, now);
      const s = await overviewStats(db, m.merchantId, "sandbox", now, 2);
      // Counts stay exact; today's percentiles come from its newest two calls (90, 100), each
      // standing for 5 calls; yesterday's from 9 and 11 (2 each); the window's first day from 1000.
      expect(s).toMatchObject({ today: 10, calls: 15, errors: 4, serverErrors: 3, exactLatency: false });
      expect(s.days[6]).toMatchObject({ p50: 90, p95: 100, exactLatency: false });
      expect(s.days[5]).toMatchObject({ p50: 9, p95: 11 });
      expect(s.days[0]).toMatchObject({ p50: 1000, exactLatency: true });
      expect(s.p50).toBe(90);
      expect(s.p95).toBe(1000);
    });

    it("answers the same through the router for today", async () => {
      const m = await newMerchant("OverviewNow");
      // Avoid seeding across IST midnight.
      const untilMidnight = DAY - ((Date.now() + IST_OFFSET_MS) % DAY);
      if (untilMidnight < 5000) await new Promise((r) => setTimeout(r, untilMidnight + 50));
      await seed(m.merchantId, new Date());
      const s = await caller(m.merchantId).overview.stats({ mode: "sandbox" });
      expectSeeded(s, new Date());
      expect(s.wallet).toEqual({ balancePaise: 1_000_000 });
    });

    it("is empty for a fresh merchant and says whether the mode was ever used", async () => {
      const m = await newMerchant("OverviewFresh");
      const s = await caller(m.merchantId).overview.stats({ mode: "sandbox" });
      expect(s).toMatchObject({ today: 0, calls: 0, errors: 0, errorRate: null, serverErrorRate: null, p50: null, p95: null, hasCalls: false });
      expect(s.days).toHaveLength(7);
      expect(s.days.every((d) => d.calls === 0 && d.p50 === null)).toBe(true);
      await db.auditLog.create({ data: auditRow(m.merchantId, "sandbox", new Date(Date.now() - 30 * DAY)) });
      const later = await caller(m.merchantId).overview.stats({ mode: "sandbox" });
      expect(later).toMatchObject({ calls: 0, hasCalls: true });
      await expect(caller(m.merchantId).overview.stats({ mode: "live" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await approveGoLive(db, m.merchantId);
      const live = await caller(m.merchantId).overview.stats({ mode: "live" });
      expect(live).toMatchObject({ calls: 0, hasCalls: false, wallet: { balancePaise: 0 } });
    });
  });

  describe("isolation", () => {
    it("merchant B sees none of A's logs, verifications or stats", async () => {
      const a = await newMerchant("IsoA");
      const b = await newMerchant("IsoB");
      const now = new Date();
      await db.auditLog.createMany({
        data: [auditRow(a.merchantId, "sandbox", now, { requestId: "req_iso_a" }), auditRow(a.merchantId, "sandbox", now, { status: 500 })],
      });
      await db.verification.create({
        data: {
          id: "ver_iso_a",
          merchantId: a.merchantId,
          mode: "sandbox",
          kind: "PAN",
          requestId: "req_iso_a",
          subject: "ZZZPZ1234Z",
          outcome: "VALID",
          createdAt: now,
        },
      });
      const asA = caller(a.merchantId);
      const asB = caller(b.merchantId);
      expect((await asA.logs.list({ mode: "sandbox" })).items).toHaveLength(2);
      expect((await asB.logs.list({ mode: "sandbox" })).items).toEqual([]);
      expect((await asB.logs.list({ mode: "sandbox", requestId: "req_iso_a" })).items).toEqual([]);
      await expect(asB.logs.get({ mode: "sandbox", requestId: "req_iso_a" })).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect((await asA.verifications.list({ mode: "sandbox", subject: "ZZZPZ1234Z" })).items).toHaveLength(1);
      expect((await asB.verifications.list({ mode: "sandbox", subject: "ZZZPZ1234Z" })).items).toEqual([]);
      expect((await asB.verifications.list({ mode: "sandbox" })).items).toEqual([]);
      expect((await asA.overview.stats({ mode: "sandbox" })).today).toBe(2);
      expect(await asB.overview.stats({ mode: "sandbox" })).toMatchObject({ today: 0, calls: 0, hasCalls: false });
    });
    it("refuses callers without a merchant session", async () => {
      const anon = dashboardRouter.createCaller(dashboardContext(services, null));
      await expect(anon.logs.list({ mode: "sandbox" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
      await expect(anon.verifications.list({ mode: "sandbox" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
      await expect(anon.overview.stats({ mode: "sandbox" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    });
  });
});
