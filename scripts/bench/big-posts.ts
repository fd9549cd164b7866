import fs from "node:fs";
import http from "node:http";
import autocannon from "autocannon";
import { createPrismaClient } from "@/server/db/client";
import { createMerchant } from "@/server/services/merchants/merchants";
import { startBenchVendorProcess, type BenchVendor } from "./fake-vendor";

/** Concurrent big batch POSTs from merchant A, kept up for the whole phase. */
const BIG_POSTERS = 20;
/** Connections of merchant B's single PAN verify calls measured beside them. */
const SMALL_CONNECTIONS = 5;
const ITEMS = 10_000;
const BODY_LIMIT = 8 * 1024 * 1024;
/** The fairness goal for merchant B beside the big POSTs. */
export const BIG_POSTS_TARGET = { p99Ms: 150, maxMs: 500 };

export interface BigPostsBench {
  name: string;
  bodyBytes: number;
  /** Merchant B's single calls alone just before, for the machine's state at the time. */
  alone: { p50: number; p99: number; max: number };
  /** Merchant B's single calls while A's big POSTs arrive. */
  small: { requests: number; p50: number; p99: number; max: number; non2xx: number; errors: number };
  /** Merchant A's big POSTs: how many were answered, by status, and how long the slowest took. */
  big: { answered: number; statuses: Record<string, number>; maxMs: number; failed: number };
}

/**
 * A 10,000-item PAN batch just under the 8 MiB limit: 100-character Devanagari names and
 * 100-character reference ids, non-ASCII escaped as \uXXXX (what Python's json.dumps sends by
 * default), indented. Every item is valid, so all of them are validated like single calls.
 */
export function bigBatchBody(): Buffer {
  const name = "अर्जुन कपूर ".repeat(9).slice(0, 100);
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    pan: `ABCPK${String(1000 + (i % 8000)).padStart(4, "0")}F`,
    name,
    reference_id: `${"क्रमांक".repeat(4)}-${i}-`.padEnd(100, "x"),
  }));
  const text = JSON.stringify({ client_batch_id: "bench-big", items }, null, 1).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  const body = Buffer.from(text);
  if (body.length > BODY_LIMIT) throw new Error(`big batch body is ${body.length} bytes, over the ${BODY_LIMIT} limit`);
  return body;
}

function postOnce(agent: http.Agent, base: string, secretKey: string, body: Buffer): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      `${base}/v1/identity/pan/batch`,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", authorization: `Bearer ${secretKey}`, "content-length": body.length },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
      },
    );
    req.on("error", () => resolve({ status: 0, ms: performance.now() - t0 }));
    req.end(body);
  });
}

/**
 * Merchant A keeps BIG_POSTERS batch POSTs of ~8 MiB in flight for `seconds` while merchant B makes
 * single PAN verify calls: B's latencies are the fairness figure. Both are made here, so A has the
 * whole day's sandbox allowance whatever the earlier phases used (as many of its batches are stored
 * and run in every run).
 */
