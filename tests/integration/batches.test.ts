import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { failBatch } from "@/server/services/batches/batch-worker";
import { purgeExpiredBatches } from "@/server/services/batches/batches";
import { verifyWebhookSignature } from "@/server/services/webhooks/signing";
import { request } from "../helpers/http";
import { parseScrape, valueOf } from "../helpers/prometheus";
import { createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

const METRICS_TOKEN = "batches-metrics-token-0123456789abcdef";

/** PANs that answer (serial 1000 + i, never a special serial). */
const pan = (i: number) => `ABCPK${String(1000 + (i % 8000)).padStart(4, "0")}F`;

describe.each(DB_TARGETS)("PAN and EPFO batches on %s", (target) => {
  let env: Started;
  let db: Db;
  let a: MerchantFixture;
  let b: MerchantFixture;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const bearer = (m: MerchantFixture) => ({ Authorization: `Bearer ${m.sandbox.secretKey}` });
  const post = (path: string, body: unknown, m = a, headers: Record<string, string> = {}) =>
    request(env.server.url, path, { method: "POST", body, headers: { ...bearer(m), ...headers } });
  const get = (path: string, m = a) => request(env.server.url, path, { headers: bearer(m) });

  async function completed(kind: string, batchId: string, m = a, timeoutMs = 30_000) {
    return waitFor(
      `batch ${batchId} to complete`,
      async () => {
        const r = await get(`/v1/${kind}/batch/${batchId}`, m);
        return r.json.data.status === "COMPLETED" ? r.json.data : null;
      },
      timeoutMs,
      100,
    );
  }

  /** Every page of a batch's results (with `filter`, e.g. "&status=FAILED", on each); `pages` gets each page's items. */
  async function allResults(kind: string, batchId: string, limit = 1000, m = a, filter = "", pages: Record<string, unknown>[][] = []) {
    const items: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 100; n++) {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const r = await get(`/v1/${kind}/batch/${batchId}/results?limit=${limit}${filter}${q}`, m);
      expect(r.status).toBe(200);
      items.push(...r.json.data.items);
      pages.push(r.json.data.items);
      cursor = r.json.data.next_cursor;
      if (!cursor) break;
    }
    return items;
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    env = await startFor(target, { WEBHOOK_SANDBOX_ALLOW_LOOPBACK: "true", BATCH_RETRY_BUDGET_MS: "1500", METRICS_TOKEN });
    db = createPrismaClient(env.server.databaseUrl);
    a = await createMerchantViaCli(env.server.env, "Batch Store A");
    b = await createMerchantViaCli(env.server.env, "Batch Store B");
  });
  afterAll(async () => {
    receiver?.close();
    await db?.$disconnect();
    await env?.stop();
  });

  it("accepts a PAN batch with 202, rejects bad items one by one, and pages results that equal single calls", async () => {
    const items = [
      { pan: "ABCPK1234F", name: "Rakesh Kumar", reference_id: "emp-1" },
      { pan: "abcpk9991f" },
      { pan: "NOTAPAN", reference_id: "bad-1" },
      { pan: "ABCPK9992F", reference_id: "emp-3" },
      42,
      { name: "no pan" },
      { pan: "ABCPK0000F" },
      { pan: "ABCPK1234F", reference_id: 7 },
    ];
    const r = await post("/v1/identity/pan/batch", { items, client_batch_id: "payroll-nov" });
    expect(r.status).toBe(202);
    expect(Object.keys(r.json).sort()).toEqual(["data", "status", "timestamp"]);
    expect(Object.keys(r.json.data).sort()).toEqual(["accepted", "batch_id", "created_at", "rejected", "status", "total"]);
    expect(r.json.data).toMatchObject({ status: "QUEUED", total: 8, accepted: 3, rejected: 5 });
    expect(r.json.data.batch_id).toMatch(/^batch_[A-Za-z0-9]{16,}$/);
    const id = r.json.data.batch_id as string;

    const final = await completed("identity/pan", id);
    expect(final).toMatchObject({ total: 8, processed: 8, succeeded: 3, failed: 5, client_batch_id: "payroll-nov" });
    expect(final.started_at).toBeTruthy();
    expect(final.completed_at).toBeTruthy();

    const results = await allResults("identity/pan", id, 3);
    expect(results.map((i) => i.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const single = await post("/v1/identity/pan/verify", { pan: "ABCPK1234F", name: "Rakesh Kumar" });
    expect(results[0]).toMatchObject({ reference_id: "emp-1", result: single.json.data, error: null, status: "SUCCEEDED" });
    expect(results[1]!.result).toMatchObject({ pan: "ABCPK9991F", status: "INVALID", name: null });
    expect(results[2]).toMatchObject({ reference_id: "bad-1", result: null, error: { code: "INVALID_PAN" }, input: { pan: "NOTAPAN" } });
    expect(results[3]!.result).toMatchObject({ status: "DEACTIVATED" });
    expect(results[4]!.error).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(results[5]!.error).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(results[6]!.error).toMatchObject({ code: "INVALID_PAN" });
    expect(results[7]!.error).toMatchObject({ code: "VALIDATION_ERROR" });
    for (const item of results) expect((item.result === null) !== (item.error === null)).toBe(true);

    // Only the failures (the rejected items and nothing else here), in index order, in full pages.
    const failedPages: Record<string, unknown>[][] = [];
    const failed = await allResults("identity/pan", id, 2, a, "&status=FAILED", failedPages);
    expect(failedPages.map((p) => p.map((i) => i.index))).toEqual([[2, 4], [5, 6], [7]]);
    expect(failed).toEqual(results.filter((i) => [2, 4, 5, 6, 7].includes(i.index as number)));
    expect((await allResults("identity/pan", id, 1000, a, "&status=SUCCEEDED")).map((i) => i.index)).toEqual([0, 1, 3]);
    const none = await get(`/v1/identity/pan/batch/${id}/results?status=PENDING`);
    expect(none.json.data).toEqual({ items: [], next_cursor: null });
    // A filtered page's cursor goes on with the same filter only, and the filter takes only the three states.
    const failedFirst = await get(`/v1/identity/pan/batch/${id}/results?limit=2&status=FAILED`);
    const failedCursor = encodeURIComponent(failedFirst.json.data.next_cursor as string);
    const plainCursor = encodeURIComponent((await get(`/v1/identity/pan/batch/${id}/results?limit=2`)).json.data.next_cursor as string);
    for (const query of [
      `cursor=${failedCursor}`,
      `cursor=${failedCursor}&status=SUCCEEDED`,
      `cursor=${plainCursor}&status=FAILED`,
      "status=failed",
      "status=INVALID",
    ]) {
      const res = await get(`/v1/identity/pan/batch/${id}/results?${query}`);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("VALIDATION_ERROR");
    }

    // Each item that reached the source is in the merchant's verification history, once.
    const rows = await db.verification.findMany({ where: { batchId: id } });
    expect(rows.map((v) => v.subject).sort()).toEqual(["ABCPK1234F", "ABCPK9991F", "ABCPK9992F"]);
    expect(rows.every((v) => v.requestId === r.headers["x-request-id"])).toBe(true);
  });

  it("scores each item's name as a single call does, when a name or a record comes back in the batch", async () => {
    // Each name against several records and each record against several names, some pairs twice.
    const names = ["Ganesh Kohli", "Kohli", "Mr. Manoj Raj Krishnan", "KAMATH DEEPIKA", "Rani Khanna", null, "Arjun Kapoor"];
    const pairs = Array.from({ length: 42 }, (_, i) => ({ pan: pan(i % 12), name: names[i % names.length]! }));
    const items = [...pairs, ...pairs.slice(0, 8)].map((p, i) => ({ ...p, reference_id: `n${i}` }));
    const r = await post("/v1/identity/pan/batch", { items });
    expect(r.status).toBe(202);
    const id = r.json.data.batch_id as string;
    await completed("identity/pan", id);
    const results = await allResults("identity/pan", id);
    expect(results).toHaveLength(items.length);
    const rows = await db.verification.findMany({ where: { batchId: id } });
    const scored = new Set<number>();
    for (const [i, item] of items.entries()) {
      const single = await post("/v1/identity/pan/verify", { pan: item.pan, name: item.name });
      expect(single.status).toBe(200);
      expect(results[i]).toMatchObject({ index: i, result: single.json.data, error: null });
      if (single.json.data.name_match !== null) scored.add(single.json.data.name_match as number);
      // The history row holds the same score (rows of one PAN and name are alike).
      const row = rows.find((v) => v.subject === item.pan && v.nameQueried === item.name);
      expect(row?.nameMatch ?? null).toBe(single.json.data.name_match);
    }
    // The batch met several different scores, so a score carried to the wrong pair would show.
    expect(scored.size).toBeGreaterThan(4);
  });

  it("scores a company's name with its legal form read either way, as the single call does", async () => {
    // ABCCK1234F is the sandbox's KOHLI ENGINEERING PRIVATE LIMITED; ABCPK1234F a person.
    const items = [
      { pan: "ABCCK1234F", name: "Kohli Engineering Pvt. Ltd." },
      { pan: "ABCCK1234F", name: "Zoya Engineering Pvt Ltd" },
      { pan: "ABCPK1234F", name: "Kohli Engineering Pvt. Ltd." },
      { pan: "ABCCK1234F", name: "Kohli Engineering Pvt. Ltd." },
    ];
    const r = await post("/v1/identity/pan/batch", { items });
    expect(r.status).toBe(202);
    const id = r.json.data.batch_id as string;
    await completed("identity/pan", id);
    const results = (await allResults("identity/pan", id)).map((i) => i.result as { name_match: number; name_match_result: string; category: string });
    expect(results.map((i) => [i.name_match_result, i.category])).toEqual([
      ["MATCH", "COMPANY"],
      ["NO_MATCH", "COMPANY"],
      ["NO_MATCH", "INDIVIDUAL"],
      ["MATCH", "COMPANY"],
    ]);
    expect(results[0]!.name_match).toBe(100);
  });

  it("runs EPFO batches by UAN and PF number, with not-found items failed and transient errors retried then recorded", async () => {
    const items = [
      { uan: "100200300400", reference_id: "u1" },
      { pf_number: "MHBAN00000640000000123" },
      { uan: "100200309991" },
      { uan: "100200309998" },
      { uan: "12" },
      { uan: "100200300400", pf_number: "MH/BAN/0000064/000/0000123" },
      { pf_number: "XX" },
    ];
    const r = await post("/v1/employment/epfo/batch", { items });
    expect(r.status).toBe(202);
    expect(r.json.data).toMatchObject({ total: 7, accepted: 4, rejected: 3 });
    const id = r.json.data.batch_id as string;
    const final = await completed("employment/epfo", id);
    expect(final).toMatchObject({ processed: 7, succeeded: 2, failed: 5 });
    const results = await allResults("employment/epfo", id);
    const single = await request(env.server.url, "/v1/employment/epfo/verify", { method: "POST", body: { uan: "100200300400" }, headers: bearer(a) });
    expect(results[0]!.result).toEqual(single.json.data);
    expect((results[1]!.result as { pf_number: string }).pf_number).toBe("MH/BAN/0000064/000/0000123");
    expect(results[2]!.error).toMatchObject({ code: "UAN_NOT_FOUND" });
    expect(results[3]!.error).toMatchObject({ code: "SOURCE_UNAVAILABLE" });
    expect(results[4]!.error).toMatchObject({ code: "INVALID_UAN" });
    expect(results[5]!.error).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(results[6]!.error).toMatchObject({ code: "INVALID_PF_NUMBER" });
    // The 503 item was retried until its budget (1.5 s here) ran out before it was recorded.
    const chunk = await db.batchChunk.findFirstOrThrow({ where: { batchId: id } });
    expect(chunk.passes).toBeGreaterThanOrEqual(1);
    expect(chunk.completedAt!.getTime() - chunk.retryingSince!.getTime()).toBeGreaterThanOrEqual(1_500);
  });

  it("finds a batch only under its own kind, merchant and mode", async () => {
    const r = await post("/v1/identity/pan/batch", { items: [{ pan: pan(1) }] });
    const id = r.json.data.batch_id as string;
    for (const [path, m] of [
      [`/v1/employment/epfo/batch/${id}`, a],
      [`/v1/identity/pan/batch/${id}`, b],
      [`/v1/identity/pan/batch/${id}/results`, b],
      [`/v1/identity/pan/batch/batch_nope`, a],
    ] as const) {
      const res = await get(path, m);
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ status: "error", error: { code: "BATCH_NOT_FOUND" } });
    }
  });

  it("refuses bad input with its code: too many items, too large a body, limit over 1000, a forged cursor, bad webhook_url", async () => {
    const tooMany = await post("/v1/identity/pan/batch", { items: Array.from({ length: 10_001 }, (_, i) => ({ pan: pan(i) })) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.error.code).toBe("BATCH_TOO_LARGE");
    const empty = await post("/v1/identity/pan/batch", { items: [] });
    expect(empty.status).toBe(400);
    expect(empty.json.error.code).toBe("VALIDATION_ERROR");
    const missing = await post("/v1/identity/pan/batch", {});
    expect(missing.json.error.code).toBe("VALIDATION_ERROR");
    const huge = await post("/v1/identity/pan/batch", { items: [{ pan: "ABCPK1234F", name: "x".repeat(9 * 1024 * 1024) }] });
    expect(huge.status).toBe(413);
    expect(huge.json.error.code).toBe("PAYLOAD_TOO_LARGE");

    const ok = await post("/v1/identity/pan/batch", { items: Array.from({ length: 5 }, (_, i) => ({ pan: pan(i) })) });
    const id = ok.json.data.batch_id as string;
    const over = await get(`/v1/identity/pan/batch/${id}/results?limit=1001`);
    expect(over.status).toBe(400);
    expect(over.json.error.code).toBe("VALIDATION_ERROR");
    for (const bad of ["abc", "0", "-1", "1e3"]) expect((await get(`/v1/identity/pan/batch/${id}/results?limit=${bad}`)).status).toBe(400);
    const first = await get(`/v1/identity/pan/batch/${id}/results?limit=2`);
    const cursor = first.json.data.next_cursor as string;
    expect(cursor).toBeTruthy();
    const [body, mac] = cursor.split(".");
    const moved = Buffer.from(Buffer.from(body!, "base64url").toString().replace(/:\d+$/, ":4")).toString("base64url");
    for (const forged of [`${moved}.${mac}`, "garbage", `${body}.`, Buffer.from(`${id}:2`).toString("base64url")]) {
      const res = await get(`/v1/identity/pan/batch/${id}/results?cursor=${encodeURIComponent(forged)}`);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("VALIDATION_ERROR");
    }
    // A cursor of one batch does not open another.
    const other = await post("/v1/identity/pan/batch", { items: [{ pan: pan(9) }, { pan: pan(10) }, { pan: pan(11) }] });
    expect((await get(`/v1/identity/pan/batch/${other.json.data.batch_id}/results?cursor=${encodeURIComponent(cursor)}`)).status).toBe(400);

    // An unknown batch is 404 whatever the cursor.
    const unknown = await get(`/v1/identity/pan/batch/batch_unknown000000000/results?cursor=garbage`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe("BATCH_NOT_FOUND");

    const bad = await post("/v1/identity/pan/batch", { items: [{ pan: pan(1) }], webhook_url: "not a url" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("VALIDATION_ERROR");
    const notJson = await request(env.server.url, "/v1/identity/pan/batch", {
      method: "POST",
      rawBody: "{",
      headers: { ...bearer(a), "Content-Type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.code).toBe("INVALID_JSON");
  });

  it("accepts 10,000 items, finishes them all once, and sends one signed event to webhook_url and to subscribed endpoints", async () => {
    await db.webhookEndpoint.create({
      data: { id: newId("whe"), merchantId: a.merchantId, mode: "sandbox", url: `${receiver.url}?endpoint=1`, events: "pan.batch.completed" },
    });
    const items = Array.from({ length: 10_000 }, (_, i) => ({ pan: pan(i), name: "Rakesh Kumar", reference_id: `r${i}` }));
    const r = await post("/v1/identity/pan/batch", { items, webhook_url: receiver.url }, a, { "Idempotency-Key": "big-batch-1" });
    expect(r.status).toBe(202);
    expect(r.json.data).toMatchObject({ total: 10_000, accepted: 10_000, rejected: 0 });
    const id = r.json.data.batch_id as string;
    const replay = await post("/v1/identity/pan/batch", { items, webhook_url: receiver.url }, a, { "Idempotency-Key": "big-batch-1" });
    expect(replay.status).toBe(202);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.json.data.batch_id).toBe(id);

    const final = await completed("identity/pan", id, a, 60_000);
    expect(final).toMatchObject({ processed: 10_000, succeeded: 10_000, failed: 0 });
    const results = await allResults("identity/pan", id);
    expect(results).toHaveLength(10_000);
    expect(results.map((i) => i.index)).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
    expect(results.every((i, k) => i.reference_id === `r${k}` && i.error === null)).toBe(true);
    expect(await db.verification.count({ where: { batchId: id } })).toBe(10_000);
    // Sandbox items ran on the chunk thread, never on the event loop.
    const scrape = parseScrape((await request(env.server.url, "/metrics", { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text);
    expect(valueOf(scrape, "parakh_batch_chunk_passes_total", { ran_on: "chunk_thread" })).toBeGreaterThanOrEqual(10);
    expect(valueOf(scrape, "parakh_batch_chunk_passes_total", { ran_on: "event_loop" })).toBe(0);
    // Its first chunks' passes started on the two idle chunk threads as it was stored, and their workers
    // took them; a chunk claimed before its early pass could start ran its own (dropped).
    const early = (outcome: string) => valueOf(scrape, "parakh_batch_early_passes_total", { outcome });
    expect(early("taken")).toBeGreaterThanOrEqual(2);
    expect(early("taken") + early("dropped")).toBeGreaterThanOrEqual(10);

    const events = await waitFor("both deliveries", () => {
      const mine = receiver.received.filter((x) => x.body.includes(id));
      return mine.length >= 2 ? mine : null;
    });
    await new Promise((res) => setTimeout(res, 500));
    expect(receiver.received.filter((x) => x.body.includes(id))).toHaveLength(2);
    for (const e of events) {
      expect(e.headers["x-webhook-event"]).toBe("pan.batch.completed");
      const sig = String(e.headers["x-webhook-signature"]);
      expect(verifyWebhookSignature(a.sandbox.signingSecret, sig, e.body)).toBe(true);
      expect(verifyWebhookSignature(a.sandbox.signingSecret, sig, e.body.replace("COMPLETED", "FAILED"))).toBe(false);
      const body = JSON.parse(e.body);
      expect(body).toMatchObject({ type: "pan.batch.completed", mode: "sandbox" });
      expect(body.data).toMatchObject({ batch_id: id, status: "COMPLETED", processed: 10_000, succeeded: 10_000, failed: 0 });
      // Absolute, on the configured API address (the test server's is a placeholder port).
      expect(new URL(body.data.results_url).pathname).toBe(`/v1/identity/pan/batch/${id}/results`);
    }
  });

  it("refuses a 21st unfinished batch with 429 and Retry-After, and takes it once one has finished", async () => {
    const c = await createMerchantViaCli(env.server.env, "Busy Store");
    const ids = Array.from({ length: 20 }, () => newId("batch"));
    await db.batch.createMany({
      data: ids.map((id) => ({
        id,
        merchantId: c.merchantId,
        mode: "sandbox",
        kind: "PAN",
        status: "PROCESSING",
        total: 1,
        accepted: 1,
        rejected: 0,
        processed: 0,
        succeeded: 0,
        failed: 0,
        chunkSize: 100,
        chunkCount: 1,
        requestId: "req_test",
      })),
    });
    const refused = await post("/v1/identity/pan/batch", { items: [{ pan: pan(5) }] }, c);
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe("RATE_LIMITED");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    // EPFO batches count toward the same cap.
    expect((await post("/v1/employment/epfo/batch", { items: [{ uan: "100200300400" }] }, c)).status).toBe(429);
    await db.batch.update({ where: { id: ids[0] }, data: { status: "COMPLETED" } });
    expect((await post("/v1/identity/pan/batch", { items: [{ pan: pan(5) }] }, c)).status).toBe(202);
  });

  it("ends a batch its workers gave up on as FAILED, once, with its event", async () => {
    const id = newId("batch");
    await db.batch.create({
      data: {
        id,
        merchantId: b.merchantId,
        mode: "sandbox",
        kind: "EPFO",
        status: "PROCESSING",
        total: 3,
        accepted: 3,
        rejected: 0,
        processed: 1,
        succeeded: 1,
        failed: 0,
        chunkSize: 100,
        chunkCount: 1,
        requestId: "req_test",
      },
    });
    await failBatch({ db, baseUrl: env.server.url }, id);
    await failBatch({ db, baseUrl: env.server.url }, id);
    const status = await get(`/v1/employment/epfo/batch/${id}`, b);
    expect(status.json.data).toMatchObject({ status: "FAILED", processed: 1 });
    expect(status.json.data.completed_at).toBeTruthy();
    const events = await db.webhookEvent.findMany({ where: { subjectId: id } });
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe("epfo.batch.completed");
    expect(JSON.parse(events[0]!.body).data).toMatchObject({ batch_id: id, status: "FAILED" });
  });

  it("purges batches past the audit retention, chunks included, and keeps newer ones", async () => {
    const old = (await post("/v1/identity/pan/batch", { items: [{ pan: pan(3) }] })).json.data.batch_id as string;
    const fresh = (await post("/v1/identity/pan/batch", { items: [{ pan: pan(4) }] })).json.data.batch_id as string;
    await completed("identity/pan", old);
    await completed("identity/pan", fresh);
    await db.batch.update({ where: { id: old }, data: { createdAt: new Date(Date.now() - 8 * 365 * 24 * 3600 * 1000) } });
    // The server's own retention run may get there first; either way the old batch is gone.
    await purgeExpiredBatches(db, 2557);
    expect(await db.batch.findUnique({ where: { id: old } })).toBeNull();
    expect(await db.batchChunk.count({ where: { batchId: old } })).toBe(0);
    expect((await get(`/v1/identity/pan/batch/${old}`)).status).toBe(404);
    expect((await get(`/v1/identity/pan/batch/${fresh}`)).status).toBe(200);
  });
});
