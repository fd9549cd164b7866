import { rateLimitKey } from "@/server/lib/ip";

/**
 * Counts requests refused before any credentials were accepted (unknown routes, wrong methods,
 * invalid keys) per client address, in fixed windows. Past the limit an address gets 429 instead,
 * until its window ends; requests with valid credentials from it are never refused here. IPv6
 * clients are counted by their /64, the block one customer usually holds. In memory, per instance.
 */
export interface RefusalVerdict {
  /** Seconds to wait when the address is over its limit, else 0. */
  wait: number;
  /** True for the first refusal over the limit in this window (the one worth recording). */
  firstOver: boolean;
}

export class FailedAuthLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly maxTracked = 100_000,
  ) {}

  /** Records a refusal and says whether the address is now over its limit. */
  fail(address: string, now = Date.now()): RefusalVerdict {
    if (this.limit <= 0) return { wait: 0, firstOver: false };
    const key = rateLimitKey(address);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      this.windows.delete(key);
      if (this.windows.size >= this.maxTracked) this.evict(now);
      w = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    if (w.count <= this.limit) return { wait: 0, firstOver: false };
    return { wait: Math.max(1, Math.ceil((w.resetAt - now) / 1000)), firstOver: w.count === this.limit + 1 };
  }

  /** Drops finished windows, then the oldest, so a flood of addresses cannot grow the map without bound. */
  private evict(now: number) {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    const excess = this.windows.size - Math.floor(this.maxTracked * 0.9);
    if (excess <= 0) return;
    let n = 0;
    for (const k of this.windows.keys()) {
      if (n++ >= excess) break;
      this.windows.delete(k);
    }
  }

  get tracked(): number {
    return this.windows.size;
  }
}
