import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { createPrismaClient } from "@/server/db/client";
import { CLI_OPERATOR } from "@/server/services/accounts/operator-actions";
import { createApiKey } from "@/server/services/auth/api-keys";
import { approveGoLive } from "@/server/services/merchants/merchants";
import { adjustWalletByOperator } from "@/server/services/wallet/operator";
import { startPostgres } from "../tests/helpers/postgres";
import { batchReport, benchBatch } from "./bench/batch";
import { benchBigPosts, bigPostsOnly, bigPostsReport } from "./bench/big-posts";
import { budgetsReport } from "./bench/budgets";
import { startBenchVendorProcess, type BenchVendor } from "./bench/fake-vendor";
import { benchLivePan, benchSlowVendorPan, livePanReport, slowVendorConnections, slowVendorReport, SLOW_VENDOR_LATENCIES_MS } from "./bench/live-pan";
import { childPids, childProcesses, peakRssMbOf, startNodeFlags, statFields } from "./bench/proc";
import { benchHaproxy, haproxyReport } from "./bench/haproxy";
import { benchKyc, type LedgerCheck } from "./bench/kyc";
import { benchRefunds } from "./bench/refunds";
import { waitForJson } from "./bench/wait";
import { bundleIfStale } from "./build-server";
import { benchTwoWorkers, workersReport } from "./bench/workers";

/**
 * `npm run bench`: the production server against a plain node:http baseline, in the same run.
 * Live PAN verify goes through the live adapter to a fake vendor in this process (./bench/live-pan.ts).
 * Options (env): BENCH_SECONDS (default 10), BENCH_CONNECTIONS (50),
 * BENCH_DB=sqlite|sqlite-normal|postgresql|both (both: SQLite with FULL and with NORMAL sync, and PostgreSQL;
 * with PostgreSQL, also the HAProxy rolling restart of ./bench/haproxy.ts),
 * BENCH_ONLY=haproxy or BENCH_ONLY=big-posts (that phase alone), BENCH_ONLY=batch (only single PAN verify
 * and the batch phase, which compares against it), BENCH_ONLY=kyc (only single PAN verify and PAN KYC, which
 * compares against it), BENCH_ONLY=live (single PAN verify, sandbox and live, and live behind a vendor answering
 * in 250 ms and in 1 s; BENCH_LIVE_CONNECTIONS sets the connections of those two runs).
 */
const ROOT = path.resolve(__dirname, "..");
const SERVER_BUNDLE = "dist/server.mjs";
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const BATCH_ONLY = process.env.BENCH_ONLY === "batch";
const KYC_ONLY = process.env.BENCH_ONLY === "kyc";
const LIVE_ONLY = process.env.BENCH_ONLY === "live";
/** The most connections any run opens: the general runs', or a slow-vendor run's. */
const MOST_CONNECTIONS = Math.max(CONNECTIONS, ...SLOW_VENDOR_LATENCIES_MS.map(slowVendorConnections));
const DBS = (process.env.BENCH_DB ?? "both") === "both" ? ["sqlite", "sqlite-normal", "postgresql"] : [process.env.BENCH_DB!];
type BenchDb = "sqlite" | "sqlite-normal" | "postgresql";

interface Proc {
  child: ChildProcess;
  port: number;
  peakRssMb: () => number;
  /** Each worker's (child process's) peak RSS, in the order they were first seen; replaced ones included. */
  workerPeakRssMb: () => number[];
  stop: () => Promise<void>;
}

