import { describe, expect, it } from "vitest";
import { createPrismaClient } from "@/server/db/client";
import http from "node:http";
import { createMerchantViaCli, startServer } from "../helpers/server";

describe("server lifecycle", () => {
  it("finishes in-flight requests and commits their audit records on SIGTERM, then exits 0", async () => {
    const server = await startServer();
    const m = await createMerchantViaCli(server.env);
    const body = JSON.stringify({ pan: "ABCPK1234F" });
    // Requests whose bodies are still arriving when SIGTERM lands: they are in flight for certain.
    const inflight = Array.from({ length: 5 }, (_, i) => {
      const req = http.request(`${server.url}/v1/identity/pan/verify`, {
        method: "POST",
        agent: false,
        headers: {
          Authorization: `Bearer ${m.sandbox.secretKey}`,
          "Content-Type": "application/json",
          "Content-Length": String(body.length),
          "X-Request-Id": `shutdown-${i}`,
        },
      });
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        req.on("response", (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on("error", reject);
      });
      req.write(body.slice(0, 10));
      return { req, answer };
    });
    await new Promise((r) => setTimeout(r, 300));
    const exited = server.stop("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    for (const { req } of inflight) req.end(body.slice(10));
    const answers = await Promise.all(inflight.map((f) => f.answer));
    expect(await exited).toBe(0);
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const db = createPrismaClient(server.databaseUrl);
    const audited = await db.auditLog.count({ where: { requestId: { startsWith: "shutdown-" } } });
    await db.$disconnect();
    expect(audited).toBe(5);
    expect(server.logs()).toContain('"msg":"stopped"');
  });

  it("refuses to start with a clear message on invalid configuration", async () => {
    await expect(startServer({ env: { PORT: "not-a-port" } })).rejects.toThrow(/Invalid configuration[\s\S]*PORT/);
  });
});
