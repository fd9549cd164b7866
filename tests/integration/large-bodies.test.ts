import crypto from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request, type HttpResult } from "../helpers/http";
import { parseScrape, valueOf } from "../helpers/prometheus";
import { createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";

// Large bodies are read on a body thread, small ones in place. The same JSON sent small and padded
// with leading whitespace (still the same JSON, now past 64 KiB) must get the same answer, and the
// padded ones must have been read off the event loop, as the metrics (read by a parser Parakh did
// not write) say.
const TOKEN = crypto.randomBytes(32).toString("hex");
const PAD = " ".repeat(100 * 1024);
const pan = (i: number) => `ABCPK${String(1000 + (i % 8000)).padStart(4, "0")}F`;

/** The same JSON text behind 100 KiB of whitespace. */
const padded = (text: string) => PAD + text;

/** An answer without what differs between any two requests (ids, times). */
function comparable(r: HttpResult) {
  const { request_id: _id, timestamp: _t, ...rest } = r.json as Record<string, unknown>;
  const data = rest.data as Record<string, unknown> | undefined;
  if (data && "batch_id" in data) {
    const { batch_id: _b, created_at: _c, ...kept } = data;
    return { status: r.status, ...rest, data: kept };
  }
  return { status: r.status, ...rest };
}

describe.each(DB_TARGETS)("large request bodies on %s", (target) => {
  let env: Started;
  let db: Db;
  let a: MerchantFixture;
  const send = (path: string, text: string, headers: Record<string, string> = {}) =>
    request(env.server.url, path, {
      method: "POST",
      rawBody: text,
      headers: { Authorization: `Bearer ${a.sandbox.secretKey}`, "Content-Type": "application/json", ...headers },
    });
  const bodiesRead = async () => {
    const families = parseScrape((await request(env.server.url, "/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } })).text);
    return {
      onThread: valueOf(families, "parakh_rest_request_bodies_total", { outcome: "read_on_thread" }),
      inPlace: valueOf(families, "parakh_rest_request_bodies_total", { outcome: "read_in_place" }),
    };
  };

  beforeAll(async () => {
    // No batch runs meanwhile: every answer here is the submission's.
    env = await startFor(target, { METRICS_TOKEN: TOKEN, JOBS_ENABLED: "false" });
    db = createPrismaClient(env.server.databaseUrl);
    a = await createMerchantViaCli(env.server.env, "Large Bodies Shop");
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
  });

  it("answers a padded body exactly as the same body unpadded, and reads only the padded ones on a body thread", async () => {
    // Path, body, and the status and code the contract gives it.
    const cases: [string, string, string][] = [
      // Good and bad items side by side: each rejected alone, with the single call's code.
      [
        "/v1/identity/pan/batch",
        JSON.stringify({
          items: [{ pan: pan(1), name: "Rakesh Kumar", reference_id: "r1" }, { pan: "NOTAPAN" }, 42, { name: "no pan" }, { pan: pan(2), reference_id: 7 }],
          client_batch_id: "padded",
          unknown_field: { ignored: true },
        }),
        "202",
      ],
      ["/v1/employment/epfo/batch", JSON.stringify({ items: [{ uan: "100200300400" }, { uan: "12" }, { uan: "100200300400", pf_number: "XX" }] }), "202"],
      ["/v1/identity/pan/batch", '{"items": [{"pan": "ABCPK1234F"}', "400 INVALID_JSON"],
      ["/v1/identity/pan/batch", JSON.stringify([{ items: [] }]), "400 VALIDATION_ERROR"],
      ["/v1/identity/pan/batch", JSON.stringify({ items: [] }), "400 VALIDATION_ERROR"],
      ["/v1/identity/pan/batch", JSON.stringify({ items: "all of them" }), "400 VALIDATION_ERROR"],
      ["/v1/identity/pan/batch", JSON.stringify({ items: Array.from({ length: 10_001 }, () => 0) }), "400 BATCH_TOO_LARGE"],
      ["/v1/identity/pan/batch", JSON.stringify({ items: [{ pan: pan(3) }], webhook_url: "not a url" }), "400 VALIDATION_ERROR"],
      ["/v1/identity/pan/batch", JSON.stringify({ items: [{ pan: pan(4) }], client_batch_id: "x".repeat(101) }), "400 VALIDATION_ERROR"],
      ["/v1/identity/pan/verify", JSON.stringify({ pan: "ABCPK1234F", name: "Rakesh Kumar" }), "200"],
      ["/v1/identity/pan/verify", JSON.stringify({ pan: "NOTAPAN" }), "400 INVALID_PAN"],
    ];
    const before = await bodiesRead();
    for (const [path, text, expected] of cases) {
      const plain = await send(path, text);
      expect([plain.status, plain.json.error?.code].filter(Boolean).join(" "), `${path} ${text.slice(0, 80)}`).toBe(expected);
      const big = await send(path, padded(text));
      expect(comparable(big), `${path} ${text.slice(0, 80)}`).toEqual(comparable(plain));
    }
    const after = await bodiesRead();
    // Every unpadded body here is under 64 KiB.
    expect(cases.every(([, text]) => Buffer.byteLength(text) < 64 * 1024)).toBe(true);
    expect(after.onThread - before.onThread).toBe(cases.length);
    expect(after.inPlace - before.inPlace).toBe(cases.length);
  });

  it("keeps each item's code as the single call answers it, and the audit record's body as sent, redacted and cut", async () => {
    const items = [{ pan: pan(5), name: "Asha Rao", reference_id: "ok" }, { pan: "ABCPK0000F" }, { pan: "NOTAPAN" }];
    const text = JSON.stringify({ items });
    const r = await send("/v1/identity/pan/batch", padded(text));
    expect(r.status).toBe(202);
    expect(r.json.data).toMatchObject({ total: 3, accepted: 1, rejected: 2 });
    const chunks = await db.batchChunk.findMany({ where: { batchId: r.json.data.batch_id }, orderBy: { seq: "asc" }, include: { itemsRow: true } });
    const stored = chunks.flatMap((c) => JSON.parse(c.itemsRow!.items) as { error: { code: string } | null }[]);
    for (const [i, item] of items.entries()) {
      const single = await send("/v1/identity/pan/verify", JSON.stringify({ pan: item.pan }));
      expect(stored[i]!.error?.code ?? null, item.pan).toBe(single.status === 200 ? null : single.json.error.code);
    }
    // Whitespace is not kept; nothing in these items is sensitive, so the body is stored as its JSON.
    const served = await db.auditLog.findFirstOrThrow({ where: { requestId: String(r.headers["x-request-id"]) } });
    expect(served.requestBody).toBe(text);

    // A refused call keeps the first 4 KiB of a body over 8 KiB, and its size.
    const many = JSON.stringify({ items: Array.from({ length: 600 }, (_, i) => ({ pan: pan(i), name: "Asha Rao" })), webhook_url: "not a url" });
    const refused = await send("/v1/identity/pan/batch", padded(many));
    expect(refused.status).toBe(400);
    const row = await db.auditLog.findFirstOrThrow({ where: { requestId: String(refused.headers["x-request-id"]) } });
    const kept = JSON.parse(row.requestBody!) as { truncated: boolean; originalBytes: number; head: string };
    expect(kept).toEqual({ truncated: true, originalBytes: Buffer.byteLength(many), head: many.slice(0, 4096) });

    // Text that is not JSON is stored as its size only.
    const broken = padded('{"items": [');
    const notJson = await send("/v1/identity/pan/batch", broken);
    expect(notJson.json.error.code).toBe("INVALID_JSON");
    const brokenRow = await db.auditLog.findFirstOrThrow({ where: { requestId: String(notJson.headers["x-request-id"]) } });
    expect(JSON.parse(brokenRow.requestBody!)).toEqual({ unparsed: true, bytes: Buffer.byteLength(broken) });
  });

  it("replays an idempotent padded batch and refuses the same key with another body", async () => {
    const text = padded(JSON.stringify({ items: [{ pan: pan(6) }] }));
    const first = await send("/v1/identity/pan/batch", text, { "Idempotency-Key": "padded-1" });
    const again = await send("/v1/identity/pan/batch", text, { "Idempotency-Key": "padded-1" });
    expect(first.status).toBe(202);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json.data.batch_id).toBe(first.json.data.batch_id);
    const other = await send("/v1/identity/pan/batch", padded(JSON.stringify({ items: [{ pan: pan(7) }] })), { "Idempotency-Key": "padded-1" });
    expect(other.status).toBe(422);
    expect(other.json.error.code).toBe("IDEMPOTENCY_KEY_MISMATCH");
  });

  it("answers a body declared past the batch limit with 413 once the whole body has arrived, so the sender reads it", async () => {
    const body = Buffer.alloc(8 * 1024 * 1024 + 64 * 1024, " ");
    const url = new URL("/v1/identity/pan/batch", env.server.url);
    const seen = await new Promise<{ status: number; code: string; sentWhole: boolean }>((resolve, reject) => {
      const req = http.request(
        {
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          agent: false,
          headers: { Authorization: `Bearer ${a.sandbox.secretKey}`, "Content-Type": "application/json", "Content-Length": String(body.length) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const json = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { error: { code: string } };
            // The whole body goes out only if the server reads it: had it answered and closed while the body
            // was on its way, the rest could never be sent. (Its 'finish' may come just after the answer.)
            void whole.then((done) => resolve({ status: res.statusCode ?? 0, code: json.error.code, sentWhole: done }));
          });
        },
      );
      const whole = new Promise<boolean>((done) => {
        req.on("finish", () => done(true));
        setTimeout(() => done(false), 10_000).unref();
      });
      req.on("error", reject);
      req.end(body);
    });
    expect(seen).toEqual({ status: 413, code: "PAYLOAD_TOO_LARGE", sentWhole: true });
  });
});