function startProcess(args: string[], env: Record<string, string>): Promise<Proc> {
  // The server as `npm start` runs it (its bundle, with its node flags); other programs through the tsx
  // loader. node itself, not a launcher, so the sampled memory is the program's own.
  const node = args[0] === SERVER_BUNDLE ? [...startNodeFlags(), ...args] : ["--import", "tsx", ...args];
  const child = spawn(process.execPath, node, {
    cwd: ROOT,
    env: { ...process.env, PARAKH_ENV_FILE: "none", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let peak = 0;
  const workerPeaks = new Map<number, number>();
  const sampler = setInterval(() => {
    peak = Math.max(peak, peakRssMbOf(child.pid!));
    for (const pid of childPids(child.pid!)) workerPeaks.set(pid, Math.max(workerPeaks.get(pid) ?? 0, peakRssMbOf(pid)));
  }, 250);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`did not start:\n${out}`));
    }, 90_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /"msg":"listening"[^\n]*"port":(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stderr!.off("data", onData);
        child.stderr!.resume();
        resolve({
          child,
          port: Number(m[1]),
          peakRssMb: () => Math.round(peak),
          workerPeakRssMb: () => [...workerPeaks.values()].map(Math.round),
          stop: () =>
            new Promise((r) => {
              clearInterval(sampler);
              if (child.exitCode !== null) return r();
              child.once("exit", () => r());
              child.kill("SIGTERM");
            }),
        });
      }
    };
    child.stderr!.on("data", onData);
    child.stdout!.resume();
    child.once("exit", (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
}

interface Result {
  name: string;
  requestsPerSec: number;
  /** The server process's CPU time (user + system) per request of the measured run, in µs. */
  cpuUsPerReq?: number;
  /** The load generator's (this process's) CPU per request of the measured run, in µs. */
  loadCpuUsPerReq?: number;
  /** With a vendor: the fake vendor process's CPU per request of the measured run, in µs. */
  vendorCpuUsPerReq?: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/**
 * CPU seconds (user + system) a server has used, from /proc: the process and its children (a
 * cluster's workers, counted while they live); undefined where there is no /proc.
 */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const used = (fields: string[]) => (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
    return childProcesses(pid).reduce((total, c) => total + used(c.fields), used(statFields(pid)));
  } catch {
    return undefined;
  }
}

/**
 * Loads `opts.url` for SECONDS after a warm-up; with the server's pid, also its CPU per request, and
 * with the fake vendor, the vendor's (the three share the machine's cores).
 */
async function load(name: string, opts: autocannon.Options, serverPid?: number, vendor?: BenchVendor): Promise<Result> {
  // Short warm-up so JIT and caches are settled before measuring.
  await autocannon({ ...opts, duration: 2 });
  const cpuBefore = cpuSeconds(serverPid);
  const vendorBefore = await vendor?.cpuUs();
  const own = process.cpuUsage();
  const r = await autocannon({ ...opts, duration: SECONDS, connections: opts.connections ?? CONNECTIONS });
  const ownUsed = process.cpuUsage(own);
  const cpuAfter = cpuSeconds(serverPid);
  const vendorAfter = await vendor?.cpuUs();
  const perRequest = (us: number) => (r.requests.total > 0 ? Math.round(us / r.requests.total) : undefined);
  return {
    cpuUsPerReq: cpuBefore !== undefined && cpuAfter !== undefined ? perRequest((cpuAfter - cpuBefore) * 1e6) : undefined,
    loadCpuUsPerReq: perRequest(ownUsed.user + ownUsed.system),
    vendorCpuUsPerReq: vendorBefore !== undefined && vendorAfter !== undefined ? perRequest(vendorAfter - vendorBefore) : undefined,
    name,
    requestsPerSec: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    total: r.requests.total,
  };
}

/**
 * A production server on a fresh database with the demo merchant seeded and its sandbox wallet
 * funded, live verification through `vendor`, and the merchant approved for live with a live key.
 */
async function startBenchServer(db: BenchDb, vendor: BenchVendor, workers = 1) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-bench-"));
  const pg = db === "postgresql" ? await startPostgres() : undefined;
  const databaseUrl = pg?.url ?? `file:${path.join(dataDir, "parakh.db")}`;
  const pagesBuilt = fs.existsSync(path.join(ROOT, ".next/BUILD_ID"));
  const server = await startProcess([SERVER_BUNDLE], {
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    SEED_DEMO: "true",
    SERVE_PAGES: pagesBuilt ? "true" : "false",
    WEB_CONCURRENCY: String(workers),
    LOG_LEVEL: "info",
    SQLITE_SYNCHRONOUS: db === "sqlite-normal" ? "NORMAL" : "FULL",
    LIVE_VERIFICATION_PROVIDER: "cashfree",
    CASHFREE_VERIFICATION_BASE_URL: vendor.url,
    CASHFREE_VERIFICATION_CLIENT_ID: vendor.clientId,
    CASHFREE_VERIFICATION_CLIENT_SECRET: vendor.clientSecret,
    // Room for every connection, so the run measures the adapter path and not bulkhead refusals; the
    // load generator is one address, as a load balancer in front of the server would be.
    UPSTREAM_MAX_CONCURRENCY: String(Math.max(64, MOST_CONNECTIONS)),
    HTTP_MAX_CONNECTIONS_PER_IP: String(Math.max(512, MOST_CONNECTIONS) + 64),
    // Past the default 10,000 a second one key's PAN verify got 429s, cheaper than answers, that counted in its req/s.
    RATE_LIMIT_PER_SECOND: "1000000",
  });
  const creds = await waitForJson<{ merchantId: string; sandbox: { publicKey: string; secretKey: string } }>(path.join(dataDir, "demo-credentials.json"));
  // Enough balance that no KYC call of the run is refused for money.
  const setup = createPrismaClient(databaseUrl);
  await adjustWalletByOperator(setup, CLI_OPERATOR, {
    merchantId: creds.merchantId,
    mode: "sandbox",
    direction: "credit",
    amountPaise: 1_000_000_000,
    reason: "bench",
  });
  // What `npm run -s cli -- merchant go-live` and `key create --mode live` do.
  await approveGoLive(setup, creds.merchantId);
  const liveKey = await createApiKey(setup, creds.merchantId, "live", "bench");
  await setup.$disconnect();
  return { dataDir, pg, databaseUrl, pagesBuilt, server, creds, liveSecretKey: liveKey.secretKey };
}

