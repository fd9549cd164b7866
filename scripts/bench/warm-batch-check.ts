import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { batchBody } from "./batch";
import { startListening, startNodeFlags, stopChild } from "./proc";
import { waitForJson } from "./wait";

/**
 * `npx tsx scripts/bench/warm-batch-check.ts`: starts a fresh server on SQLite WARM_RUNS times
 * (default 20) and posts the bench's 10,000-PAN batch as its first request (the warm-up batch, the
 * body thread's first job), then checks that the batch completes within 20 s with no failed item and
 * that every stored item's input is the one submitted. It caught a PAN item stored accepted with
 * input {} in about one warm-up batch in six (its chunk then failed on every retry, the batch stuck
 * at 9,000 processed). Failed runs keep their data folder (database and server log) and are listed.
 */
const ROOT = path.resolve(__dirname, "../..");
const RUNS = Number(process.env.WARM_RUNS ?? 20);
const WAIT_MS = 20_000;

/** What is wrong with the stored batch: items whose input or outcome is not the submitted one's, chunks not done, counts. */
function storedProblems(dbFile: string): string[] {
  const db = new Database(dbFile, { readonly: true });
  const problems: string[] = [];
  try {
    for (const row of db.prepare(`SELECT "chunkId", "items" FROM "BatchChunkItems"`).all() as { chunkId: string; items: string }[]) {
      for (const item of JSON.parse(row.items) as { index: number; input: unknown; error: unknown }[]) {
        const submitted = JSON.stringify({ pan: `ABCPK${String(1000 + (item.index % 8000)).padStart(4, "0")}F`, name: "Arjun Kapoor" });
        if (item.error !== null || JSON.stringify(item.input) !== submitted) problems.push(`${row.chunkId}: ${JSON.stringify(item)}`);
      }
    }
    const open = db.prepare(`SELECT "id", "status", "passes" FROM "BatchChunk" WHERE "status" <> 'DONE'`).all();
    if (open.length) problems.push(`chunks not done: ${JSON.stringify(open)}`);
    const batches = db.prepare(`SELECT "status", "processed", "failed" FROM "Batch"`).all() as { status: string; processed: number; failed: number }[];
    if (batches.some((b) => b.status !== "COMPLETED" || b.failed !== 0)) problems.push(`batches: ${JSON.stringify(batches)}`);
  } finally {
    db.close();
  }
  return problems;
}

/** Posts the batch and waits for it: null when it completed, else where it stopped. */
async function warmUpBatch(base: string, secretKey: string): Promise<string | null> {
  const headers = { "content-type": "application/json", authorization: `Bearer ${secretKey}` };
  const res = await fetch(`${base}/v1/identity/pan/batch`, { method: "POST", headers, body: batchBody("warm-up") });
  if (res.status !== 202) throw new Error(`batch refused: ${res.status} ${await res.text()}`);
  const { data } = (await res.json()) as { data: { batch_id: string } };
  for (const end = Date.now() + WAIT_MS; ; await new Promise((r) => setTimeout(r, 50))) {
    const s = (await fetch(`${base}/v1/identity/pan/batch/${data.batch_id}`, { headers }).then((r) => r.json())) as {
      data: { status: string; processed: number };
    };
    if (s.data.status === "COMPLETED") return null;
    if (Date.now() > end) return `${s.data.status} at ${s.data.processed} processed after ${WAIT_MS / 1000} s`;
  }
}

async function run(): Promise<string[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parakh-warm-batch-"));
  const dbFile = path.join(dataDir, "parakh.db");
  const env = { NODE_ENV: "production", PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, DATABASE_URL: `file:${dbFile}`, SEED_DEMO: "true" };
  const p = await startListening([...startNodeFlags(), "--import", "tsx", "server.ts"], ROOT, { ...env, SERVE_PAGES: "false", WEB_CONCURRENCY: "1" });
  p.child.stderr!.pipe(fs.createWriteStream(path.join(dataDir, "server.log")));
  let stuck: string | null;
  try {
    const creds = await waitForJson<{ sandbox: { secretKey: string } }>(path.join(dataDir, "demo-credentials.json"));
    stuck = await warmUpBatch(`http://127.0.0.1:${p.port}`, creds.sandbox.secretKey);
  } finally {
    await stopChild(p.child);
  }
  const problems = [...(stuck ? [stuck] : []), ...storedProblems(dbFile)];
  if (problems.length === 0) fs.rmSync(dataDir, { recursive: true, force: true });
  else problems.unshift(`kept ${dataDir}`);
  return problems;
}

async function main() {
  let failed = 0;
  for (let i = 1; i <= RUNS; i++) {
    const problems = await run();
    if (problems.length) failed++;
    process.stdout.write(`run ${i}: ${problems.length ? `FAILED\n  ${problems.slice(0, 6).join("\n  ")}` : "ok"}\n`);
  }
  process.stdout.write(`${failed} of ${RUNS} warm-up batches failed\n`);
  if (failed) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
