import { describe, expect, it } from "vitest";
import { createPrismaClient } from "@/server/db/client";
import { request } from "../helpers/http";
import { createMerchantViaCli, startServer } from "../helpers/server";

describe("server lifecycle", () => {
  it("finishes in-flight requests and commits their audit records on SIGTERM, then exits 0", async () => {
    const server = await startServer();
    const m = await createMerchantViaCli(server.env);
    const headers = { Authorization: `Bearer ${m.sandbox.secretKey}` };
    const inflight = Array.from({ length: 40 }, (_, i) =>
      request(server.url, "/v1/identity/pan/verify", { method: "POST", body: { pan: "ABCPK1234F" }, headers: { ...headers, "X-Request-Id": `shutdown-${i}` } }),
    );
    const settled = Promise.allSettled(inflight);
    await new Promise((r) => setTimeout(r, 5));
    const code = await server.stop("SIGTERM");
    const results = await settled;
    const answered = results.filter((r) => r.status === "fulfilled").map((r) => (r as PromiseFulfilledResult<{ status: number }>).value);
    expect(code).toBe(0);
    expect(answered.length).toBeGreaterThan(0);
    for (const r of answered) expect(r.status).toBe(200);
    const db = createPrismaClient(server.databaseUrl);
    const audited = await db.auditLog.count({ where: { requestId: { startsWith: "shutdown-" } } });
    await db.$disconnect();
    // Every answered request has its record; nothing that was answered went unrecorded.
    expect(audited).toBeGreaterThanOrEqual(answered.length);
    expect(server.logs()).toContain('"msg":"stopped"');
  });

  it("refuses to start with a clear message on invalid configuration", async () => {
    await expect(startServer({ env: { PORT: "not-a-port" } })).rejects.toThrow(/Invalid configuration[\s\S]*PORT/);
  });
});