/** Payment creation, the status GET of one payment and the checkout page's first byte. */
async function benchPayments(db: BenchDb, base: string, merchantHeaders: Record<string, string>, pid: number | undefined, pagesBuilt: boolean) {
  let order = 0;
  const checkout = await load(
    `POST /api/checkout (${db})`,
    {
      url: `${base}/api/checkout`,
      method: "POST",
      headers: { "content-type": "application/json", ...merchantHeaders },
      // Unique order ids: every request creates a payment.
      requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ orderId: `ORDER_bench_${process.pid}_${order++}`, amount: "499" }) }) }],
    },
    pid,
  );
  const one = await fetch(`${base}/api/checkout`, {
    method: "POST",
    headers: { "content-type": "application/json", ...merchantHeaders },
    body: JSON.stringify({ orderId: `ORDER_bench_status_${process.pid}`, amount: "10" }),
  }).then((r) => r.json() as Promise<{ data: { paymentId: string } }>);
  const status = await load(
    `GET /api/payments/:id/status (${db})`,
    { url: `${base}/api/payments/${one.data.paymentId}/status`, headers: merchantHeaders },
    pid,
  );
  const firstByte = pagesBuilt ? await timeFirstByte(`${base}/checkout/${one.data.paymentId}`) : null;
  return { checkout, status, firstByte };
}