export async function benchBigPosts(db: string, base: string, databaseUrl: string, seconds: number): Promise<BigPostsBench> {
  const setup = createPrismaClient(databaseUrl);
  const a = await createMerchant(setup, { name: "Bench Merchant A", email: `bench-a-${Date.now()}@example.com`, password: "bench-password-a-123" });
  const b = await createMerchant(setup, { name: "Bench Merchant B", email: `bench-b-${Date.now()}@example.com`, password: "bench-password-b-123" });
  await setup.$disconnect();
  const smallLoad = {
    url: `${base}/v1/identity/pan/verify`,
    method: "POST" as const,
    headers: { "content-type": "application/json", authorization: `Bearer ${b.sandbox.key.secretKey}` },
    body: JSON.stringify({ pan: "ABCPK1234F", name: "Arjun Kapoor" }),
    connections: SMALL_CONNECTIONS,
    // Past autocannon's default 10 s a call would count as an error, not as its latency.
    timeout: 60,
  };
  // A warm-up first, as every other run of the bench has, then B alone.
  await autocannon({ ...smallLoad, duration: 2 });
  const alone = await autocannon({ ...smallLoad, duration: Math.max(3, Math.round(seconds / 2)) });
  const body = bigBatchBody();
  const agent = new http.Agent({ keepAlive: true, maxSockets: BIG_POSTERS });
  const big = { answered: 0, statuses: {} as Record<string, number>, maxMs: 0, failed: 0 };
  let stopping = false;
  const poster = async () => {
    while (!stopping) {
      const r = await postOnce(agent, base, a.sandbox.key.secretKey, body);
      big.answered++;
      big.statuses[r.status] = (big.statuses[r.status] ?? 0) + 1;
      big.maxMs = Math.max(big.maxMs, Math.round(r.ms));
      if (r.status === 0) big.failed++;
    }
  };
  const posters = Array.from({ length: BIG_POSTERS }, poster);
  const small = await autocannon({ ...smallLoad, duration: Math.max(5, seconds) });
  stopping = true;
  await Promise.all(posters);
  agent.destroy();
  return {
    name: `big-POST fairness (${db})`,
    bodyBytes: body.length,
    alone: { p50: alone.latency.p50, p99: alone.latency.p99, max: alone.latency.max },
    small: {
      requests: small.requests.total,
      p50: small.latency.p50,
      p99: small.latency.p99,
      max: small.latency.max,
      non2xx: small.non2xx,
      errors: small.errors + small.timeouts,
    },
    big,
  };
}

/** The table's line for the phase. */
export function bigPostsReport(rows: Record<string, unknown>[]): string[] {
  const lines: string[] = [];
  for (const r of rows) {
    const f = r.bigPosts as BigPostsBench | undefined;
    if (!f) continue;
    const clean = f.small.requests > 0 && f.small.errors === 0 && f.small.non2xx === 0;
    const met = clean && f.small.p99 < BIG_POSTS_TARGET.p99Ms && f.small.max < BIG_POSTS_TARGET.maxMs;
    const statuses = Object.entries(f.big.statuses)
      .map(([s, n]) => `${n}× ${s}`)
      .join(", ");
    lines.push(
      "",
      `${f.name}: merchant B's single PAN verify (${SMALL_CONNECTIONS} connections) beside ${BIG_POSTERS} concurrent ${(f.bodyBytes / 1048576).toFixed(2)} MiB batch POSTs from merchant A: ` +
        `p50 ${f.small.p50} ms, p99 ${f.small.p99} ms, max ${f.small.max} ms over ${f.small.requests} calls (${f.small.non2xx} non-2xx, ${f.small.errors} errors) ` +
        `[goal p99 < ${BIG_POSTS_TARGET.p99Ms}, max < ${BIG_POSTS_TARGET.maxMs}: ${met ? "met" : "NOT MET"}; alone just before: p50 ${f.alone.p50}, p99 ${f.alone.p99}, max ${f.alone.max} ms]; ` +
        `A's POSTs: ${f.big.answered} answered (${statuses}), slowest ${f.big.maxMs} ms`,
    );
  }
  return lines;
}

interface Started {
  dataDir: string;
  databaseUrl: string;
  pg?: { stop: () => Promise<void> };
  server: { port: number; peakRssMb: () => number; stop: () => Promise<void> };
}

/** `BENCH_ONLY=big-posts`: a fresh server per database, this phase alone, its lines printed. */
export async function bigPostsOnly(dbs: string[], seconds: number, start: (db: string, vendor: BenchVendor) => Promise<Started>) {
  const vendor = await startBenchVendorProcess();
  const rows: Record<string, unknown>[] = [];
  try {
    for (const db of dbs) {
      const { dataDir, databaseUrl, pg, server } = await start(db, vendor);
      try {
        const bigPosts = await benchBigPosts(db, `http://127.0.0.1:${server.port}`, databaseUrl, seconds);
        rows.push({ bigPosts, peakRssMb: server.peakRssMb() });
      } finally {
        await server.stop();
        await pg?.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await vendor.close();
  }
  const lines = bigPostsReport(rows);
  for (const r of rows) lines.push(`  server peak RSS ${r.peakRssMb} MB`);
  process.stdout.write(lines.join("\n") + "\n");
}
