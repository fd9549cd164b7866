/** What operators see of one upstream family on this instance (no personal data). */
export interface UpstreamFamilyStats {
  family: string;
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

const WINDOW_MS = 5 * 60_000;

interface CallSample {
  at: number;
  ms: number;
  failed: boolean;
}

/** Calls of the last five minutes, kept in memory for the operator view. */
export class CallLog {
  private samples: CallSample[] = [];
  lastError: { at: string; message: string } | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  record(ms: number, failed: boolean): void {
    const at = this.now();
    this.samples.push({ at, ms, failed });
    this.prune(at);
  }

  noteError(message: string): void {
    this.lastError = { at: new Date(this.now()).toISOString(), message };
  }

  summary(): Pick<UpstreamFamilyStats, "callsLast5Min" | "failuresLast5Min" | "p95LatencyMs" | "lastError"> {
    this.prune(this.now());
    const latencies = this.samples.map((s) => s.ms).sort((a, b) => a - b);
    const p95 = latencies.length === 0 ? null : latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.95) - 1)]!;
    return {
      callsLast5Min: this.samples.length,
      failuresLast5Min: this.samples.filter((s) => s.failed).length,
      p95LatencyMs: p95 === null ? null : Math.round(p95),
      lastError: this.lastError,
    };
  }

  private prune(now: number): void {
    const from = now - WINDOW_MS;
    let drop = 0;
    while (drop < this.samples.length && this.samples[drop]!.at < from) drop++;
    if (drop > 0) this.samples = this.samples.slice(drop);
  }
}
