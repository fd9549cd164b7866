import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_TARGETS } from "../helpers/db-targets";
import { startPostgres, type PostgresCluster } from "../helpers/postgres";
import { request } from "../helpers/http";
import { startServer, type TestServer } from "../helpers/server";
import { waitFor } from "../helpers/wait";
import { csvRows } from "../helpers/csv";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { dashboardContext, failure, merchantSession } from "../helpers/dashboard";

// The dashboard's Batches page through the real router (createCaller) on both databases. Batches
// created here are run by a real server on the same database (its job runner), and compared with
// what the REST API answers for the same merchant.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-dash-batches-"));
process.env.DATA_DIR = dataDir;
process.env.DATABASE_URL = `file:${path.join(dataDir, "parakh.db")}`;
process.env.LOG_LEVEL = "silent";
// The server child inherits these, so both processes sign and hash alike.
process.env.ENCRYPTION_KEY = crypto.randomBytes(32).toString("base64");
process.env.HASH_KEY = crypto.randomBytes(32).toString("base64");
process.env.NEXTAUTH_SECRET = crypto.randomBytes(32).toString("base64url");
delete process.env.NEXTAUTH_URL;

const { migrateTestDatabase } = await import("../helpers/test-db");
const { createServices, getServices } = await import("@/server/services");
const { getConfig } = await import("@/server/config");
const { dashboardRouter } = await import("@/server/api/dashboard/router");
const { PREVIEW_MAX_REJECTIONS } = await import("@/server/api/dashboard/batches");
const { createMerchant, approveGoLive } = await import("@/server/services/merchants/merchants");
const { BATCH_RESULTS_CSV_COLUMNS } = await import("@/server/services/batches/dashboard");
const { BATCH_MAX_ITEMS } = await import("@/lib/schemas/batches");
const { GET: exportCsv } = await import("@/app/api/dashboard/batches/[batchId]/export/route");
const { encode } = await import("next-auth/jwt");
const { NextRequest } = await import("next/server");

type Db = import("@/server/db/client").Db;
type Services = ReturnType<typeof getServices>;
type Merchant = Awaited<ReturnType<typeof createMerchant>>;

const PAN_ROWS = [
  { pan: "ABCPK1234F", name: "Arjun Kapoor", reference_id: "emp-1" },
  { pan: "NOTAPAN", reference_id: "emp-2" },
  { pan: "abcpk9991f" },
  { pan: "ABCPK9992F", name: "Someone Else", reference_id: "emp-4" },
];

