import type { Mode } from "@/lib/mode";
import type { Db } from "@/server/db/client";
import { istDate, istDayStart } from "@/server/lib/ist";
import { newestFirst } from "@/server/lib/pagination";

const DAY_MS = 24 * 3600 * 1000;
export const OVERVIEW_DAYS = 7;

interface Range {
  gte: Date;
  lt: Date;
}

/**
 * Latencies read per day for its percentiles. A day with more calls is estimated from its most
 * recent calls (read in index order, so the cost stays bounded however large the log grows);
 * below the cap the percentiles are exact.
 */
export const LATENCY_SAMPLE_PER_DAY = 10_000;

/** Nearest-rank percentile of values weighted by how many calls each stands for (1 when exact). */
export function weightedPercentile(values: { value: number; weight: number }[], p: number): number | null {
  const total = values.reduce((s, v) => s + v.weight, 0);
  if (total === 0) return null;
  const sorted = [...values].sort((a, b) => a.value - b.value);
  // With unit weights this is the value at rank ceil(p·n); the epsilon absorbs float noise in p·n.
  const target = p * total - 1e-9;
  let cumulative = 0;
  for (const v of sorted) {
    cumulative += v.weight;
    if (cumulative >= target) return v.value;
  }
  return sorted[sorted.length - 1]!.value;
}

/** Calls, 4xx+5xx and 5xx in a range, from one grouped count over the (merchantId, mode, createdAt) index range. */
async function statusCounts(db: Db, where: { merchantId: string; mode: string; createdAt: Range }) {
  const groups = await db.auditLog.groupBy({ by: ["status"], where, _count: { _all: true } });
  let calls = 0;
  let errors = 0;
  let serverErrors = 0;
  for (const g of groups) {
    calls += g._count._all;
    if (g.status >= 400) errors += g._count._all;
    if (g.status >= 500) serverErrors += g._count._all;
  }
  return { calls, errors, serverErrors };
}

/** Charged KYC calls in a range and the fees they cost, over the (merchantId, mode, createdAt) index. */
async function kycCounts(db: Db, where: { merchantId: string; mode: string; createdAt: Range }) {
  const agg = await db.kycTransaction.aggregate({ where, _count: { _all: true }, _sum: { feePaise: true } });
  return { calls: agg._count._all, feesPaise: agg._sum.feePaise ?? 0 };
}

/**
 * The Overview numbers for one mode over the last 7 IST days (today included). Every query is
 * bounded by the (merchantId, mode, createdAt) index to one day: exact counts per status, and
 * the day's latencies (see LATENCY_SAMPLE_PER_DAY) for its percentiles. The 7-day percentiles
 * merge the days, each latency weighted by the calls it stands for.
 */
export async function overviewStats(db: Db, merchantId: string, mode: Mode, now = new Date(), latencySample = LATENCY_SAMPLE_PER_DAY) {
  const todayStart = istDayStart(istDate(now));
  const dayRanges: Range[] = Array.from({ length: OVERVIEW_DAYS }, (_, i) => {
    const gte = new Date(todayStart.getTime() - (OVERVIEW_DAYS - 1 - i) * DAY_MS);
    return { gte, lt: new Date(gte.getTime() + DAY_MS) };
  });

  const perDay = await Promise.all(
    dayRanges.map(async (createdAt) => {
      const where = { merchantId, mode, createdAt };
      const counts = await statusCounts(db, where);
      const latencies = counts.calls
        ? (await db.auditLog.findMany({ where, orderBy: newestFirst, take: latencySample, select: { latencyMs: true } })).map((r) => r.latencyMs)
        : [];
      const weight = latencies.length ? counts.calls / latencies.length : 0;
      return { date: istDate(createdAt.gte), counts, weighted: latencies.map((value) => ({ value, weight })) };
    }),
  );
  const days = perDay.map((d) => ({
    date: d.date,
    ...d.counts,
    p50: weightedPercentile(d.weighted, 0.5),
    p95: weightedPercentile(d.weighted, 0.95),
    /** False when the day had more calls than were read for its percentiles. */
    exactLatency: d.weighted.length === d.counts.calls,
  }));

  const calls = days.reduce((s, d) => s + d.calls, 0);
  const errors = days.reduce((s, d) => s + d.errors, 0);
  const serverErrors = days.reduce((s, d) => s + d.serverErrors, 0);
  const week = perDay.flatMap((d) => d.weighted);
  const [wallet, anyCall, kycToday, kycWeek] = await Promise.all([
    db.wallet.findUnique({ where: { merchantId_mode: { merchantId, mode } }, select: { balancePaise: true } }),
    calls > 0 ? Promise.resolve(true) : db.auditLog.findFirst({ where: { merchantId, mode }, select: { id: true } }).then(Boolean),
    kycCounts(db, { merchantId, mode, createdAt: dayRanges[OVERVIEW_DAYS - 1]! }),
    kycCounts(db, { merchantId, mode, createdAt: { gte: dayRanges[0]!.gte, lt: dayRanges[OVERVIEW_DAYS - 1]!.lt } }),
  ]);

  return {
    timeZone: "Asia/Kolkata" as const,
    today: days[OVERVIEW_DAYS - 1]!.calls,
    days,
    calls,
    errors,
    serverErrors,
    /** Shares of the 7 days' calls (0–1); null without calls. */
    errorRate: calls ? errors / calls : null,
    serverErrorRate: calls ? serverErrors / calls : null,
    p50: weightedPercentile(week, 0.5),
    p95: weightedPercentile(week, 0.95),
    exactLatency: days.every((d) => d.exactLatency),
    wallet: wallet ? { balancePaise: wallet.balancePaise } : null,
    /** Charged KYC calls (each one a KYC transaction): today and over the 7 days, with the fees paid. */
    kyc: { today: kycToday.calls, calls: kycWeek.calls, feesPaise: kycWeek.feesPaise },
    /** False until the mode's first REST call ever (older than 7 days counts too). */
    hasCalls: anyCall,
  };
}
