import { BIG_POSTS_TARGET, type BigPostsBench } from "./big-posts";
import type { BatchBench } from "./batch";

/**
 * The performance budgets, checked on the figures of one run: each is a ratio between two phases
 * measured back to back on the same machine, so the machine's speed cancels out.
 */
interface Budget {
  budget: string;
  measured: string;
  goal: string;
  met: boolean;
}

type Row = Record<string, unknown>;

const round = (n: number, places = 2) => Math.round(n * 10 ** places) / 10 ** places;

function budgetsFor(db: string, rows: Row[], baseline: Row): Budget[] {
  const row = (name: string) => rows.find((r) => r.name === `${name} (${db})`);
  const pan = row("POST /v1/identity/pan/verify")!;
  const out: Budget[] = [];
  const ratio = (a: Row | undefined, b: Row | undefined) => (a && b ? (a.requestsPerSec as number) / (b.requestsPerSec as number) : NaN);
  if (typeof pan.cpuUsPerReq === "number" && typeof baseline.cpuUsPerReq === "number") {
    const x = pan.cpuUsPerReq / baseline.cpuUsPerReq;
    out.push({
      budget: "PAN verify server CPU per request vs the plain echo",
      measured: `${round(x, 1)}× (${pan.cpuUsPerReq} vs ${baseline.cpuUsPerReq} µs)`,
      goal: "≤ 8×",
      met: x <= 8,
    });
  }
  const kyc = row("POST /api/kyc/pan/verify");
  if (kyc) {
    const x = ratio(kyc, pan);
    out.push({ budget: "PAN KYC req/s vs PAN verify (one merchant, one wallet)", measured: `${round(x)}×`, goal: "≥ 0.5×", met: x >= 0.5 });
  }
  const checkout = row("POST /api/checkout");
  const refunds = row("POST /api/payments/:id/refunds");
  if (checkout && refunds) {
    const x = ratio(refunds, checkout);
    const p99 = refunds.p99 as number;
    out.push({
      budget: "Refund creation req/s vs checkout creation, p99",
      measured: `${round(x)}×, p99 ${p99} ms`,
      goal: "≥ 0.5×, p99 < 250 ms",
      met: x >= 0.5 && p99 < 250,
    });
  }
  const status = row("GET /api/payments/:id/status");
  if (checkout && status) {
    const x = ratio(status, checkout);
    out.push({ budget: "Payment status GET req/s vs checkout creation", measured: `${round(x)}×`, goal: "≥ 1×", met: x >= 1 });
  }
  const batch = pan.batch as BatchBench | undefined;
  if (batch) {
    const x = batch.processingItemsPerSec / (pan.requestsPerSec as number);
    out.push({
      budget: "10,000-PAN batch items/s vs single calls",
      measured: `${round(x, 1)}× (${batch.processingItemsPerSec} items/s)`,
      goal: "≥ 8×",
      met: x >= 8,
    });
  }
  const big = rows.map((r) => r.bigPosts as BigPostsBench | undefined).find((f) => f?.name.endsWith(`(${db})`));
  if (big) {
    const clean = big.small.requests > 0 && big.small.errors === 0 && big.small.non2xx === 0;
    out.push({
      budget: "Single calls beside 20 big batch POSTs: p99, max",
      measured: `${big.small.p99} ms, ${big.small.max} ms`,
      goal: `< ${BIG_POSTS_TARGET.p99Ms} ms, < ${BIG_POSTS_TARGET.maxMs} ms`,
      met: clean && big.small.p99 < BIG_POSTS_TARGET.p99Ms && big.small.max < BIG_POSTS_TARGET.maxMs,
    });
  }
  const two = rows.find((r) => r.restart !== undefined && String(r.name).endsWith(`(${db})`));
  const restart = two?.restart as { requests: number; failed: number; replaced: boolean } | undefined;
  if (restart) {
    out.push({
      budget: "Requests failed in a SIGHUP rolling restart",
      measured: `${restart.failed} of ${restart.requests}`,
      goal: "0",
      met: restart.failed === 0 && restart.replaced,
    });
  }
  return out;
}

/** The budgets table of a run, per database. */
export function budgetsReport(rows: Row[], baseline: Row): string[] {
  const dbs = rows.map((r) => /^POST \/v1\/identity\/pan\/verify \(([^)]+)\)$/.exec(String(r.name))?.[1]).filter((d): d is string => !!d);
  if (dbs.length === 0) return [];
  const lines = ["", "Budgets (each a ratio within this run):", "", "| database | budget | measured | goal | met |", "|---|---|---|---|---|"];
  for (const db of dbs)
    for (const b of budgetsFor(db, rows, baseline)) lines.push(`| ${db} | ${b.budget} | ${b.measured} | ${b.goal} | ${b.met ? "yes" : "NO"} |`);
  return lines;
}
