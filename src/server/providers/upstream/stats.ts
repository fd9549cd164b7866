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
  /** Samples before this index have left the window. They are cut off in bulk: a busy family keeps hundreds of thousands, too many to copy on every call. */
  private first = 0;
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
    const inWindow = this.samples.slice(this.first);
    const latencies = inWindow.map((s) => s.ms).sort((a, b) => a - b);
    const p95 = latencies.length === 0 ? null : latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.95) - 1)]!;
    return {
      callsLast5Min: inWindow.length,
      failuresLast5Min: inWindow.filter((s) => s.failed).length,
      p95LatencyMs: p95 === null ? null : Math.round(p95),
      lastError: this.lastError,
    };
  }

  private prune(now: number): void {
    const from = now - WINDOW_MS;
    while (this.first < this.samples.length && this.samples[this.first]!.at < from) this.first++;
    // Copy only once the dead part is at least as long as the live one: each sample is copied a bounded number of times.
    if (this.first >= 1024 && this.first * 2 >= this.samples.length) {
      this.samples = this.samples.slice(this.first);
      this.first = 0;
    }
  }
}
