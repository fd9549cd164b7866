import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { createPrismaClient } from "@/server/db/client";
import { startPostgres } from "../../tests/helpers/postgres";
import { rollingRestart, serverStatus, statRow } from "../haproxy-restart";
import { waitForJson } from "./wait";

/**
 * Two Parakh instances on one PostgreSQL behind HAProxy, configured by deploy/haproxy/haproxy.cfg
 * itself (only addresses, ports and the socket path changed), under steady load while
 * `npm run -s restart:haproxy`'s rolling restart replaces both: the failed requests (the goal is 0).
 */
export const HAPROXY_BIN = process.env.HAPROXY_BIN ?? "/usr/sbin/haproxy";
const EXAMPLE = path.resolve(__dirname, "../../deploy/haproxy/haproxy.cfg");
const CONNECTIONS = 20;
const BACKEND = "parakh";
const SERVER_ENV = {
  NODE_ENV: "production",
  HOST: "127.0.0.1",
  SERVE_PAGES: String(fs.existsSync(path.resolve(__dirname, "../../.next/BUILD_ID"))),
  WEB_CONCURRENCY: "1",
  LOG_LEVEL: "info",
};

interface Instance {
  child: { pid?: number };
  peakRssMb: () => number;
  stop: () => Promise<void>;
}

export interface HaproxyBench {
  /** Why the phase did not run. */
  skipped?: string;
  requests: number;
  /** Connection errors, timeouts and non-2xx answers through HAProxy while both instances restarted. */
  failed: number;
  restartMs: number;
  perServer: { server: string; ms: number }[];
  /** HAProxy's own count for the backend over the whole phase: errors reading an answer, requests sent to the other instance after a failed connection, 5xx it answered. */
  haproxySaw?: { responseErrors: number; redispatched: number; answered5xx: number };
  peakRssMb: number[];
  /** The client address the request log holds for a call made through HAProxy from CALLER. */
  recordedClientIp?: string;
}

const CALLER = "127.0.0.2";

/** One call through HAProxy from another loopback address: with TRUSTED_PROXIES the log names the caller, not HAProxy. */
async function recordedAddress(front: number, secretKey: string, databaseUrl: string): Promise<string | undefined> {
  const userAgent = `parakh-bench-${crypto.randomUUID()}`;
  await new Promise<void>((resolve, reject) => {
    const req = http.request(`http://127.0.0.1:${front}/v1/identity/pan/verify`, {
      method: "POST",
      localAddress: CALLER,
      agent: false,
      headers: { "content-type": "application/json", authorization: `Bearer ${secretKey}`, "user-agent": userAgent },
    });
    req.on("response", (res) => res.resume().on("end", resolve));
    req.on("error", reject);
    req.end(JSON.stringify({ pan: "ABCPK1234F", name: "Arjun Kapoor" }));
  });
  const db = createPrismaClient(databaseUrl);
  try {
    return (await db.auditLog.findFirst({ where: { userAgent } }))?.clientIp;
  } finally {
    await db.$disconnect();
  }
}