describe.each(DB_TARGETS)("dashboard batches on %s", (target) => {
  let pg: PostgresCluster | undefined;
  let server: TestServer;
  let services: Services;
  let db: Db;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let seq = 0;

  const dash = (m: Merchant, sameOrigin = true) => dashboardRouter.createCaller(dashboardContext(services, merchantSession(m), { sameOrigin }));
  const newMerchant = async (name: string) =>
    createMerchant(db, { name, email: `${name.toLowerCase().replace(/\W+/g, "-")}-${target}-${++seq}@example.com`, password: "a-long-password" });

  const rest = (m: Merchant, pathName: string, body?: unknown) =>
    request(server.url, pathName, { method: body === undefined ? "GET" : "POST", body, headers: { Authorization: `Bearer ${m.sandbox.key.secretKey}` } });

  const completed = (m: Merchant, batchId: string) =>
    waitFor(
      `batch ${batchId} to complete`,
      async () => {
        const d = await dash(m).batches.detail({ mode: "sandbox", batchId });
        return d.batch.status === "COMPLETED" ? d : null;
      },
      30_000,
      100,
    );

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    const env = { WEBHOOK_SANDBOX_ALLOW_LOOPBACK: "true" };
    if (target === "sqlite") {
      await migrateTestDatabase(process.env.DATABASE_URL!);
      services = getServices();
      server = await startServer({ databaseUrl: process.env.DATABASE_URL!, env });
    } else {
      pg = await startPostgres({ migrated: true });
      await migrateTestDatabase(pg.url);
      services = createServices({ ...getConfig(), databaseUrl: pg.url });
      server = await startServer({ databaseUrl: pg.url, env });
    }
    db = services.db;
  });
  afterAll(async () => {
    receiver?.close();
    await server?.stop();
    if (pg) {
      await db.$disconnect();
      await pg.stop();
    }
  });

  it("previews rows with the single call's codes and stores nothing", async () => {
    const m = await newMerchant("Preview");
    const pan = await dash(m).batches.preview({
      mode: "sandbox",
      kind: "PAN",
      items: [...PAN_ROWS, { name: "no pan" }, { pan: "ABCPK1234F", reference_id: "x".repeat(101) }],
    });
    expect(pan).toEqual({
      total: 6,
      accepted: 3,
      rejected: 3,
      rejections: [
        { index: 1, reference_id: "emp-2", code: "INVALID_PAN", message: expect.stringMatching(/pan/i) },
        { index: 4, reference_id: null, code: "VALIDATION_ERROR", message: expect.stringMatching(/pan/i) },
        { index: 5, reference_id: null, code: "VALIDATION_ERROR", message: expect.stringMatching(/reference_id/) },
      ],
    });

    const epfo = await dash(m).batches.preview({
      mode: "sandbox",
      kind: "EPFO",
      items: [
        { uan: "100200300400" },
        { pf_number: "MHBAN00000640000000123" },
        { uan: "12345" },
        { uan: "100200300400", pf_number: "MH/BAN/0000064/000/0000123" },
        {},
      ],
    });
    expect(epfo).toMatchObject({ total: 5, accepted: 2, rejected: 3 });
    expect(epfo.rejections.map((r) => [r.index, r.code])).toEqual([
      [2, "INVALID_UAN"],
      [3, "VALIDATION_ERROR"],
      [4, "VALIDATION_ERROR"],
    ]);

    // Many rejected rows: all counted, the first PREVIEW_MAX_REJECTIONS listed.
    const many = await dash(m).batches.preview({
      mode: "sandbox",
      kind: "PAN",
      items: Array.from({ length: PREVIEW_MAX_REJECTIONS + 5 }, () => ({ pan: "bad" })),
    });
    expect(many).toMatchObject({ total: PREVIEW_MAX_REJECTIONS + 5, accepted: 0, rejected: PREVIEW_MAX_REJECTIONS + 5 });
    expect(many.rejections).toHaveLength(PREVIEW_MAX_REJECTIONS);

    expect(await failure(dash(m).batches.preview({ mode: "sandbox", kind: "PAN", items: [] }))).toMatchObject({ code: "BAD_REQUEST" });
    const tooMany = Array.from({ length: BATCH_MAX_ITEMS + 1 }, () => ({ pan: "ABCPK1234F" }));
    expect(await failure(dash(m).batches.preview({ mode: "sandbox", kind: "PAN", items: tooMany }))).toMatchObject({ code: "BAD_REQUEST" });
    expect(await failure(dash(m).batches.create({ mode: "sandbox", kind: "PAN", items: tooMany }))).toMatchObject({ code: "BAD_REQUEST" });
    expect(await failure(dash(m).batches.preview({ mode: "sandbox", kind: "AADHAAR" as "PAN", items: [{}] }))).toMatchObject({ code: "BAD_REQUEST" });
    expect(await db.batch.count({ where: { merchantId: m.merchantId } })).toBe(0);
  });

  it("creates a batch that runs to completion: list, detail with its webhook delivery, and paged results equal to single calls", async () => {
    const m = await newMerchant("Runner");
    const created = await dash(m).batches.create({ mode: "sandbox", kind: "PAN", items: PAN_ROWS, clientBatchId: " payroll-nov ", webhookUrl: receiver.url });
    expect(created).toMatchObject({ status: "QUEUED", total: 4, accepted: 3, rejected: 1, processed: 1, failed: 1, client_batch_id: "payroll-nov" });
    const id = created.batch_id;
    expect(id).toMatch(/^batch_/);

    const listed = await dash(m).batches.list({ mode: "sandbox" });
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).toMatchObject({ batch_id: id, kind: "PAN", total: 4, webhook_url: receiver.url });
    expect(listed.nextCursor).toBeNull();

    const d = await completed(m, id);
    expect(d.batch).toMatchObject({ batch_id: id, kind: "PAN", status: "COMPLETED", total: 4, processed: 4, succeeded: 3, failed: 1, rejected: 1 });
    expect(d.batch.started_at).toBeTruthy();
    expect(d.batch.completed_at).toBeTruthy();
    expect(d.source).toEqual({ via: "DASHBOARD", requestId: null, apiKey: null });
    // The same batch through the REST API with the merchant's key.
    const viaApi = await rest(m, `/v1/identity/pan/batch/${id}`);
    expect(viaApi.status).toBe(200);
    expect(viaApi.json.data).toEqual(Object.fromEntries(Object.entries(d.batch).filter(([k]) => !["kind", "webhook_url"].includes(k))));

    // One completion event, delivered to the batch's webhook URL.
    expect(d.webhooks).toHaveLength(1);
    expect(d.webhooks[0]).toMatchObject({ type: "pan.batch.completed" });
    const delivered = await waitFor(
      "the completion webhook to be delivered",
      async () => {
        const w = (await dash(m).batches.detail({ mode: "sandbox", batchId: id })).webhooks[0]!;
        return w.deliveries.some((x) => x.status === "DELIVERED") ? w : null;
      },
      20_000,
    );
    expect(delivered.deliveries[0]).toMatchObject({ url: receiver.url, subjectId: id, eventType: "pan.batch.completed" });
    const body = JSON.parse(receiver.received.find((r) => r.body.includes(id))!.body);
    expect(body.data).toMatchObject({ batch_id: id, status: "COMPLETED", total: 4, succeeded: 3, failed: 1 });

    const first = await dash(m).batches.results({ mode: "sandbox", batchId: id, from: 0, limit: 2 });
    expect(first).toMatchObject({ kind: "PAN", total: 4, status: "COMPLETED", next: 2 });
    expect(first.items.map((i) => [i.index, i.reference_id, i.status])).toEqual([
      [0, "emp-1", "SUCCEEDED"],
      [1, "emp-2", "FAILED"],
    ]);
    expect(first.items[1]).toMatchObject({ result: null, error: { code: "INVALID_PAN" }, input: { pan: "NOTAPAN" } });
    const single = await rest(m, "/v1/identity/pan/verify", { pan: "ABCPK1234F", name: "Arjun Kapoor" });
    expect(first.items[0]!.result).toEqual(single.json.data);
    const second = await dash(m).batches.results({ mode: "sandbox", batchId: id, from: 2, limit: 2 });
    expect(second.next).toBeNull();
    expect(second.items.map((i) => [i.index, (i.result as { status: string }).status])).toEqual([
      [2, "INVALID"],
      [3, "DEACTIVATED"],
    ]);
    expect((await dash(m).batches.results({ mode: "sandbox", batchId: id, from: 4 })).items).toEqual([]);

    // The "Failed only" view: the rejected row alone; and the answered rows, two to a page.
    const failedOnly = await dash(m).batches.results({ mode: "sandbox", batchId: id, status: "FAILED" });
    expect(failedOnly.items.map((i) => [i.index, i.error?.code])).toEqual([[1, "INVALID_PAN"]]);
    expect(failedOnly.next).toBeNull();
    const answered = await dash(m).batches.results({ mode: "sandbox", batchId: id, status: "SUCCEEDED", limit: 2 });
    expect([answered.items.map((i) => i.index), answered.next]).toEqual([[0, 2], 3]);
    const rest2 = await dash(m).batches.results({ mode: "sandbox", batchId: id, status: "SUCCEEDED", from: 3, limit: 2 });
    expect([rest2.items.map((i) => i.index), rest2.next]).toEqual([[3], null]);
    expect(d.waitingForSource).toBeNull();
  });

  it("searches a batch's results by reference id, PAN, UAN or PF number, with a status filter, a page at a time", async () => {
    const m = await newMerchant("Searcher");
    // 1,200 rows over two chunks; every hundredth row is rejected.
    const rows = Array.from({ length: 1200 }, (_, i) => ({ pan: i % 100 === 99 ? "NOTAPAN" : `ABCPK${1000 + i}F`, reference_id: `emp-${i}` }));
    const pan = await dash(m).batches.create({ mode: "sandbox", kind: "PAN", items: rows });
    await completed(m, pan.batch_id);
    const search = async (text: string, status?: "SUCCEEDED" | "FAILED" | "PENDING") => {
      const found: number[] = [];
      let pages = 0;
      for (let from: number | null = 0; from !== null; pages++) {
        const page = await dash(m).batches.results({ mode: "sandbox", batchId: pan.batch_id, from, limit: 50, search: text, status });
        expect(page.items.length, `page ${pages} of ${text}`).toBeLessThanOrEqual(50);
        found.push(...page.items.map((i) => i.index));
        from = page.next;
      }
      return { found, pages };
    };
    // emp-11, emp-110…119 and emp-1100…1199: 111 rows, in three pages.
    const byRef = await search("EMP-11");
    expect(byRef.found).toEqual([11, ...Array.from({ length: 10 }, (_, k) => 110 + k), ...Array.from({ length: 100 }, (_, k) => 1100 + k)]);
    expect(byRef.pages).toBe(3);
    expect((await search("emp-11", "FAILED")).found).toEqual([1199]);
    expect((await search("abcpk1005f")).found).toEqual([5]);
    // Part of a PAN: ABCPK11xxF are rows 100…198 (199 was rejected).
    expect((await search("K11")).found).toEqual(Array.from({ length: 99 }, (_, k) => 100 + k));
    // A PAN as the dashboard shows it finds every PAN it could be.
    expect((await search("ABCPKXXXXF")).found).toHaveLength(1188);
    expect((await search("no-such-row")).found).toEqual([]);
    expect((await search("emp-5", "PENDING")).found).toEqual([]);
    expect(await failure(dash(m).batches.results({ mode: "sandbox", batchId: pan.batch_id, search: "   " }))).toMatchObject({ code: "BAD_REQUEST" });
    expect(await failure(dash(m).batches.results({ mode: "sandbox", batchId: pan.batch_id, search: "x".repeat(101) }))).toMatchObject({ code: "BAD_REQUEST" });

    const epfo = await dash(m).batches.create({
      mode: "sandbox",
      kind: "EPFO",
      items: [{ uan: "100200300400" }, { pf_number: "MH/BAN/0000064/000/0000123" }, { pf_number: "MHBAN00000640000000124", reference_id: "staff-9" }],
    });
    await completed(m, epfo.batch_id);
    const inEpfo = async (text: string) => (await dash(m).batches.results({ mode: "sandbox", batchId: epfo.batch_id, search: text })).items.map((i) => i.index);
    expect(await inEpfo("300400")).toEqual([0]);
    expect(await inEpfo("MHBAN0000064000")).toEqual([1, 2]);
    expect(await inEpfo("mh/ban/0000064/000/0000124")).toEqual([2]);
    expect(await inEpfo("STAFF")).toEqual([2]);
  });

  it("lists newest first, by kind, in cursor pages; batches sent through the API show their key and request", async () => {
    const m = await newMerchant("Lister");
    const epfo = await dash(m).batches.create({ mode: "sandbox", kind: "EPFO", items: [{ uan: "100200300400" }, { pf_number: "MH/BAN/0000064/000/0000123" }] });
    const viaApi = await rest(m, "/v1/identity/pan/batch", { items: [{ pan: "ABCPK1234F" }], client_batch_id: "from-api" });
    expect(viaApi.status).toBe(202);
    const third = await dash(m).batches.create({ mode: "sandbox", kind: "PAN", items: [{ pan: "ABCPK1235F" }] });

    const all = await dash(m).batches.list({ mode: "sandbox" });
    expect(all.items.map((b) => b.batch_id)).toEqual([third.batch_id, viaApi.json.data.batch_id, epfo.batch_id]);
    expect((await dash(m).batches.list({ mode: "sandbox", kind: "EPFO" })).items.map((b) => b.batch_id)).toEqual([epfo.batch_id]);
    expect((await dash(m).batches.list({ mode: "sandbox", kind: "PAN" })).items.map((b) => b.kind)).toEqual(["PAN", "PAN"]);

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await dash(m).batches.list({ mode: "sandbox", limit: 1, cursor });
      seen.push(...page.items.map((b) => b.batch_id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(all.items.map((b) => b.batch_id));
    expect(await failure(dash(m).batches.list({ mode: "sandbox", cursor: "not-a-cursor" }))).toMatchObject({ code: "BAD_REQUEST" });

    const apiDetail = await dash(m).batches.detail({ mode: "sandbox", batchId: viaApi.json.data.batch_id });
    expect(apiDetail.source).toMatchObject({ via: "API", apiKey: { label: expect.any(String), secretHint: expect.stringMatching(/^sk_test_/) } });
    expect(apiDetail.source.requestId).toBe(viaApi.headers["x-request-id"]);
    expect(apiDetail.batch.client_batch_id).toBe("from-api");

    const epfoDone = await completed(m, epfo.batch_id);
    expect(epfoDone.batch).toMatchObject({ kind: "EPFO", succeeded: 2, failed: 0 });
    const results = await dash(m).batches.results({ mode: "sandbox", batchId: epfo.batch_id });
    expect(results.items.map((i) => (i.result as { member_status: string }).member_status)).toEqual(["ACTIVE", "ACTIVE"]);
    // The dashboard's batches appear in the verification history like the API's.
    await completed(m, third.batch_id);
    const history = await dash(m).verifications.list({ mode: "sandbox", subject: "ABCPK1235F" });
    expect(history.items).toHaveLength(1);
    expect(history.items[0]).toMatchObject({ outcome: "VALID", batchId: third.batch_id });
  });

  it("refuses bad options, cross-site calls, live mode before go-live and a suspended merchant", async () => {
    const m = await newMerchant("Guarded");
    const items = [{ pan: "ABCPK1234F" }];
    const badUrl = await failure(dash(m).batches.create({ mode: "sandbox", kind: "PAN", items, webhookUrl: "ftp://example.com/x" }));
    expect(badUrl).toMatchObject({ code: "BAD_REQUEST" });
    expect(await failure(dash(m).batches.create({ mode: "sandbox", kind: "PAN", items, clientBatchId: "x".repeat(101) }))).toMatchObject({
      code: "BAD_REQUEST",
    });
    expect(await failure(dash(m, false).batches.create({ mode: "sandbox", kind: "PAN", items }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await failure(dash(m, false).batches.preview({ mode: "sandbox", kind: "PAN", items }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await failure(dash(m).batches.create({ mode: "live", kind: "PAN", items }))).toMatchObject({ code: "FORBIDDEN", appCode: "LIVE_MODE_NOT_ENABLED" });

    // Live mode, once approved: the batch's consent and purpose (C6), https and a public host only.
    await approveGoLive(db, m.merchantId);
    expect(await failure(dash(m).batches.create({ mode: "live", kind: "PAN", items }))).toMatchObject({
      code: "UNPROCESSABLE_CONTENT",
      appCode: "CONSENT_REQUIRED",
    });
    expect(await db.batch.count({ where: { merchantId: m.merchantId, mode: "live" } })).toBe(0);
    const consent = { consent: true, purpose: "Payroll onboarding: PAN check of new joiners" };
    const local = await failure(dash(m).batches.create({ mode: "live", kind: "PAN", items, webhookUrl: "https://127.0.0.1/hooks", ...consent }));
    expect(local).toMatchObject({ code: "BAD_REQUEST", appCode: "VALIDATION_ERROR", message: expect.stringMatching(/public address/) });
    expect(await failure(dash(m).batches.create({ mode: "live", kind: "PAN", items, webhookUrl: "http://shop.example/hooks", ...consent }))).toMatchObject({
      message: expect.stringMatching(/https/),
    });

    const sandbox = await dash(m).batches.create({ mode: "sandbox", kind: "PAN", items });
    await db.merchant.update({ where: { id: m.merchantId }, data: { status: "SUSPENDED" } });
    for (const call of [dash(m).batches.create({ mode: "sandbox", kind: "PAN", items }), dash(m).batches.preview({ mode: "sandbox", kind: "PAN", items })]) {
      expect(await failure(call)).toMatchObject({ code: "FORBIDDEN", appCode: "MERCHANT_SUSPENDED" });
    }
    // Still readable.
    expect((await dash(m).batches.list({ mode: "sandbox" })).items.map((b) => b.batch_id)).toEqual([sandbox.batch_id]);
    await expect(dash(m).batches.detail({ mode: "sandbox", batchId: sandbox.batch_id })).resolves.toBeTruthy();
    expect(await db.batch.count({ where: { merchantId: m.merchantId } })).toBe(1);
  });

  it("a live batch from the dashboard carries consent and purpose as the API's does: refused without them, stored from the form or the standing settings, shown on the batch", async () => {
    const m = await newMerchant("Live Consent");
    await approveGoLive(db, m.merchantId);
    const items = [{ pan: "ABCPK1234F" }];
    const PURPOSE = "Payroll onboarding: PAN check of new joiners";
    const DEFAULT = "Vendor onboarding: PAN check before the first payout";
    const live = (extra: { consent?: boolean; purpose?: string }) => dash(m).batches.create({ mode: "live", kind: "PAN", items, ...extra });
    const stored = async (batchId: string) =>
      db.batch.findUniqueOrThrow({ where: { id: batchId }, select: { consent: true, purpose: true, consentSource: true } });

    // Neither in the form nor standing: refused whole, naming the field that is missing, and nothing stored.
    for (const [extra, field] of [
      [{}, "consent"],
      [{ purpose: PURPOSE }, "consent"],
      [{ consent: true }, "purpose"],
      [{ consent: false, purpose: PURPOSE }, "consent"],
    ] as const) {
      const err = await failure(live(extra));
      expect(err, JSON.stringify(extra)).toMatchObject({ code: "UNPROCESSABLE_CONTENT", appCode: "CONSENT_REQUIRED", fields: [field] });
    }
    // A purpose outside 20-200 characters is the form's field error, as the API's VALIDATION_ERROR.
    for (const purpose of ["x".repeat(19), "x".repeat(201)]) {
      expect(await failure(live({ consent: true, purpose }))).toMatchObject({ code: "BAD_REQUEST", fields: ["purpose"] });
    }
    expect(await db.batch.count({ where: { merchantId: m.merchantId, mode: "live" } })).toBe(0);

    // The form's own fields: stored trimmed, from the request, and shown on the batch's page.
    const own = await live({ consent: true, purpose: `  ${PURPOSE}  ` });
    expect(await stored(own.batch_id)).toEqual({ consent: true, purpose: PURPOSE, consentSource: "request" });
    expect((await dash(m).batches.detail({ mode: "live", batchId: own.batch_id })).consent).toEqual({ consent: true, purpose: PURPOSE, source: "request" });

    // The standing attestation and default purpose: a batch sending neither rests on them.
    await dash(m).account.updateConsentSettings({ purpose: DEFAULT, standing: true });
    const standing = await live({});
    expect(await stored(standing.batch_id)).toEqual({ consent: true, purpose: DEFAULT, consentSource: "standing" });
    expect((await dash(m).batches.detail({ mode: "live", batchId: standing.batch_id })).consent).toEqual({
      consent: true,
      purpose: DEFAULT,
      source: "standing",
    });
    // A purpose of its own wins over the default; the attestation stays the standing one.
    const ownPurpose = await live({ purpose: PURPOSE });
    expect(await stored(ownPurpose.batch_id)).toEqual({ consent: true, purpose: PURPOSE, consentSource: "standing" });

    // A sandbox batch needs neither and records none.
    const other = await newMerchant("Sandbox Consent");
    const sandbox = await dash(other).batches.create({ mode: "sandbox", kind: "PAN", items });
    expect((await dash(other).batches.detail({ mode: "sandbox", batchId: sandbox.batch_id })).consent).toEqual({ consent: null, purpose: null, source: null });
  });

  it("keeps a batch to its merchant and mode", async () => {
    const owner = await newMerchant("Owner");
    const other = await newMerchant("Other");
    const { batch_id: id } = await dash(owner).batches.create({ mode: "sandbox", kind: "PAN", items: [{ pan: "ABCPK1234F" }] });
    // One call at a time: a call started early would reject before anyone awaits it.
    for (const call of [
      () => dash(other).batches.detail({ mode: "sandbox", batchId: id }),
      () => dash(other).batches.results({ mode: "sandbox", batchId: id }),
      () => dash(owner).batches.detail({ mode: "sandbox", batchId: "batch_doesnotexist00" }),
    ]) {
      expect(await failure(call())).toMatchObject({ code: "NOT_FOUND", appCode: "BATCH_NOT_FOUND" });
    }
    expect((await dash(other).batches.list({ mode: "sandbox" })).items).toEqual([]);
    await approveGoLive(db, owner.merchantId);
    expect(await failure(dash(owner).batches.detail({ mode: "live", batchId: id }))).toMatchObject({ code: "NOT_FOUND" });
    expect((await dash(owner).batches.list({ mode: "live" })).items).toEqual([]);
    expect(await failure(dash(owner).batches.detail({ mode: "sandbox", batchId: "batch id; drop" }))).toMatchObject({ code: "BAD_REQUEST" });
  });

  it.runIf(target === "sqlite")("serves the results CSV to the batch's merchant only, formula-safe, with the key result fields", async () => {
    const owner = await newMerchant("Exporter");
    const other = await newMerchant("Snooper");
    const { batch_id: id } = await dash(owner).batches.create({
      mode: "sandbox",
      kind: "PAN",
      items: [
        { pan: "ABCPK1234F", name: "Arjun Kapoor", reference_id: '=HYPERLINK("http://evil.example","x")' },
        { pan: "NOTAPAN", name: "+SUM(A1)", reference_id: "emp,2" },
        { pan: "ABCPK9991F", reference_id: "@cmd" },
      ],
    });
    const { batch_id: epfoId } = await dash(owner).batches.create({
      mode: "sandbox",
      kind: "EPFO",
      items: [{ uan: "100200300400", reference_id: "e1" }, { uan: "100200309991" }],
    });
    await completed(owner, id);
    await completed(owner, epfoId);

    const secret = getConfig().secrets.nextAuthSecret;
    const cookie = async (sub: string, role: "merchant" | "admin" = "merchant") =>
      `next-auth.session-token=${await encode({ token: { sub, role, email: "x@example.com" }, secret })}`;
    const get = async (batchId: string, query: string, c?: string) => {
      const res = await exportCsv(
        new NextRequest(`http://localhost/api/dashboard/batches/${encodeURIComponent(batchId)}/export${query}`, { headers: c ? { cookie: c } : {} }),
        {
          params: Promise.resolve({ batchId }),
        },
      );
      return { status: res.status, headers: res.headers, text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(await res.arrayBuffer()) };
    };

    expect((await get(id, "?mode=sandbox")).status).toBe(401);
    expect((await get(id, "?mode=sandbox", await cookie(owner.merchantId, "admin"))).status).toBe(401);
    const snooped = await get(id, "?mode=sandbox", await cookie(other.merchantId));
    expect(snooped.status).toBe(404);
    expect(JSON.parse(snooped.text).error.code).toBe("BATCH_NOT_FOUND");
    expect((await get(id, "?mode=live", await cookie(owner.merchantId))).status).toBe(403);
    expect((await get("bad id\r\nx", "?mode=sandbox", await cookie(owner.merchantId))).status).toBe(400);

    const res = await get(id, "?mode=sandbox", await cookie(owner.merchantId));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="${id}-results-sandbox-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    expect(res.text.startsWith("\uFEFF")).toBe(true);
    const rows = csvRows(res.text.slice(1));
    expect(rows[0]).toEqual([...BATCH_RESULTS_CSV_COLUMNS.PAN]);
    expect(rows[0]).toEqual([
      "index",
      "reference_id",
      "pan",
      "name",
      "item_status",
      "pan_status",
      "registered_name",
      "category",
      "name_match",
      "name_match_result",
      "aadhaar_seeding_status",
      "error_code",
      "error_message",
    ]);
    expect(rows).toHaveLength(4);
    const col = (row: string[], name: string) => row[rows[0]!.indexOf(name)];
    // Text a spreadsheet would run as a formula starts with an apostrophe.
    expect(col(rows[1]!, "reference_id")).toBe('\'=HYPERLINK("http://evil.example","x")');
    expect(rows[1]!.slice(2, 11)).toEqual([
      "ABCPK1234F",
      "Arjun Kapoor",
      "SUCCEEDED",
      "VALID",
      expect.stringMatching(/^[A-Z .]+$/),
      "INDIVIDUAL",
      expect.any(String),
      expect.any(String),
      "LINKED",
    ]);
    expect(col(rows[1]!, "error_code")).toBe("");
    expect(rows[2]!.slice(0, 5)).toEqual(["1", "emp,2", "NOTAPAN", "'+SUM(A1)", "FAILED"]);
    expect(col(rows[2]!, "error_code")).toBe("INVALID_PAN");
    expect(col(rows[2]!, "error_message")).toMatch(/pan/i);
    expect(col(rows[3]!, "reference_id")).toBe("'@cmd");
    expect(col(rows[3]!, "pan_status")).toBe("INVALID");

    const epfo = await get(epfoId, "?mode=sandbox", await cookie(owner.merchantId));
    const erows = csvRows(epfo.text.slice(1));
    expect(erows[0]).toEqual([...BATCH_RESULTS_CSV_COLUMNS.EPFO]);
    const ecol = (row: string[], name: string) => row[erows[0]!.indexOf(name)];
    expect(ecol(erows[1]!, "uan")).toBe("100200300400");
    expect(ecol(erows[1]!, "member_status")).toBe("ACTIVE");
    expect(ecol(erows[1]!, "result_pf_number")).toMatch(/^[A-Z]{2}\/[A-Z]{3}\/\d{7}\/\d{3}\/\d{7}$/);
    expect(ecol(erows[2]!, "item_status")).toBe("FAILED");
    expect(ecol(erows[2]!, "error_code")).toBe("UAN_NOT_FOUND");
  });
});