async function benchParakh(db: BenchDb, baseline: Result, vendor: BenchVendor) {
  const { dataDir, pg, databaseUrl, pagesBuilt, server, creds, liveSecretKey } = await startBenchServer(db, vendor);
  const base = `http://127.0.0.1:${server.port}`;
  // Also the fake vendor's CPU: the live runs call it.
  const kycLoad = (name: string, opts: autocannon.Options) => load(name, opts, server.child.pid, vendor);
  const result = await load(
    `POST /v1/identity/pan/verify (${db})`,
    {
      url: `${base}/v1/identity/pan/verify`,
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${creds.sandbox.secretKey}` },
      body: JSON.stringify({ pan: "ABCPK1234F", name: "Arjun Kapoor" }),
    },
    server.child.pid,
  );
  if (BATCH_ONLY) {
    const batch = await benchBatch(db, base, creds.sandbox.secretKey, SECONDS);
    await server.stop();
    await pg?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    return [{ ...result, ratio: Math.round((result.requestsPerSec / baseline.requestsPerSec) * 100) / 100, peakRssMb: server.peakRssMb(), batch }];
  }
  if (KYC_ONLY) {
    const [panKyc] = await benchKyc(kycLoad, db, SECONDS, base, databaseUrl, dataDir, creds, true);
    await server.stop();
    await pg?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    const ratioToPanVerify = Math.round((panKyc!.requestsPerSec / result.requestsPerSec) * 100) / 100;
    return [
      { ...result, ratio: Math.round((result.requestsPerSec / baseline.requestsPerSec) * 100) / 100, peakRssMb: server.peakRssMb() },
      { ...panKyc!, ratio: Math.round((panKyc!.requestsPerSec / baseline.requestsPerSec) * 100) / 100, ratioToPanVerify, peakRssMb: server.peakRssMb() },
    ];
  }
  const live = await benchLivePan(`POST /v1/identity/pan/verify live (${db})`, base, liveSecretKey, vendor, kycLoad);
  const slow = await benchSlowVendorPan(db, base, liveSecretKey, vendor, kycLoad);
  const slowRows = slow.map((r) => ({ ...r, peakRssMb: server.peakRssMb() }));
  if (LIVE_ONLY) {
    await server.stop();
    await pg?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    const ratio = (r: Result) => Math.round((r.requestsPerSec / baseline.requestsPerSec) * 100) / 100;
    return [
      { ...result, ratio: ratio(result), peakRssMb: server.peakRssMb() },
      { ...live, ratio: ratio(live), ratioToSandbox: Math.round((live.requestsPerSec / result.requestsPerSec) * 100) / 100, peakRssMb: server.peakRssMb() },
      ...slowRows.map((r) => ({ ...r, ratio: ratio(r) })),
    ];
  }
  const batch = await benchBatch(db, base, creds.sandbox.secretKey, SECONDS);
  const kyc = await benchKyc(kycLoad, db, SECONDS, base, databaseUrl, dataDir, creds);
  const merchantHeaders = { "x-merchant-id": creds.merchantId, "x-api-key": creds.sandbox.publicKey, "x-secret-key": creds.sandbox.secretKey };
  const { checkout, status, firstByte } = await benchPayments(db, base, merchantHeaders, server.child.pid, pagesBuilt);
  const [refunds, bigPosts] = [await benchRefunds(base, databaseUrl, merchantHeaders, load, db), await benchBigPosts(db, base, databaseUrl, SECONDS)];
  await server.stop();
  const client = createPrismaClient(databaseUrl);
  const audited = await client.auditLog.count({ where: { path: "/v1/identity/pan/verify", mode: "sandbox" } });
  const liveAudited = await client.auditLog.count({ where: { path: "/v1/identity/pan/verify", mode: "live" } });
  await client.$disconnect();
  await pg?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  const ratio = (r: Result) => Math.round((r.requestsPerSec / baseline.requestsPerSec) * 100) / 100;
  return [
    { ...result, ratio: ratio(result), peakRssMb: server.peakRssMb(), audited, pagesBuilt, batch, bigPosts },
    {
      ...live,
      ratio: ratio(live),
      ratioToSandbox: Math.round((live.requestsPerSec / result.requestsPerSec) * 100) / 100,
      peakRssMb: server.peakRssMb(),
      audited: liveAudited,
    },
    ...slowRows.map((r) => ({ ...r, ratio: ratio(r) })),
    { ...checkout, ratio: ratio(checkout), peakRssMb: server.peakRssMb() },
    { ...status, ratio: ratio(status), peakRssMb: server.peakRssMb(), firstByte },
    { ...refunds, ratio: ratio(refunds), peakRssMb: server.peakRssMb() },
    ...kyc.map((k) => ({
      ...k,
      ratio: ratio(k),
      ratioToPanVerify: Math.round((k.requestsPerSec / result.requestsPerSec) * 100) / 100,
      peakRssMb: server.peakRssMb(),
    })),
  ];
}

/** Time to first byte of the hosted checkout page: median and worst of 20 sequential loads after a warm-up. */
async function timeFirstByte(url: string) {
  const times: number[] = [];
  for (let i = 0; i < 25; i++) {
    const t0 = performance.now();
    const res = await fetch(url);
    const reader = res.body!.getReader();
    await reader.read();
    if (i >= 5) times.push(performance.now() - t0);
    await reader.cancel();
  }
  times.sort((a, b) => a - b);
  return { medianMs: Math.round(times[Math.floor(times.length / 2)]!), maxMs: Math.round(times[times.length - 1]!) };
}

async function main() {
  // What `npm start` runs, built from the sources as they are now.
  await bundleIfStale();
  process.stderr.write(`Bench: ${SECONDS}s per run, ${CONNECTIONS} connections, ${os.cpus().length} cores, node ${process.version}\n`);
  const haproxyPhase = async (postgres = true) => haproxyReport(await benchHaproxy((env) => startProcess([SERVER_BUNDLE], env), postgres));
  if (process.env.BENCH_ONLY === "haproxy") return void process.stdout.write(`${(await haproxyPhase()).join("\n")}\n`);
  if (process.env.BENCH_ONLY === "big-posts") return bigPostsOnly(DBS, SECONDS, (db, vendor) => startBenchServer(db as BenchDb, vendor));
  const base = await startProcess(["scripts/bench/baseline-server.ts"], { PORT: "0" });
  const baseline = await load(
    "plain node:http JSON (baseline)",
    {
      url: `http://127.0.0.1:${base.port}/`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pan: "ABCPK1234F", name: "Arjun Kapoor" }),
    },
    base.child.pid,
  );
  await base.stop();
  const rows: Record<string, unknown>[] = [{ ...baseline, ratio: 1, peakRssMb: base.peakRssMb() }];
  const vendor = await startBenchVendorProcess();
  try {
    for (const db of DBS) {
      const one = await benchParakh(db as BenchDb, baseline, vendor);
      if (BATCH_ONLY || KYC_ONLY || LIVE_ONLY) {
        rows.push(...one);
        continue;
      }
      const two = await benchTwoWorkers(`${db}`, baseline.requestsPerSec, {
        start: () => startBenchServer(db as BenchDb, vendor, 2),
        load: (name, opts, pid) => load(name, opts, pid),
      });
      rows.push(...one, { ...two, ratioToOneWorker: Math.round((two.requestsPerSec / (one[0]!.requestsPerSec as number)) * 100) / 100 });
    }
  } finally {
    await vendor.close();
  }

  const lines = [
    "| run | req/s | p50 ms | p99 ms | server CPU µs/req | errors | non-2xx | ratio to baseline | peak RSS MB | audit rows / requests |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.requestsPerSec} | ${r.p50} | ${r.p99} | ${r.cpuUsPerReq ?? "-"} | ${r.errors} | ${r.non2xx} | ${r.ratio} | ${r.peakRssMb}${r.workerPeakRssMb ? ` (workers ${(r.workerPeakRssMb as number[]).join(", ")})` : ""} | ${r.audited === undefined ? "-" : `${r.audited} / ≥${r.total}`} |`,
    ),
  ];
  const live = livePanReport(rows);
  lines.push(...live.lines, ...slowVendorReport(rows));
  for (const r of rows) {
    const ledger = r.ledger as LedgerCheck | undefined;
    if (ledger) {
      lines.push(
        "",
        `${r.name}: ${r.ratioToPanVerify}× the req/s of /v1 PAN verify in this run; after it ${ledger.charged} charged KYC calls in all, balance ${ledger.balancePaise} paise, ledger sum ${ledger.ledgerSumPaise} (${ledger.ledgerEqualsBalance ? "equal" : "NOT EQUAL"}), open holds ${ledger.openHolds}`,
      );
    }
  }
  lines.push(...batchReport(rows));
  lines.push(
    ...workersReport(rows),
    ...bigPostsReport(rows),
    ...(KYC_ONLY || LIVE_ONLY ? [] : await haproxyPhase(DBS.includes("postgresql"))),
    ...budgetsReport(rows, rows[0]!),
  );
  for (const r of rows)
    if (r.refunds !== undefined)
      lines.push("", `${r.name}: ${r.refunds} refunds created; every payment's refunded total equals its refunds: ${r.consistent ? "yes" : "NO"}`);
  for (const r of rows)
    if (r.firstByte)
      lines.push(
        "",
        `Checkout page first byte (${String(r.name).split("(")[1]?.replace(")", "")}): median ${(r.firstByte as { medianMs: number }).medianMs} ms, worst ${(r.firstByte as { maxMs: number }).maxMs} ms over 20 loads`,
      );
  process.stdout.write(lines.join("\n") + "\n");
  for (const w of live.warnings) process.stderr.write(`${w}\n`);
  const outDir = path.join(ROOT, "bench-results");
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(
    path.join(outDir, `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`),
    JSON.stringify({ seconds: SECONDS, connections: CONNECTIONS, rows }, null, 2),
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