/** The example with loopback ports, a socket of its own and no user switch (the bench need not run as root). */
export function benchConfig(example: string, ports: { front: number; app1: number; app2: number }, socket: string): string {
  const replacements: [RegExp, string][] = [
    [/^(\s*bind) :80$/m, `$1 127.0.0.1:${ports.front}`],
    [/^(\s*server app1) 10\.0\.0\.11:3000$/m, `$1 127.0.0.1:${ports.app1}`],
    [/^(\s*server app2) 10\.0\.0\.12:3000$/m, `$1 127.0.0.1:${ports.app2}`],
    [/^(\s*stats socket) \/run\/haproxy\/admin\.sock /m, `$1 ${socket} `],
    [/^\s*user haproxy\n/m, ""],
    [/^\s*group haproxy\n/m, ""],
  ];
  return replacements.reduce((text, [pattern, value]) => {
    if (!pattern.test(text)) throw new Error(`deploy/haproxy/haproxy.cfg no longer has a line matching ${pattern}: update the bench with it`);
    return text.replace(pattern, value);
  }, example);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`bench: gave up waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `startServer` runs server.ts with these settings added to the environment, as the other phases do; `postgres`: BENCH_DB includes PostgreSQL. */
export async function benchHaproxy(startServer: (env: Record<string, string>) => Promise<Instance>, postgres: boolean): Promise<HaproxyBench> {
  const skipped = (why: string) => ({ skipped: why, requests: 0, failed: 0, restartMs: 0, perServer: [], peakRssMb: [] });
  if (!postgres) return skipped("BENCH_DB has no postgresql (the two instances share one PostgreSQL)");
  if (!fs.existsSync(HAPROXY_BIN)) return skipped(`${HAPROXY_BIN} not found (apt-get install -y haproxy)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-haproxy-"));
  const pg = await startPostgres();
  const ports = { front: await freePort(), app1: await freePort(), app2: await freePort() };
  // Every instance must hold the same keys (stored secrets, key hashes, sessions): given, not generated.
  const key = () => crypto.randomBytes(32).toString("base64");
  const shared = { ...SERVER_ENV, DATABASE_URL: pg.url, ENCRYPTION_KEY: key(), HASH_KEY: key(), NEXTAUTH_SECRET: key(), TRUSTED_PROXIES: "127.0.0.1" };
  const envOf: Record<string, Record<string, string>> = {
    app1: { ...shared, PORT: String(ports.app1), DATA_DIR: path.join(dir, "app1"), SEED_DEMO: "true" },
    app2: { ...shared, PORT: String(ports.app2), DATA_DIR: path.join(dir, "app2"), SEED_DEMO: "false" },
  };
  const instances: Record<string, Instance> = {};
  const peaks: Record<string, number> = { app1: 0, app2: 0 };
  const stopInstance = async (name: string) => {
    await instances[name]!.stop();
    peaks[name] = Math.max(peaks[name]!, instances[name]!.peakRssMb());
  };
  const socket = path.join(dir, "admin.sock");
  const cfg = path.join(dir, "haproxy.cfg");
  fs.writeFileSync(cfg, benchConfig(fs.readFileSync(EXAMPLE, "utf8"), ports, socket));
  const haproxy = spawn(HAPROXY_BIN, ["-f", cfg, "-db"], { stdio: ["ignore", "ignore", "pipe"] });
  let haproxyLog = "";
  haproxy.stderr.on("data", (c: Buffer) => (haproxyLog = (haproxyLog + c.toString()).slice(-4000)));
  try {
    // The first start migrates and seeds; the second finds both done.
    instances.app1 = await startServer(envOf.app1!);
    instances.app2 = await startServer(envOf.app2!);
    for (const name of ["app1", "app2"]) {
      await until(`HAProxy sees ${name} UP:\n${haproxyLog}`, async () => (await serverStatus(socket, BACKEND, name)).status === "UP");
    }
    const creds = await waitForJson<{ sandbox: { secretKey: string } }>(path.join(envOf.app1!.DATA_DIR!, "demo-credentials.json"));
    const opts: autocannon.Options = {
      url: `http://127.0.0.1:${ports.front}/v1/identity/pan/verify`,
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${creds.sandbox.secretKey}` },
      body: JSON.stringify({ pan: "ABCPK1234F", name: "Arjun Kapoor" }),
      connections: CONNECTIONS,
      duration: 600,
    };
    const restart = async (server: { name: string }) => {
      await stopInstance(server.name);
      instances[server.name] = await startServer(envOf[server.name]!);
    };
    const run = await restartUnderLoad(opts, socket, restart);
    const recordedClientIp = await recordedAddress(ports.front, creds.sandbox.secretKey, pg.url);
    const totals = await statRow(socket, BACKEND, "BACKEND");
    const haproxySaw = { responseErrors: Number(totals.eresp), redispatched: Number(totals.wredis), answered5xx: Number(totals.hrsp_5xx) };
    return { ...run, haproxySaw, recordedClientIp, peakRssMb: [peaks.app1!, peaks.app2!] };
  } finally {
    for (const name of Object.keys(instances)) await stopInstance(name);
    haproxy.kill("SIGTERM");
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Load through HAProxy from a second before the rolling restart until a second after it. */
async function restartUnderLoad(opts: autocannon.Options, socket: string, restart: (server: { name: string }) => Promise<void>) {
  let instance: autocannon.Instance | undefined;
  const result = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(opts, (err, r) => (err ? reject(err) : resolve(r)));
  });
  let perServer: { server: string; ms: number }[] = [];
  const t0 = Date.now();
  try {
    await new Promise((r) => setTimeout(r, 1000));
    perServer = await rollingRestart({ socket, backend: BACKEND, restart, timeoutMs: 120_000, log: () => {} });
  } finally {
    await new Promise((r) => setTimeout(r, 1000));
    instance!.stop();
  }
  const r = await result;
  return { requests: r.requests.total, failed: r.errors + r.timeouts + r.non2xx, restartMs: Date.now() - t0 - 2000, perServer };
}

/** The phase's lines under the bench table. */
export function haproxyReport(b: HaproxyBench): string[] {
  if (b.skipped) return ["", `HAProxy rolling restart: skipped, ${b.skipped}`];
  return [
    "",
    `HAProxy (deploy/haproxy/haproxy.cfg) in front of two instances on one PostgreSQL, PAN verify under ${CONNECTIONS} connections while ` +
      `npm run -s restart:haproxy drained, restarted and brought back both: ${b.requests} requests, ${b.failed} failed; ` +
      `${b.perServer.map((s) => `${s.server} ${s.ms} ms`).join(", ")} (${b.restartMs} ms in all); peak RSS per instance ${b.peakRssMb.join(", ")} MB`,
    `  A call from ${CALLER} through HAProxy is in the request log as from ${b.recordedClientIp ?? "(not found)"}${b.recordedClientIp === CALLER ? "" : " (NOT the caller: check TRUSTED_PROXIES)"}; HAProxy's count: ${b.haproxySaw?.responseErrors} response errors, ${b.haproxySaw?.redispatched} requests redispatched after a failed connection, ${b.haproxySaw?.answered5xx} answered 5xx`,
  ];
}
