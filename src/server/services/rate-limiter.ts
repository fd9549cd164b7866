import { LocalLimitStore, type Grant, type LimitStore } from "@/server/services/limits/shared";

/** How long a worker keeps leased tokens it has not used before they go back to the shared bucket. */
export const LEASE_MS = 250;

/** A worker's tokens for one key, taken from the shared bucket ahead of its requests. */
interface KeyLease {
  tokens: number;
  /** Tokens the next lease asks for: doubles while leases run out, back to 1 when one goes stale. */
  want: number;
  leasedAt: number;
  /** The shared bucket had no token: refuse here until it will have one, without asking. */
  deniedUntil: number;
  pending: Promise<void> | null;
  waiting: number;
}

const toSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Per-key token bucket: `limit` requests per second with a burst of the same size; 0 disables it.
 * The bucket is in the limit store: this process's memory, or the cluster primary's for every
 * worker at once. A worker takes tokens from it in leases (at most 1 % of the limit at a time) and
 * answers from them until they run out, so most requests cost no message; a worker that sees no
 * traffic for a key holds none of its tokens, and unused ones go back after LEASE_MS. Every token a
 * request uses came out of the one bucket, so all workers together admit no more than one process
 * would; leased tokens may sit unused for up to LEASE_MS while another worker refuses.
 */
export class RateLimiter {
  private readonly leases = new Map<string, KeyLease>();
  private readonly maxLease: number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly limit: number,
    private readonly store: LimitStore = new LocalLimitStore(),
  ) {
    this.maxLease = Math.max(1, Math.floor(limit / 100));
  }

  /** Seconds to wait before retrying, or 0 when the request may go ahead. */
  take(key: string, now = Date.now()): number | Promise<number> {
    if (this.limit <= 0) return 0;
    if (!this.store.remote) {
      // In one process the bucket is right here: one token per request, no lease.
      const g = this.store.grant(`api-key|${key}`, 1, this.limit, now) as Grant;
      return g.granted > 0 ? 0 : toSeconds(g.waitMs);
    }
    let s = this.leases.get(key);
    if (!s) {
      s = { tokens: 0, want: 1, leasedAt: 0, deniedUntil: 0, pending: null, waiting: 0 };
      this.leases.set(key, s);
      this.sweep();
    }
    if (s.tokens > 0) {
      s.tokens--;
      return 0;
    }
    if (s.deniedUntil > now) return toSeconds(s.deniedUntil - now);
    return this.leaseAndTake(key, s);
  }

  private async leaseAndTake(key: string, s: KeyLease): Promise<number> {
    s.waiting++;
    try {
      for (;;) {
        // Requests that find the lease empty together share one request for more.
        s.pending ??= this.lease(key, s).finally(() => (s.pending = null));
        await s.pending;
        if (s.tokens > 0) {
          s.tokens--;
          return 0;
        }
        const now = Date.now();
        if (s.deniedUntil > now) return toSeconds(s.deniedUntil - now);
      }
    } finally {
      s.waiting--;
    }
  }

  private async lease(key: string, s: KeyLease) {
    const want = Math.min(this.maxLease, Math.max(s.want, s.waiting));
    const g = await this.store.grant(`api-key|${key}`, want, this.limit);
    const now = Date.now();
    if (g.granted > 0) {
      s.tokens += g.granted;
      s.leasedAt = now;
      s.want = Math.min(this.maxLease, s.want * 2);
    } else {
      s.deniedUntil = now + g.waitMs;
    }
  }

  /** Every LEASE_MS: unused tokens of older leases go back, and keys gone quiet are forgotten. */
  private sweep() {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [key, s] of this.leases) {
        if (s.pending || s.waiting > 0) continue;
        if (s.tokens > 0 && now - s.leasedAt >= LEASE_MS) this.giveBack(key, s);
        else if (s.tokens === 0 && s.deniedUntil <= now && now - s.leasedAt >= 4 * LEASE_MS) this.leases.delete(key);
      }
      if (this.leases.size === 0) this.stop();
    }, LEASE_MS);
    this.sweeper.unref();
  }

  private giveBack(key: string, s: KeyLease) {
    this.store.giveBack(`api-key|${key}`, s.tokens, this.limit);
    s.tokens = 0;
    s.want = 1;
  }

  /** Unused tokens go back (a worker that stops leaves the whole limit to the others). */
  stop() {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const [key, s] of this.leases) if (s.tokens > 0) this.giveBack(key, s);
  }
}
