import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { createMerchantViaCli, startServer, type MerchantFixture, type TestServer } from "../helpers/server";

/**
 * The audit record is committed before its response is sent, and a record that cannot be written
 * turns the answer into 503 SERVICE_UNAVAILABLE. The server groups records for AUDIT_FLUSH_MS
 * (200 ms here) before committing, so a response sent ahead of its commit would arrive a good
 * 200 ms before the record exists; the test reads the database the moment each response arrives.
 */
describe("audit log durability (SQLite, AUDIT_FLUSH_MS=200)", () => {
  let server: TestServer;
  let m: MerchantFixture;
  let reader: Database.Database;
  let writer: Database.Database;

  const verify = (requestId: string, body: unknown = { pan: "ABCPK1234F" }) =>
    request(server.url, "/v1/identity/pan/verify", {
      method: "POST",
      body,
      headers: { Authorization: `Bearer ${m.sandbox.secretKey}`, "X-Request-Id": requestId },
    });

  beforeAll(async () => {
    server = await startServer({ env: { AUDIT_FLUSH_MS: "200" } });
    m = await createMerchantViaCli(server.env);
    const file = server.databaseUrl.replace(/^file:/, "");
    reader = new Database(file, { readonly: true });
    writer = new Database(file);
    writer.pragma("busy_timeout = 5000");
  });
  afterAll(async () => {
    writer?.exec('DROP TRIGGER IF EXISTS "test_audit_unwritable"');
    reader?.close();
    writer?.close();
    await server?.stop();
  });

  it("has every record committed when its response arrives (40 concurrent calls, errors included)", async () => {
    const find = reader.prepare<[string], { status: number; merchantId: string | null; errorCode: string | null }>(
      'SELECT "status", "merchantId", "errorCode" FROM "AuditLog" WHERE "requestId" = ?',
    );
    const seenAtArrival = new Map<string, ReturnType<typeof find.get>>();
    const calls = Array.from({ length: 40 }, (_, i) => {
      const id = `durable-${i}`;
      // Every fourth call is an error (INVALID_PAN): errors are recorded before they leave too.
      const body = i % 4 === 3 ? { pan: "bad" } : { pan: "ABCPK1234F" };
      return verify(id, body).then((r) => {
        // Synchronously, before anything else runs: the record must already be there.
        seenAtArrival.set(id, find.get(id));
        return r;
      });
    });
    const responses = await Promise.all(calls);
    responses.forEach((r, i) => {
      const id = `durable-${i}`;
      expect(r.headers["x-request-id"]).toBe(id);
      expect(seenAtArrival.get(id), `audit record of ${id} when its response arrived`).toEqual({
        status: r.status,
        merchantId: m.merchantId,
        errorCode: r.status === 200 ? null : "INVALID_PAN",
      });
    });
    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([200, 400]));
  });

  it("answers 503 SERVICE_UNAVAILABLE in each envelope when the record cannot be written, and recovers", async () => {
    // From outside the server: every insert into the audit table now fails.
    writer.exec(`CREATE TRIGGER "test_audit_unwritable" BEFORE INSERT ON "AuditLog" BEGIN SELECT RAISE(ABORT, 'audit log unwritable (test)'); END`);
    try {
      const v1 = await verify("unwritable-v1");
      expect(v1.status).toBe(503);
      expect(v1.json).toEqual({
        status: "error",
        error: expect.objectContaining({ code: "SERVICE_UNAVAILABLE" }),
        request_id: "unwritable-v1",
        timestamp: expect.any(String),
      });
      expect(v1.text).not.toContain("ABCPK1234F");

      const api = await request(server.url, "/api/payments/pay_0_missing/status", { headers: { "X-Request-Id": "unwritable-api" } });
      expect(api.status).toBe(503);
      expect(api.json).toEqual({ success: false, error: expect.objectContaining({ code: "SERVICE_UNAVAILABLE" }), requestId: "unwritable-api" });
    } finally {
      writer.exec('DROP TRIGGER IF EXISTS "test_audit_unwritable"');
    }
    const back = await verify("writable-again");
    expect(back.status).toBe(200);
    expect(back.json.data.pan).toBe("ABCPK1234F");
    expect(reader.prepare('SELECT "status" FROM "AuditLog" WHERE "requestId" = ?').get("writable-again")).toEqual({ status: 200 });
    expect(reader.prepare('SELECT COUNT(*) AS n FROM "AuditLog" WHERE "requestId" LIKE ?').get("unwritable-%")).toEqual({ n: 0 });
  });
});
