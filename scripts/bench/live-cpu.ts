import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { createPrismaClient } from "@/server/db/client";
import { createApiKey } from "@/server/services/auth/api-keys";
import { approveGoLive } from "@/server/services/merchants/merchants";
import { bundleIfStale } from "../build-server";
import { startBenchVendorProcess, type BenchVendor } from "./fake-vendor";
import { peakRssMbOf, startListening, startNodeFlags, statFields, stopChild } from "./proc";
import { waitForJson } from "./wait";

/**
 * `npx tsx scripts/bench/live-cpu.ts`: live PAN verify behind the bench's fake vendor, which runs in a
 * process of its own, so that the server's, the vendor's and the load generator's CPU per request are
 * each measured. The quick loop for the live path's CPU (`BENCH_ONLY=live npm run bench` is the full
 * picture). Options (env): BENCH_VENDOR_LATENCY_MS (default 250), BENCH_CONNECTIONS (600),
 * BENCH_SECONDS (5), BENCH_RATE (requests a second; unset: as fast as answered), PROFILE_DIR (a V8 CPU
 * profile of the server there, summarised by ./profile-top.ts), BENCH_SERVER_ROOT (whose dist/server.mjs),
 * BENCH_NODE_FLAGS (more node flags for the server, e.g. --trace-gc), BENCH_SERVER_STDOUT (a file for the server's stdout).
 */
const ROOT = path.resolve(__dirname, "../..");
const SERVER_ROOT = path.resolve(process.env.BENCH_SERVER_ROOT ?? ROOT);
const LATENCY_MS = Number(process.env.BENCH_VENDOR_LATENCY_MS ?? 250);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 600);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
const PROFILE_DIR = process.env.PROFILE_DIR;
const TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

const cpuOf = (pid: number) => {
  const f = statFields(pid);
  return (Number(f[11]) + Number(f[12])) / TICKS;
};
const systemCpuOf = (pid: number) => Number(statFields(pid)[12]) / TICKS;

/** The production server (its bundle, `npm start`'s flags) on a fresh SQLite database, live verification through `vendor`. */
async function startServer(vendor: BenchVendor, dataDir: string) {
  const prof = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [];
  const extra = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  const server = await startListening([...prof, ...extra, ...startNodeFlags(), path.join(SERVER_ROOT, "dist/server.mjs")], SERVER_ROOT, {
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DATABASE_URL: `file:${path.join(dataDir, "parakh.db")}`,
    SEED_DEMO: "true",
    SERVE_PAGES: "false",
    WEB_CONCURRENCY: "1",
    LOG_LEVEL: "info",
    LIVE_VERIFICATION_PROVIDER: "cashfree",
    CASHFREE_VERIFICATION_BASE_URL: vendor.url,
    CASHFREE_VERIFICATION_CLIENT_ID: vendor.clientId,
    CASHFREE_VERIFICATION_CLIENT_SECRET: vendor.clientSecret,
    UPSTREAM_MAX_CONCURRENCY: String(Math.max(64, CONNECTIONS)),
    HTTP_MAX_CONNECTIONS_PER_IP: String(Math.max(512, CONNECTIONS) + 64),
    RATE_LIMIT_PER_SECOND: "1000000",
  });
  if (process.env.BENCH_SERVER_STDOUT) server.child.stdout!.pipe(fs.createWriteStream(process.env.BENCH_SERVER_STDOUT));
  return server;
}

async function main() {
  await bundleIfStale();
  const vendor = await startBenchVendorProcess();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-livecpu-"));
  const databaseUrl = `file:${path.join(dataDir, "parakh.db")}`;
  const server = await startServer(vendor, dataDir);
  const pid = server.child.pid!;
  try {
    const creds = await waitForJson<{ merchantId: string }>(path.join(dataDir, "demo-credentials.json"));
    const setup = createPrismaClient(databaseUrl);
    await approveGoLive(setup, creds.merchantId);
    const liveKey = await createApiKey(setup, creds.merchantId, "live", "bench");
    await setup.$disconnect();
    const opts = {
      url: `http://127.0.0.1:${server.port}/v1/identity/pan/verify`,
      method: "POST" as const,
      headers: { "content-type": "application/json", authorization: `Bearer ${liveKey.secretKey}` },
      body: JSON.stringify({ pan: "ABCPK1234F", name: "Arjun Kapoor", consent: true, purpose: "Employee onboarding identity check" }),
      connections: CONNECTIONS,
    };
    await vendor.setLatency(LATENCY_MS);
    await autocannon({ ...opts, duration: 2 });
    const v0 = { panCalls: await vendor.panCalls(), connections: await vendor.connections(), cpuUs: await vendor.cpuUs() };
    const s0 = cpuOf(pid);
    const k0 = systemCpuOf(pid);
    const l0 = process.cpuUsage();
    // BENCH_SNAPSHOT_AT_S: a signal half-way for a heap snapshot (with BENCH_NODE_FLAGS=--heapsnapshot-signal=SIGUSR2).
    const snapshotAt = Number(process.env.BENCH_SNAPSHOT_AT_S ?? 0);
    const snap = snapshotAt > 0 ? setTimeout(() => server.child.kill("SIGUSR2"), snapshotAt * 1000) : undefined;
    // BENCH_SIGNAL_AROUND: SIGUSR2 when the measured run starts and when it ends (a preloaded sampler's start and stop).
    if (process.env.BENCH_SIGNAL_AROUND) server.child.kill("SIGUSR2");
    const r = await autocannon({ ...opts, duration: SECONDS, ...(RATE ? { overallRate: RATE } : {}) });
    clearTimeout(snap);
    if (process.env.BENCH_SIGNAL_AROUND) server.child.kill("SIGUSR2");
    const l1 = process.cpuUsage(l0);
    const s1 = cpuOf(pid);
    const k1 = systemCpuOf(pid);
    const v1 = { panCalls: await vendor.panCalls(), connections: await vendor.connections(), cpuUs: await vendor.cpuUs() };
    const n = r.requests.total;
    process.stdout.write(`requests ${n}\n`);
    const per = (us: number) => Math.round(us / n);
    const calls = v1.panCalls - v0.panCalls;
    process.stdout.write(
      `vendor ${LATENCY_MS} ms, ${CONNECTIONS} connections${RATE ? `, ${RATE}/s asked` : ""}: ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ` +
        `${r.errors + r.timeouts} errors, ${r.non2xx} non-2xx; CPU µs/req: server ${per((s1 - s0) * 1e6)} (${per((k1 - k0) * 1e6)} in the kernel), vendor ${per(v1.cpuUs - v0.cpuUs)}, ` +
        `load generator ${per(l1.user + l1.system)}; vendor connections opened per 1,000 calls ${calls ? Math.round(((v1.connections - v0.connections) * 10000) / calls) / 10 : "-"}; ` +
        `server peak RSS ${Math.round(peakRssMbOf(pid))} MB\n`,
    );
    if (PROFILE_DIR) {
      await stopChild(server.child);
      const dir = path.resolve(PROFILE_DIR);
      const newest = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith(".cpuprofile"))
        .map((f) => path.join(dir, f))
        .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]!;
      spawnSync(process.execPath, ["--import", "tsx", path.join(__dirname, "profile-top.ts"), newest, String(n), String(SECONDS + 1)], {
        cwd: ROOT,
        stdio: "inherit",
      });
    }
  } finally {
    await stopChild(server.child);
    await vendor.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
