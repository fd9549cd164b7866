/**
 * Counts refused credentials per client address in fixed windows. Once an address passes the limit,
 * its further requests without valid credentials get 429 instead of 401 until the window ends;
 * requests with valid credentials from it are never refused here. In memory, per instance.
 */
export class FailedAuthLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly maxTracked = 100_000,
  ) {}

  /** Records a refusal; returns the seconds to wait when the address is over its limit, else 0. */
  fail(address: string, now = Date.now()): number {
    if (this.limit <= 0) return 0;
    let w = this.windows.get(address);
    if (!w || w.resetAt <= now) {
      this.windows.delete(address);
      if (this.windows.size >= this.maxTracked) this.evict(now);
      w = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(address, w);
    }
    w.count++;
    return w.count > this.limit ? Math.max(1, Math.ceil((w.resetAt - now) / 1000)) : 0;
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
