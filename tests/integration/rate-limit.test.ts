import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { request, type HttpResult } from "../helpers/http";
import { createMerchantViaCli, startServer, type MerchantFixture, type TestServer } from "../helpers/server";
import { sleep } from "../helpers/wait";

/** A server whose per-key limit is one request per second (burst of one): easy to exceed on purpose. */
describe("per-key rate limit (RATE_LIMIT_PER_SECOND=1)", () => {
  let server: TestServer;
  let db: Db;
  let m: MerchantFixture;
  let other: MerchantFixture;
  let n = 0;

  const verify = (who: MerchantFixture, extra: Record<string, string> = {}, body: unknown = { pan: "ABCPK1234F" }) =>
    request(server.url, "/v1/identity/pan/verify", {
      method: "POST",
      body,
      headers: { Authorization: `Bearer ${who.sandbox.secretKey}`, "X-Request-Id": `rl-${n++}`, ...extra },
    });

  function retryAfterOf(r: HttpResult): number {
    expect(r.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    return Number(r.headers["retry-after"]);
  }

  beforeAll(async () => {
    server = await startServer({ env: { RATE_LIMIT_PER_SECOND: "1" } });
    db = createPrismaClient(server.databaseUrl);
    [m, other] = await Promise.all([createMerchantViaCli(server.env, "Limited"), createMerchantViaCli(server.env, "Neighbour")]);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await server?.stop();
  });

  it("refuses calls over the limit with 429 RATE_LIMITED and Retry-After, per key, and lets the retry through after Retry-After", async () => {
    const burst = await Promise.all(Array.from({ length: 6 }, () => verify(m)));
    const refused = burst.filter((r) => r.status === 429);
    expect(burst.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(burst.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    for (const r of refused) {
      expect(r.json).toMatchObject({ status: "error", error: { code: "RATE_LIMITED" }, request_id: r.headers["x-request-id"] });
      expect(r.json.data).toBeUndefined();
      retryAfterOf(r);
    }
    // The refused call is in the merchant's own log, with its merchant and code.
    const row = await db.auditLog.findFirst({ where: { requestId: refused[0]!.headers["x-request-id"] as string } });
    expect(row).toMatchObject({ status: 429, errorCode: "RATE_LIMITED", merchantId: m.merchantId });

    // Another key has its own bucket.
    expect((await verify(other)).status).toBe(200);

    // Waiting what Retry-After says is enough (the wait is the value under test, not a guess).
    await sleep(Math.max(...refused.map(retryAfterOf)) * 1000);
    expect((await verify(m)).status).toBe(200);
  });

  it("does not store a 429 under an Idempotency-Key: the retry with the same key runs", async () => {
    const body = { pan: "ABCPK1234F", name: "Arjun Kapoor" };
    let key = "";
    let limited: HttpResult | undefined;
    // Empty the bucket, then send the keyed call; on a machine slow enough to refill the bucket in
    // between, start over with a fresh key.
    for (let round = 0; round < 5 && !limited; round++) {
      for (let i = 0; i < 10 && (await verify(m)).status !== 429; i++);
      key = `rl-idem-${round}`;
      const r = await verify(m, { "Idempotency-Key": key }, body);
      if (r.status === 429) limited = r;
    }
    expect(limited?.json.error.code).toBe("RATE_LIMITED");
    await sleep(retryAfterOf(limited!) * 1000);
    const retry = await verify(m, { "Idempotency-Key": key }, body);
    expect(retry.status).toBe(200);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    expect(retry.json.data).toMatchObject({ pan: "ABCPK1234F", status: "VALID" });
  });
});
