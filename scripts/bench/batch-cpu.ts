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
 * summarised over the measured batches by ./profile-top.ts), BENCH_TIMELINE=1 (each batch's phases, from
 * its stored timestamps: stored → started → chunks committed → completed).
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

/** CPU ms (user + system) of one thread of a process (the main thread's id is the process's). */
function threadCpuMs(pid: number | undefined, tid: number | undefined): number {
  if (!pid || !tid) return 0;
  const f = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS;
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
  let threadLine = "";
  try {
    const creds = await waitForJson<{ sandbox: { secretKey: string } }>(path.join(dataDir, "demo-credentials.json"));
    const base = `http://127.0.0.1:${p.port}`;
    await runBatch(base, creds.sandbox.secretKey, "warm-up");
    // Every thread of the server by id (the main thread's is the process's; then V8's helpers, libuv's, the worker threads).
    const threads = () => Object.fromEntries(fs.readdirSync(`/proc/${p.child.pid}/task`).map((t) => [t, threadCpuMs(p.child.pid, Number(t))]));
    const threadsBefore = threads();
    const t0 = performance.now();
    for (let i = 0; i < BATCHES; i++) {
      const reading = () => ({ server: cpuMs(p.child.pid), main: threadCpuMs(p.child.pid, p.child.pid), db: cpuMs(postmaster, true) });
      const before = reading();
      let accepted = before;
      measured.push((await runBatch(base, creds.sandbox.secretKey, `b${i}`, () => (accepted = reading()))).processingMs);
      const after = reading();
      const used = (from: typeof before, to: typeof before) =>
        `${Math.round(to.server - from.server)} (main ${Math.round(to.main - from.main)})${postmaster ? ` + ${Math.round(to.db - from.db)}` : ""}`;
      cpu.push(`${used(before, after)} [after the 202: ${used(accepted, after)}]`);
    }
    seconds = (performance.now() - t0) / 1000;
    const busy = Object.entries(threads()).map(([t, v]) => [t, Math.round((v - (threadsBefore[t] ?? 0)) / BATCHES)] as const);
    threadLine = `  CPU ms per batch by server thread id (busy ones): ${busy
      .filter(([, v]) => v > 0)
      .map(([t, v]) => `${t}: ${v}`)
      .join(", ")}\n`;
    if (process.env.BENCH_TIMELINE) await printTimeline(pg?.url ?? path.join(dataDir, "parakh.db"));
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
  process.stdout.write(
    `  CPU ms per batch, server (its main thread)${postmaster ? " + PostgreSQL" : ""}, submission and polling included: ${cpu.join(", ")}\n`,
  );
  process.stdout.write(threadLine);
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

/** Each measured batch's phases in ms from its stored timestamps (chunk commits as they landed). */
async function printTimeline(where: string) {
  const batchesSql = `SELECT "id", "createdAt", "startedAt", "completedAt" FROM "Batch" WHERE "total" = 10000 ORDER BY "createdAt"`;
  const chunksSql = `SELECT "batchId", "completedAt" FROM "BatchChunk" ORDER BY "completedAt"`;
  let batches: { id: string; createdAt: unknown; startedAt: unknown; completedAt: unknown }[];
  let chunks: { batchId: string; completedAt: unknown }[];
  if (where.startsWith("postgres")) {
    const { Client } = await import("pg");
    const client = new Client({ connectionString: where });
    await client.connect();
    batches = (await client.query(batchesSql)).rows;
    chunks = (await client.query(chunksSql)).rows;
    await client.end();
  } else {
    const { default: Database } = await import("better-sqlite3");
    const conn = new Database(where, { readonly: true });
    batches = conn.prepare(batchesSql).all() as typeof batches;
    chunks = conn.prepare(chunksSql).all() as typeof chunks;
    conn.close();
  }
  const ms = (v: unknown) => (v instanceof Date ? v.getTime() : typeof v === "number" ? v : Date.parse(String(v)));
  for (const b of batches.slice(1)) {
    const t0 = ms(b.createdAt);
    const commits = chunks.filter((c) => c.batchId === b.id).map((c) => ms(c.completedAt) - t0);
    process.stdout.write(`  started +${ms(b.startedAt) - t0}, commits ${commits.join(" ")}, completed +${ms(b.completedAt) - t0}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
