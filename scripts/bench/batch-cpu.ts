import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startPostgres } from "../../tests/helpers/postgres";
import { runBatch } from "./batch";
import { childProcesses, startListening, startNodeFlags, statFields, stopChild } from "./proc";
import { waitForJson } from "./wait";

/**
 * `npx tsx scripts/bench/batch-cpu.ts`: the quick loop for the 10,000-PAN sandbox batch alone, one
 * batch after another on an idle server (`npm run bench` with BENCH_ONLY=batch is the full picture,
 * with single calls beside it). Prints each batch's processing time (stored created_at to
 * completed_at). Options (env): BENCH_DB=sqlite|sqlite-normal|postgresql (default sqlite),
 * BENCH_BATCHES (default 5, after one warm-up), PROFILE_DIR (a V8 CPU profile of the server there,
 * summarised over the measured batches by ./profile-top.ts).
 */
const ROOT = path.resolve(__dirname, "../..");
const DB = process.env.BENCH_DB ?? "sqlite";
const BATCHES = Number(process.env.BENCH_BATCHES ?? 5);
const PROFILE_DIR = process.env.PROFILE_DIR;
const TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** CPU ms (user + system) used so far by a process and, with `children`, its live children (PostgreSQL's backends). */
function cpuMs(pid: number | undefined, children = false): number {
  if (!pid) return 0;
  const used = (f: string[]) => ((Number(f[11]) + Number(f[12])) * 1000) / TICKS;
  return used(statFields(pid)) + (children ? childProcesses(pid).reduce((t, c) => t + used(c.fields), 0) : 0);
}

function start(env: Record<string, string>) {
  const prof = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [];
  return startListening([...prof, ...startNodeFlags(), "--import", "tsx", "server.ts"], ROOT, env);
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-batchcpu-"));
  const pg = DB === "postgresql" ? await startPostgres() : undefined;
  const p = await start({
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DATABASE_URL: pg?.url ?? `file:${path.join(dataDir, "parakh.db")}`,
    SEED_DEMO: "true",
    SERVE_PAGES: "false",
    WEB_CONCURRENCY: "1",
    LOG_LEVEL: "info",
    SQLITE_SYNCHRONOUS: DB === "sqlite-normal" ? "NORMAL" : "FULL",
  });
  // The postmaster is this process's child named postgres.
  const postmaster = pg ? childProcesses(process.pid).find((c) => fs.readFileSync(`/proc/${c.pid}/comm`, "utf8").trim() === "postgres")?.pid : undefined;
  const measured: number[] = [];
  const cpu: string[] = [];
  let seconds = 0;
  try {
    const creds = await waitForJson<{ sandbox: { secretKey: string } }>(path.join(dataDir, "demo-credentials.json"));
    const base = `http://127.0.0.1:${p.port}`;
    await runBatch(base, creds.sandbox.secretKey, "warm-up");
    const t0 = performance.now();
    for (let i = 0; i < BATCHES; i++) {
      const [server, db] = [cpuMs(p.child.pid), cpuMs(postmaster, true)];
      measured.push((await runBatch(base, creds.sandbox.secretKey, `b${i}`)).processingMs);
      cpu.push(`${Math.round(cpuMs(p.child.pid) - server)}${postmaster ? `+${Math.round(cpuMs(postmaster, true) - db)}` : ""}`);
    }
    seconds = (performance.now() - t0) / 1000;
  } finally {
    const t = performance.now();
    await stopChild(p.child);
    // The profile ends when the server exits: its window is the measured batches and the stop.
    seconds += (performance.now() - t) / 1000;
    await pg?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const sorted = [...measured].sort((a, b) => a - b);
  process.stdout.write(`${DB}: processing ms ${measured.join(", ")} (median ${sorted[Math.floor(sorted.length / 2)]})\n`);
  process.stdout.write(`  CPU ms per batch, server${postmaster ? "+PostgreSQL" : ""} (submission and polling included): ${cpu.join(", ")}\n`);
  if (PROFILE_DIR) {
    const dir = path.resolve(PROFILE_DIR);
    const newest = fs
      .readdirSync(dir)
      .filter((f) => /\.0\.001\.cpuprofile$/.test(f))
      .map((f) => path.join(dir, f))
      .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]!;
    spawnSync(process.execPath, ["--import", "tsx", path.join(__dirname, "profile-top.ts"), newest, String(BATCHES * 10_000), String(seconds)], {
      cwd: ROOT,
      stdio: "inherit",
    });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
