import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request } from "../helpers/http";
import { cli, createMerchantViaCli, startServer, tempDataDir, type MerchantFixture, type TestServer } from "../helpers/server";
import { waitFor } from "../helpers/wait";

/** What a stranger with no key can make the REST door store, hold open or print. */
describe("REST door against a stranger", () => {
  let server: TestServer;
  let m: MerchantFixture;
  let db: Db;
  const payHeaders = () => ({ "x-merchant-id": m.merchantId, "x-api-key": m.sandbox.publicKey, "x-secret-key": m.sandbox.secretKey });

  beforeAll(async () => {
    server = await startServer();
    m = await createMerchantViaCli(server.env);
    expect((await cli(server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    db = createPrismaClient(server.databaseUrl);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await server?.stop();
  });

  /** Main database file size after folding the WAL into it. */
  function databaseBytes(): number {
    const file = server.databaseUrl.replace(/^file:/, "");
    const conn = new Database(file);
    try {
      conn.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      conn.close();
    }
    return fs.statSync(file).size;
  }

  /** POSTs `bytes` of body with bad credentials from `localAddress`; the server may answer before reading it. */
  function strangerPost(bytes: number, localAddress: string): Promise<{ status: number; retryAfter?: string }> {
    return new Promise((resolve, reject) => {
      const url = new URL(server.url);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: "/v1/identity/pan/verify",
          method: "POST",
          localAddress,
          agent: false,
          headers: { "Content-Type": "application/json", "Content-Length": bytes, Authorization: "Bearer sk_test_nope" },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined }));
        },
      );
      req.on("error", (err) => reject(err));
      // Writes after the early answer may fail (the server closed); the answer is what counts.
      req.on("socket", (s) => s.on("error", () => undefined));
      // A valid JSON object ({"pan":"aaa…"}) of exactly `bytes`, the kind a log would keep 256 KiB of.
      const head = Buffer.from('{"pan":"');
      const tail = Buffer.from('"}');
      const chunk = Buffer.alloc(64 * 1024, "a");
      let sent = 0;
      const pump = () => {
        if (sent === 0) {
          req.write(head);
          sent = head.length;
        }
        while (sent < bytes - tail.length) {
          const n = Math.min(chunk.length, bytes - tail.length - sent);
          sent += n;
          if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once("drain", pump);
        }
        req.end(tail);
      };
      pump();
    });
  }

  it("stores no body for requests without valid credentials: 500 × 1 MiB grow the database by under 1 MB", async () => {
    const before = databaseBytes();
    const statuses: number[] = [];
    const retryAfters: number[] = [];
    const queue = Array.from({ length: 500 }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          const r = await strangerPost(1024 * 1024, "127.0.0.5").catch(() => ({ status: -1, retryAfter: undefined }));
          statuses.push(r.status);
          if (r.retryAfter) retryAfters.push(Number(r.retryAfter));
        }
      }),
    );
    const growth = databaseBytes() - before;
    expect(growth).toBeLessThan(1024 * 1024);
    // The first refusals are recorded (401, bodies not kept), and the first 429 that says the
    // address went over its limit; the refusals after it are answered and counted, not stored.
    const rows = await db.auditLog.findMany({ where: { clientIp: "127.0.0.5" }, select: { requestBody: true, status: true } });
    expect(rows.filter((r) => r.status === 401)).toHaveLength(30);
    expect(rows.filter((r) => r.status === 429)).toHaveLength(1);
    expect(rows.every((r) => r.requestBody === null)).toBe(true);
    // Every client reads its answer: the unread body is dropped as it arrives, not cut off under the sender.
    expect(statuses.filter((s) => s === 401)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(470);
    expect(Math.max(...retryAfters)).toBeLessThanOrEqual(60);
    expect(Math.min(...retryAfters)).toBeGreaterThanOrEqual(1);
  });

  it("never refuses valid credentials from an address that is over its failure limit", async () => {
    for (let i = 0; i < 35; i++)
      await request(server.url, "/v1/identity/pan/verify", {
        body: { pan: "ABCPK1234F" },
        headers: { Authorization: "Bearer sk_test_wrong" },
        localAddress: "127.0.0.6",
      });
    const refused = await request(server.url, "/v1/identity/pan/verify", {
      body: { pan: "ABCPK1234F" },
      headers: { Authorization: "Bearer sk_test_wrong" },
      localAddress: "127.0.0.6",
    });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ status: "error", error: { code: "RATE_LIMITED" } });
    const ok = await request(server.url, "/v1/identity/pan/verify", {
      body: { pan: "ABCPK1234F" },
      headers: { Authorization: `Bearer ${m.sandbox.secretKey}` },
      localAddress: "127.0.0.6",
    });
    expect(ok.status).toBe(200);
  });

  it("counts unknown routes and wrong methods toward the same limit, and keeps their records short", async () => {
    const longPath = `/api/payments/${"x".repeat(15_000)}/status`;
    const agent = "a".repeat(600);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await rawRequest(
        i % 2 ? "POST" : "GET",
        i % 2 ? longPath : `/v1/nothing/${"y".repeat(15_000)}`,
        i % 2 ? {} : undefined,
        { "User-Agent": agent },
        "127.0.0.8",
      );
      statuses.push(r.status);
      if (r.status !== 429) expect(r.json.error.message.length).toBeLessThan(400);
    }
    expect(statuses.slice(0, 30).every((s) => s === 404 || s === 405)).toBe(true);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    const rows = await db.auditLog.findMany({ where: { userAgent: { startsWith: "aaaa" } }, select: { path: true, userAgent: true, status: true } });
    expect(rows).toHaveLength(31);
    for (const r of rows) {
      expect(r.path.length).toBeLessThanOrEqual(256);
      expect(r.userAgent!.length).toBeLessThanOrEqual(256);
    }
  });

  it("keeps only an excerpt of a refused body, counted in bytes", async () => {
    // 786 KB of three-byte characters: under the 1 MiB body limit, refused for its 100-character name limit.
    const r = await request(server.url, "/v1/identity/pan/verify", {
      body: { pan: "ABCPK1234F", name: "一".repeat(262_000) },
      headers: { Authorization: `Bearer ${m.sandbox.secretKey}`, "X-Request-Id": "cjk-excerpt-1" },
    });
    expect(r.status).toBe(400);
    const row = await db.auditLog.findFirst({ where: { requestId: "cjk-excerpt-1" } });
    expect(Buffer.byteLength(row!.requestBody!)).toBeLessThanOrEqual(9 * 1024);
    expect(JSON.parse(row!.requestBody!)).toMatchObject({ truncated: true, originalBytes: expect.any(Number) });
  });

  it("refuses JSON nested too deeply with VALIDATION_ERROR, not a 500", async () => {
    const deep = `{"pan":"ABCPK1234F","x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    const r = await request(server.url, "/v1/identity/pan/verify", {
      rawBody: deep,
      headers: { Authorization: `Bearer ${m.sandbox.secretKey}`, "Content-Type": "application/json" },
    });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: "error", error: { code: "VALIDATION_ERROR" } });
    expect(server.logs()).not.toMatch(/Maximum call stack/);
  });

  it("keeps at most 1 KiB of a very long URL in the audit record", async () => {
    const long = `/v1/identity/pan/verify?${"x".repeat(8000)}`;
    const r = await request(server.url, long, {
      body: { pan: "ABCPK1234F" },
      headers: { Authorization: `Bearer ${m.sandbox.secretKey}`, "X-Request-Id": "long-url-1" },
    });
    expect(r.status).toBe(200);
    const row = await db.auditLog.findFirst({ where: { requestId: "long-url-1" } });
    expect(row?.path.length).toBe(1024);
  });

  /** A request with the path sent exactly as given (URL helpers fold `%2e%2e` and read `//v1/…` as a host). */
  function rawRequest(
    method: string,
    rawPath: string,
    body: unknown,
    headers: Record<string, string>,
    localAddress?: string,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; json: any }> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? "" : JSON.stringify(body);
      const req = http.request(
        {
          host: "127.0.0.1",
          localAddress,
          port: server.port,
          path: rawPath,
          method,
          agent: false,
          headers: { ...headers, ...(payload ? { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) } : {}) },
        },
        (res) => {
          let text = "";
          res.on("data", (c) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) }));
        },
      );
      req.on("error", reject);
      req.end(payload || undefined);
    });
  }
  const rawPost = (rawPath: string, body: unknown, headers: Record<string, string>) => rawRequest("POST", rawPath, body, headers);

  describe("answers every REST-looking request in the envelope, never a 500 for a client fault", () => {
    it("accepts media types in any case", async () => {
      const r = await request(server.url, "/v1/identity/pan/verify", {
        body: { pan: "ABCPK1234F" },
        headers: { Authorization: `Bearer ${m.sandbox.secretKey}`, "Content-Type": "Application/JSON; Charset=UTF-8" },
      });
      expect(r.status).toBe(200);
      expect(r.json.data.status).toBe("VALID");
    });

    it.each(["/api/payments/%2e%2e/status", "/api/payments/../status", "/api/payments/%2E/status", "/api/payments/.%2e/status"])(
      "GET %s → 404 in the envelope",
      async (p) => {
        const r = await rawRequest("GET", p, undefined, payHeaders());
        expect(r.status).toBe(404);
        expect(r.json).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
        expect(r.headers["x-request-id"]).toBe(r.json.requestId);
      },
    );

    it.each([
      ["/V1/identity/pan/verify", "v1"],
      ["/%761/identity/pan/verify", "v1"],
      ["//v1/identity/pan/verify", "v1"],
      ["/API/checkout", "api"],
      ["//api/checkout", "api"],
    ])("%s is answered by the API, not the pages", async (p, kind) => {
      const r = await rawPost(p, { pan: "ABCPK1234F" }, { Authorization: `Bearer ${m.sandbox.secretKey}` });
      expect(r.status).toBe(404);
      expect(r.headers["content-type"]).toMatch(/application\/json/);
      expect(r.json.error.code).toBe("NOT_FOUND");
      expect(kind === "v1" ? r.json.status : r.json.success).toBe(kind === "v1" ? "error" : false);
      // The door's envelope, with the request id the response header carries.
      expect(kind === "v1" ? r.json.request_id : r.json.requestId).toBe(r.headers["x-request-id"]);
    });

    it("records an aborted body as the client's fault (400), with no error-level log", async () => {
      await new Promise<void>((resolve) => {
        const s = net.connect(server.port, "127.0.0.1", () => {
          s.write(
            `POST /v1/identity/pan/verify HTTP/1.1\r\nHost: x\r\nX-Request-Id: aborted-body-1\r\nAuthorization: Bearer ${m.sandbox.secretKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"pan":`,
          );
          setTimeout(() => {
            s.destroy();
            resolve();
          }, 200);
        });
      });
      const row = await waitFor("the aborted request's audit record", () => db.auditLog.findFirst({ where: { requestId: "aborted-body-1" } }));
      expect(row.status).toBe(400);
      expect(row.errorCode).toBe("INVALID_JSON");
      expect(server.logs()).not.toMatch(/"level":"error"[^\n]*aborted-body-1/);
    });

    it("records a malformed chunked body as the client's fault (400)", async () => {
      await new Promise<void>((resolve) => {
        const s = net.connect(server.port, "127.0.0.1", () => {
          s.write(
            `POST /v1/identity/pan/verify HTTP/1.1\r\nHost: x\r\nX-Request-Id: bad-chunks-1\r\nAuthorization: Bearer ${m.sandbox.secretKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"pan\r\nzz-not-hex\r\n`,
          );
          s.on("data", () => undefined);
          s.on("error", () => undefined);
          s.on("close", () => resolve());
          setTimeout(() => s.destroy(), 2000);
        });
      });
      const row = await waitFor("the malformed request's audit record", () => db.auditLog.findFirst({ where: { requestId: "bad-chunks-1" } }));
      expect(row.status).toBe(400);
      expect(server.logs()).not.toMatch(/"level":"error"[^\n]*bad-chunks-1/);
    });
  });

  /**
   * Writes a request exactly as given on a fresh connection and reads the answer until the server
   * closes it (every request here says `Connection: close`, or is one the server closes after).
   * From an address of its own, so these refusals do not count toward other tests' limits.
   */
  function exchange(text: string, localAddress = "127.0.0.9"): Promise<{ status: number; headers: Record<string, string>; body: string; json: any }> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ port: server.port, host: "127.0.0.1", localAddress }, () => s.write(text));
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error(`the server kept the connection open after: ${Buffer.concat(chunks).toString("utf8").slice(0, 200)}`));
      }, 15_000);
      s.on("data", (c: Buffer) => chunks.push(c));
      s.on("error", () => undefined);
      s.on("close", () => {
        clearTimeout(timer);
        const raw = Buffer.concat(chunks).toString("utf8");
        const end = raw.indexOf("\r\n\r\n");
        const [statusLine = "", ...lines] = (end === -1 ? raw : raw.slice(0, end)).split("\r\n");
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
        const body = end === -1 ? "" : raw.slice(end + 4);
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        resolve({ status: Number(statusLine.split(" ")[1] ?? 0), headers, body, json });
      });
    });
  }
  const head = (method: string, target: string, headers: Record<string, string> = {}) =>
    `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("")}Connection: close\r\n\r\n`;
  const bearerHeaders = () => ({ Authorization: `Bearer ${m.sandbox.secretKey}` });

  describe("requests Node's parser does not hand over, and look-alikes of the app's own endpoints", () => {
    it.each([
      ["FOO", "/v1/identity/pan/verify", "v1", "POST"],
      ["FOO", "/api/checkout", "api", "POST"],
      ["get", "/v1/identity/pan/batch/batch_1", "v1", "GET"],
      ["CONNECT", "/api/checkout", "api", "POST"],
      ["CONNECT", "/v1/identity/pan/verify", "v1", "POST"],
    ])("%s %s → 405 METHOD_NOT_ALLOWED with Allow, in the envelope, recorded", async (method, target, kind, allow) => {
      const id = `unparsed-${method}-${kind}-${allow}`.replace(/[^A-Za-z0-9_-]/g, "");
      const r = await exchange(head(method, target, { ...bearerHeaders(), "X-Request-Id": id }));
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe(allow);
      expect(r.headers["content-type"]).toMatch(/^application\/json/);
      expect(r.headers["x-request-id"]).toBe(id);
      expect(r.json.error.code).toBe("METHOD_NOT_ALLOWED");
      if (kind === "v1") expect(r.json).toMatchObject({ status: "error", request_id: id });
      else expect(r.json).toMatchObject({ success: false, requestId: id });
      const row = await db.auditLog.findFirst({ where: { requestId: id } });
      expect(row).toMatchObject({ method, status: 405, errorCode: "METHOD_NOT_ALLOWED" });
    });

    it.each([
      ["FOO", "/v1/nothing/here"],
      ["FOO", "/api/nothing"],
      ["CONNECT", "/api/nothing"],
    ])("%s %s → 404 NOT_FOUND in the envelope", async (method, target) => {
      const r = await exchange(head(method, target));
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe("NOT_FOUND");
      expect(r.json.request_id ?? r.json.requestId).toBe(r.headers["x-request-id"]);
    });

    it("answers CONNECT to a host, and an unknown method outside the API, in JSON rather than closing the socket", async () => {
      for (const text of [head("CONNECT", "127.0.0.1:443"), head("FOO", "/dashboard")]) {
        const r = await exchange(text);
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(r.json).toMatchObject({ success: false, error: { code: expect.any(String) }, requestId: r.headers["x-request-id"] });
      }
    });

    it("keeps Node's own answers to other malformed requests", async () => {
      const huge = await exchange(head("GET", "/v1/identity/pan/verify", { "X-Big": "a".repeat(20_000) }));
      expect(huge.status).toBe(431);
      const garbage = await exchange("GET /v1/identity/pan/verify HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
      expect(garbage.status).toBe(400);
      // A later request still gets a normal answer.
      expect((await exchange(head("GET", "/api/health"))).status).toBe(200);
    });

    it.each([
      "//api/trpc/merchant.list",
      "/api//trpc/merchant.list",
      "/api/Trpc/merchant.list",
      "/api/trpcx",
      "/api/auth",
      "/api/Health",
      "/api/%2e%2e/checkout",
    ])("GET %s is answered by the door: 404 NOT_FOUND in the envelope, recorded", async (target) => {
      const id = `lookalike-${Buffer.from(target).toString("hex").slice(0, 40)}`;
      const r = await exchange(head("GET", target, { "X-Request-Id": id }));
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ success: false, error: { code: "NOT_FOUND" }, requestId: id });
      expect(await db.auditLog.findFirst({ where: { requestId: id } })).toMatchObject({ status: 404, errorCode: "NOT_FOUND" });
    });

    it("serves a path the adapter would read otherwise (trailing slashes, a backslash) as the route the door matched", async () => {
      const payload = JSON.stringify({ paymentId: "pay_1700000000000_nothere" });
      const r = await exchange(
        `POST /api/payments/verify// HTTP/1.1\r\nHost: 127.0.0.1\r\nx-merchant-id: ${m.merchantId}\r\nx-api-key: ${m.sandbox.publicKey}\r\nx-secret-key: ${m.sandbox.secretKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
        "127.0.0.1",
      );
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ success: false, error: { code: "PAYMENT_NOT_FOUND" } });
      for (const target of [
        "/api/payments/pay_1700000000000_nothere/status//",
        "/api/payments/pay_17000\\nothere/status",
        "/v1/identity/pan/batch/batch_\\x/results//",
      ]) {
        const headers = target.startsWith("/v1") ? bearerHeaders() : payHeaders();
        const r2 = await exchange(head("GET", target, headers), "127.0.0.1");
        expect(r2.status, target).toBe(404);
        expect(r2.json?.error?.code, target).toBe(target.startsWith("/v1") ? "BATCH_NOT_FOUND" : "PAYMENT_NOT_FOUND");
      }
    });
  });

  it("lets a key left IN_PROGRESS by a crashed request be taken again after its lease, not after 24 h", async () => {
    const record = (key: string, ageMs: number) => ({
      id: `idem_${key}`,
      merchantId: m.merchantId,
      mode: "sandbox",
      key,
      method: "POST",
      path: "/v1/identity/pan/verify",
      requestHash: crypto.createHash("sha256").update('POST /v1/identity/pan/verify\n{"pan":"ABCPK1234F"}').digest("hex"),
      state: "IN_PROGRESS",
      createdAt: new Date(Date.now() - ageMs),
      expiresAt: new Date(Date.now() + 23 * 3600_000),
    });
    await db.idempotencyRecord.createMany({ data: [record("crashed-61s", 61_000), record("running-5s", 5_000)] });
    const call = (key: string) =>
      request(server.url, "/v1/identity/pan/verify", {
        body: { pan: "ABCPK1234F" },
        headers: { Authorization: `Bearer ${m.sandbox.secretKey}`, "Idempotency-Key": key },
      });
    const busy = await call("running-5s");
    expect(busy.status).toBe(409);
    expect(busy.json.error.code).toBe("IDEMPOTENCY_KEY_IN_USE");
    const retaken = await call("crashed-61s");
    expect(retaken.status).toBe(200);
    const replay = await call("crashed-61s");
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.json.data).toEqual(retaken.json.data);
  });

  describe("JSON bodies keep their types", () => {
    const create = (body: Record<string, unknown>) =>
      request(server.url, "/api/checkout", {
        body: { orderId: `ORDER_T${Math.random().toString(36).slice(2, 10)}`, amount: "499", ...body },
        headers: payHeaders(),
      });

    it.each([
      ["lat", true],
      ["lng", []],
      ["lat", "12.5"],
      ["expiresInMinutes", "0x10"],
      ["expiresInMinutes", "30"],
    ])("%s: %j → 400 VALIDATION_ERROR", async (field, value) => {
      const r = await create({ [field]: value });
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe("VALIDATION_ERROR");
      expect(r.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it("still takes the amount as a number or a numeric string", async () => {
      expect((await create({ amount: "499.50" })).json.data.amount).toBe("499.50");
      expect((await create({ amount: 12 })).json.data.amount).toBe("12.00");
      expect((await create({ lat: 12.97, lng: 77.59, expiresInMinutes: 16 })).status).toBe(200);
    });
  });

  it("keeps the data folder and the database private to the server's user, also when they were created open", async () => {
    // A folder and database from an older run, readable by everyone.
    const dataDir = path.join(tempDataDir(), "data");
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    // Without keys in its environment the server generates its own into the data folder.
    const noKeys = { ENCRYPTION_KEY: undefined, HASH_KEY: undefined, NEXTAUTH_SECRET: undefined };
    const own = await startServer({ databaseUrl: `file:${path.join(dataDir, "parakh.db")}`, env: { DATA_DIR: dataDir, ...noKeys } });
    try {
      await request(own.url, "/api/ready");
      expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
      const files = fs.readdirSync(dataDir);
      expect(files).toEqual(expect.arrayContaining(["parakh.db", "secrets.json"]));
      for (const f of files) expect(fs.statSync(path.join(dataDir, f)).mode & 0o777, f).toBe(0o600);
      fs.chmodSync(path.join(dataDir, "parakh.db"), 0o644);
    } finally {
      await own.stop();
    }
    const again = await startServer({ databaseUrl: `file:${path.join(dataDir, "parakh.db")}`, env: { DATA_DIR: dataDir, ...noKeys } });
    try {
      expect(fs.statSync(path.join(dataDir, "parakh.db")).mode & 0o777).toBe(0o600);
    } finally {
      await again.stop();
    }
  });
});
