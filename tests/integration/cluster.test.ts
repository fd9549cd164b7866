import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { cli, createMerchantViaCli, type MerchantFixture, type TestServer } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { sleep, waitFor } from "../helpers/wait";
import { request } from "../helpers/http";
import { parseScrape, valueOf } from "../helpers/prometheus";

const PAN = { pan: "ABCPK1234F" };

/**
 * PAN verify with a key. Without an agent each call opens a new connection, which the primary hands
 * to the next worker in turn; `localAddress` (another loopback address) is a client of its own.
 */
const METRICS_TOKEN = "cluster-metrics-token-0123456789abcdef";

function verify(server: TestServer, secretKey: string, requestId: string, agent: http.Agent | false = false, localAddress?: string) {
  return new Promise<number>((resolve, reject) => {
    const body = JSON.stringify(PAN);
    const req = http.request(`${server.url}/v1/identity/pan/verify`, {
      method: "POST",
      agent,
      localAddress,
      headers: { Authorization: `Bearer ${secretKey}`, "Content-Type": "application/json", "Content-Length": String(body.length), "X-Request-Id": requestId },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Pids of the workers that logged "listening" (in order of their first line). */
function workerPids(server: TestServer): number[] {
  const pids = [...server.logs().matchAll(/"msg":"listening"[^\n]*"pid":(\d+)/g)].map((m) => Number(m[1]));
  return [...new Set(pids)];
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A 2-worker server per database. Its limits are small so that one bucket and one count are easy
 * to tell from two; the steady clients of the restart test each use their own key, below its limit.
 * The limits do not depend on the database: they and the crash are tested on SQLite only.
 */
describe.each(DB_TARGETS)("two workers on %s (RATE_LIMIT_PER_SECOND=10, AUTH_FAILURES_PER_MINUTE=5)", (target) => {
  let started: Started;
  let server: TestServer;
  let m: MerchantFixture;
  let steady: MerchantFixture[];
  let db: Db;
  const sqliteOnly = target === "sqlite" ? it : it.skip;

  beforeAll(async () => {
    started = await startFor(target, { WEB_CONCURRENCY: "2", RATE_LIMIT_PER_SECOND: "10", AUTH_FAILURES_PER_MINUTE: "5", METRICS_TOKEN });
    server = started.server;
    db = createPrismaClient(server.databaseUrl);
    [m, ...steady] = await Promise.all(["Limited", "Steady 0", "Steady 1", "Steady 2", "Steady 3"].map((name) => createMerchantViaCli(server.env, name)));
    await waitFor("both workers listening", () => workerPids(server).length === 2, 30_000);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await started?.stop();
  });

  sqliteOnly("admits one key's burst once across both workers, not once per worker", async () => {
    const started = Date.now();
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => verify(server, m.sandbox.secretKey, `burst-${i}`)));
    const elapsed = (Date.now() - started) / 1000;
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    // One bucket: a burst of 10 plus what 10 per second refills while the requests ran.
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(10 + Math.ceil(10 * elapsed));
  });

  sqliteOnly("gives the whole limit to a key whose calls all arrive on one keep-alive connection", async () => {
    await sleep(1100); // the bucket refills
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push(await verify(server, m.sandbox.secretKey, `one-conn-${i}`, agent));
    const elapsed = (Date.now() - started) / 1000;
    agent.destroy();
    const admitted = statuses.filter((s) => s === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(10 + Math.ceil(10 * elapsed));
  });

  sqliteOnly("stops honouring a revoked key on every worker within a second", async () => {
    const other = await createMerchantViaCli(server.env, "Revoked");
    // Both workers have the key cached.
    for (let i = 0; i < 4; i++) expect(await verify(server, other.sandbox.secretKey, `pre-revoke-${i}`)).toBe(200);
    const keys = await cli(server.env, ["key", "list", "--merchant", other.merchantId, "--json"]);
    const keyId = keys.json.keys[0].keyId as string;
    expect((await cli(server.env, ["key", "revoke", "--merchant", other.merchantId, "--key", keyId, "--json"])).code).toBe(0);
    await sleep(1000);
    // Four new connections: two on each worker (each refusal counts toward the address's 5 a minute).
    const after = await Promise.all(Array.from({ length: 4 }, (_, i) => verify(server, other.sandbox.secretKey, `post-revoke-${i}`, false, "127.0.0.3")));
    expect(after).toEqual(Array(4).fill(401));
  });
  sqliteOnly("counts refused credentials per address across both workers", async () => {
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => verify(server, "sk_test_not_a_real_key_000000000000", `bad-${i}`, false, "127.0.0.2")),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });

  sqliteOnly("answers /metrics on any worker with the requests of both", async () => {
    const counted = async () => {
      const r = await request(server.url, "/metrics", { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(r.status).toBe(200);
      return valueOf(parseScrape(r.text), "parakh_http_requests_total", { method: "POST", route: "/v1/identity/pan/verify", status_class: "2xx" });
    };
    const metered = await createMerchantViaCli(server.env, "Metered");
    const before = await counted();
    // A connection each: the primary hands new connections to the workers in turn.
    const statuses = await Promise.all(Array.from({ length: 8 }, (_, i) => verify(server, metered.sandbox.secretKey, `metered-${i}`)));
    expect(statuses).toEqual(Array(8).fill(200));
    // Two scrapes on new connections (so on both workers), each with all eight.
    expect((await counted()) - before).toBe(8);
    expect((await counted()) - before).toBe(8);
  });

  it("replaces every worker on SIGHUP while four clients keep calling: no request fails, each is audited once", async () => {
    const before = workerPids(server);
    let running = true;
    let sent = 0;
    const failures: string[] = [];
    // Each client calls with its own key, one call at a time, about 8 a second (under the key's 10).
    const client = async (c: number) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; running; i++) {
        sent++;
        const next = sleep(125);
        const status = await verify(server, steady[c]!.sandbox.secretKey, `steady-${c}-${i}`, agent).catch((err: Error) => `${err.message}`);
        if (status !== 200) failures.push(`steady-${c}-${i}: ${status}`);
        await next;
      }
      agent.destroy();
    };
    const clients = [0, 1, 2, 3].map(client);
    await sleep(500);
    process.kill(server.pid, "SIGHUP");
    await waitFor("the workers replaced", () => server.logs().includes('"msg":"workers replaced"'), 30_000, 100);
    await sleep(500);
    running = false;
    await Promise.all(clients);

    expect(failures).toEqual([]);
    const after = workerPids(server).filter((pid) => !before.includes(pid));
    expect(after).toHaveLength(2);
    await waitFor("the replaced workers gone", () => before.every((pid) => !alive(pid)), 15_000);
    expect(await db.auditLog.count({ where: { requestId: { startsWith: "steady-" } } })).toBe(sent);
    expect(sent).toBeGreaterThan(30);
  });

  sqliteOnly("restarts a worker killed with SIGKILL, and keeps answering meanwhile", async () => {
    const current = workerPids(server).filter(alive);
    expect(current).toHaveLength(2);
    process.kill(current[0]!, "SIGKILL");
    await waitFor("the crash noticed", () => server.logs().includes('"signal":"SIGKILL"'), 10_000);
    const meanwhile = await Promise.all(Array.from({ length: 6 }, (_, i) => verify(server, m.sandbox.secretKey, `crash-${i}`)));
    expect(meanwhile).toEqual(Array(6).fill(200));
    await waitFor("a new worker", () => workerPids(server).filter(alive).length === 2, 30_000);
    expect(server.logs()).toMatch(/"msg":"worker exited; restarting it"[^\n]*"code":null,"signal":"SIGKILL"/);
    const afterwards = await Promise.all(Array.from({ length: 6 }, (_, i) => verify(server, m.sandbox.secretKey, `restarted-${i}`)));
    expect(afterwards).toEqual(Array(6).fill(200));
  });
});
