import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { startListening, startNodeFlags, statFields, stopChild } from "./proc";

/**
 * `npx tsx scripts/bench/pan-cpu.ts`: server CPU per sandbox PAN verification against the plain
 * node:http echo, measured back to back, on SQLite with one process. The quick loop for CPU work
 * (`npm run bench` is the full picture). Options (env): BENCH_SECONDS (default 6), BENCH_ROUNDS (2),
 * BENCH_CONNECTIONS (50), PROFILE_DIR (write a V8 CPU profile of the server there, `node --cpu-prof`,
 * and print the last one's summary by scripts/bench/profile-top.ts; or open it in Chrome DevTools), BENCH_SERVER_ROOT (the
 * checkout whose server.ts is measured, default this one: compare two versions back to back),
 * BENCH_RATE (requests a second for both servers; unset: as fast as they answer). CPU per request
 * falls as throughput rises (more requests share each commit), so on a busy machine a fixed rate
 * compares two versions more fairly than their own maximum rates do.
 * BENCH_SERVE_PAGES=true also serves the Next pages (on their own thread of the same process), as
 * `npm start` does (default: the API alone); the difference is what hosting Next costs each API request.
 */
const ROOT = path.resolve(__dirname, "../..");
const SERVER_ROOT = path.resolve(process.env.BENCH_SERVER_ROOT ?? ROOT);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PROFILE_DIR = process.env.PROFILE_DIR;
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
const TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
const BODY = JSON.stringify({ pan: "ABCPK1234F", name: "Arjun Kapoor" });

/** The process's user and kernel CPU seconds so far. */
function cpuSeconds(pid: number): { user: number; system: number } {
  const f = statFields(pid);
  return { user: Number(f[11]) / TICKS, system: Number(f[12]) / TICKS };
}

function start(args: string[], env: Record<string, string>) {
  return startListening(args, args.some((a) => a.endsWith("server.ts")) ? SERVER_ROOT : ROOT, env);
}

/** µs of the process's CPU per request, and req/s, over SECONDS after a 2 s warm-up. */
async function measure(pid: number, url: string, headers: Record<string, string>) {
  const opts = { url, method: "POST" as const, headers: { "content-type": "application/json", ...headers }, body: BODY, connections: CONNECTIONS };
  await autocannon({ ...opts, duration: 2 });
  const before = cpuSeconds(pid);
  const r = await autocannon({ ...opts, duration: SECONDS, ...(RATE ? { overallRate: RATE } : {}) });
  const after = cpuSeconds(pid);
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const perReq = (s: number) => Math.round((s * 1e6) / r.requests.total);
  const system = perReq(after.system - before.system);
  return { us: perReq(after.user - before.user + after.system - before.system), system, rps: Math.round(r.requests.average) };
}

async function echo() {
  const p = await start(["--import", "tsx", "scripts/bench/baseline-server.ts"], { PORT: "0" });
  try {
    return await measure(p.child.pid!, `http://127.0.0.1:${p.port}/`, {});
  } finally {
    await stopChild(p.child);
  }
}

async function panVerify() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-pancpu-"));
  const prof = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [];
  const p = await start([...prof, ...startNodeFlags(), "--import", "tsx", path.join(SERVER_ROOT, "server.ts")], {
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DATABASE_URL: `file:${path.join(dataDir, "parakh.db")}`,
    SEED_DEMO: "true",
    SERVE_PAGES: process.env.BENCH_SERVE_PAGES === "true" ? "true" : "false",
    WEB_CONCURRENCY: "1",
    LOG_LEVEL: "info",
  });
  try {
    const credsFile = path.join(dataDir, "demo-credentials.json");
    for (let i = 0; i < 100 && !fs.existsSync(credsFile); i++) await new Promise((r) => setTimeout(r, 100));
    const creds = JSON.parse(fs.readFileSync(credsFile, "utf8")) as { sandbox: { secretKey: string } };
    return await measure(p.child.pid!, `http://127.0.0.1:${p.port}/v1/identity/pan/verify`, { authorization: `Bearer ${creds.sandbox.secretKey}` });
  } finally {
    await stopChild(p.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** With PROFILE_DIR: where the last round's server spent its CPU, per request, over the measured seconds. */
function summariseProfile(requests: number) {
  const dir = path.resolve(PROFILE_DIR!);
  const newest = fs
    .readdirSync(dir)
    .filter((f) => /\.0\.001\.cpuprofile$/.test(f))
    .map((f) => path.join(dir, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  if (!newest) throw new Error(`no CPU profile in ${dir}`);
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(__dirname, "profile-top.ts"), newest, String(requests), String(SECONDS)], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (r.status !== 0) throw new Error(`profile-top exited ${r.status}`);
}

async function main() {
  let requests = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const e = await echo();
    const pan = await panVerify();
    const ratio = Math.round((pan.us / e.us) * 10) / 10;
    requests = Math.round(pan.rps * SECONDS);
    process.stdout.write(
      `round ${round}: echo ${e.us} µs/req (${e.rps} req/s), PAN verify ${pan.us} µs/req (${pan.system} in the kernel; ${pan.rps} req/s), ratio ${ratio}x\n`,
    );
  }
  if (PROFILE_DIR) summariseProfile(requests);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
