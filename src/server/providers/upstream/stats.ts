/** What operators see of one upstream family on this instance (no personal data). */
export interface UpstreamFamilyStats {
  family: string;
  /** The vendor called for the family (a family may have several, each with its own gate and figures). */
  vendor: string;
  breaker: "closed" | "open" | "half-open" | "isolated";
  /** When an open breaker lets its trial call through (the first call from then on tries the vendor); null unless open. */
  retryAt: string | null;
  /** Set after the vendor refused Parakh's credentials or address (401/403); cleared by the next answered call. */
  misconfigured: boolean;
  callsLast5Min: number;
  failuresLast5Min: number;
  /** Over the calls of the last 5 minutes; null without any. */
  p95LatencyMs: number | null;
  lastError: { at: string; message: string } | null;
}

/**
 * How a call ended: the vendor answered (`ok`, a business refusal such as "not found" included), did
 * not answer in time (`timeout`), failed in a way that counts against the breaker (`failed`), was
 * refused by Parakh's account (`misconfigured`), or was not made or not taken (`rejected`: breaker
 * open, too many calls in flight, the vendor's rate limit).
 */
export const UPSTREAM_OUTCOMES = ["ok", "timeout", "failed", "misconfigured", "rejected"] as const;
export type UpstreamOutcome = (typeof UPSTREAM_OUTCOMES)[number];

export interface UpstreamCallCounts {
  family: string;
  vendor: string;
  breaker: UpstreamFamilyStats["breaker"];
  misconfigured: boolean;
  calls: Record<UpstreamOutcome, number>;
  /** Calls the family's router moved on from this vendor to the next one (breaker open, bulkhead full, no business answer). */
  failovers: number;
}

const WINDOW_SECONDS = 300;
/** Latency buckets grow by 2^(1/16), about 4.4%, from 0.1 ms; the last one holds everything slower (over 100 s). */
const BUCKETS_PER_DOUBLING = 16;
const BUCKETS = 20 * BUCKETS_PER_DOUBLING + 1;
const SMALLEST_MS = 0.1;

function bucketOf(ms: number): number {
  if (ms <= SMALLEST_MS) return 0;
  return Math.min(BUCKETS - 1, Math.ceil(Math.log2(ms / SMALLEST_MS) * BUCKETS_PER_DOUBLING));
}

function upperBoundMs(bucket: number): number {
  return SMALLEST_MS * 2 ** (bucket / BUCKETS_PER_DOUBLING);
}

/** One second of calls. */
interface Slot {
  second: number;
  calls: number;
  failures: number;
  slowestMs: number;
  latencies: Uint32Array;
}

/**
 * Calls of the last five minutes (300 whole seconds, the current one included), for the operator
 * view: counts and a latency histogram per second in a ring, so memory stays fixed however busy
 * the family is. The p95 is the upper bound of its histogram bucket (within 4.4%), never above the
 * slowest call of the window.
 */
export class CallLog {
  private readonly slots: (Slot | undefined)[] = new Array(WINDOW_SECONDS);
  lastError: { at: string; message: string } | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  record(ms: number, failed: boolean): void {
    const second = Math.floor(this.now() / 1000);
    const index = second % WINDOW_SECONDS;
    let slot = this.slots[index];
    if (!slot) slot = this.slots[index] = { second, calls: 0, failures: 0, slowestMs: 0, latencies: new Uint32Array(BUCKETS) };
    else if (slot.second !== second) {
      slot.second = second;
      slot.calls = slot.failures = slot.slowestMs = 0;
      slot.latencies.fill(0);
    }
    slot.calls++;
    if (failed) slot.failures++;
    if (ms > slot.slowestMs) slot.slowestMs = ms;
    slot.latencies[bucketOf(ms)]!++;
  }

  noteError(message: string): void {
    this.lastError = { at: new Date(this.now()).toISOString(), message };
  }

  summary(): Pick<UpstreamFamilyStats, "callsLast5Min" | "failuresLast5Min" | "p95LatencyMs" | "lastError"> {
    const newest = Math.floor(this.now() / 1000);
    const inWindow = this.slots.filter((s): s is Slot => s !== undefined && s.second > newest - WINDOW_SECONDS && s.second <= newest);
    const calls = inWindow.reduce((n, s) => n + s.calls, 0);
    let p95: number | null = null;
    if (calls > 0) {
      const slowest = Math.max(...inWindow.map((s) => s.slowestMs));
      const rank = Math.ceil(calls * 0.95);
      let seen = 0;
      for (let b = 0; b < BUCKETS && p95 === null; b++) {
        for (const s of inWindow) seen += s.latencies[b]!;
        if (seen >= rank) p95 = Math.min(upperBoundMs(b), slowest);
      }
    }
    return {
      callsLast5Min: calls,
      failuresLast5Min: inWindow.reduce((n, s) => n + s.failures, 0),
      p95LatencyMs: p95 === null ? null : Math.round(p95),
      lastError: this.lastError,
    };
  }
}
