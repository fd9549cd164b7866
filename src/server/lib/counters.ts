/**
 * The counters behind the limits that hold for the whole server, whatever worker a request lands
 * on: token buckets (requests per second per API key) and fixed windows (sign-ups, resets and
 * failures per address). One process holds them: the server itself, or the cluster's primary, which
 * its workers ask over IPC (see src/server/services/limits/shared.ts). Plain data and arithmetic, with an explicit clock.
 */

export interface Grant {
  /** Whole tokens handed out (0 when the bucket has less than one). */
  granted: number;
  /** When none were granted: ms until the bucket holds a whole token again. */
  waitMs: number;
}

export interface WindowCount {
  /** False when the window was already at its maximum: nothing was counted. */
  ok: boolean;
  /** The window's count after this call. */
  count: number;
  /** When the window ends (ms since the epoch). */
  resetAt: number;
}

/** Buckets of `rate` tokens, refilled at `rate` per second: a burst of `rate`, then `rate` a second. */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly maxTracked = 100_000) {}

  /** Takes up to `want` whole tokens from the key's bucket. */
  grant(key: string, want: number, rate: number, now: number): Grant {
    const b = this.refilled(key, rate, now);
    const granted = Math.max(0, Math.min(Math.floor(want), Math.floor(b.tokens)));
    b.tokens -= granted;
    if (granted > 0) return { granted, waitMs: 0 };
    return { granted: 0, waitMs: Math.max(1, Math.ceil(((1 - b.tokens) / rate) * 1000)) };
  }

  /** Tokens granted earlier and not used come back (never above the burst). */
  giveBack(key: string, n: number, rate: number, now: number) {
    if (!this.buckets.has(key) || n <= 0) return;
    const b = this.refilled(key, rate, now);
    b.tokens = Math.min(rate, b.tokens + n);
  }

  private refilled(key: string, rate: number, now: number) {
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= this.maxTracked) this.evict(rate, now);
      b = { tokens: rate, at: now };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(rate, b.tokens + (Math.max(0, now - b.at) / 1000) * rate);
    b.at = now;
    return b;
  }

  /** A full bucket is the same as none; if every bucket is in use, all are forgotten (as a restart would). */
  private evict(rate: number, now: number) {
    for (const [k, b] of this.buckets) if (b.tokens + ((now - b.at) / 1000) * rate >= rate) this.buckets.delete(k);
    if (this.buckets.size >= this.maxTracked) this.buckets.clear();
  }

  get tracked(): number {
    return this.buckets.size;
  }
}

/**
 * Counts per key in fixed windows that start at a key's first count. `max` (when given) is the most
 * a window may count: past it `count` refuses without counting.
 */
export class FixedWindows {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly maxTracked = 100_000) {}

  count(key: string, windowMs: number, max: number | null, now: number): WindowCount {
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      this.windows.delete(key);
      if (this.windows.size >= this.maxTracked) this.evict(now);
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    if (max !== null && w.count >= max) return { ok: false, count: w.count, resetAt: w.resetAt };
    w.count++;
    return { ok: true, count: w.count, resetAt: w.resetAt };
  }

  /** One count comes back (an attempt that did not fail). */
  release(key: string) {
    const w = this.windows.get(key);
    if (w && w.count > 0) w.count--;
  }

  /** Drops finished windows first, then the oldest, so a flood of keys cannot grow the map without bound. */
  private evict(now: number) {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    let excess = this.windows.size - Math.floor(this.maxTracked * 0.9);
    for (const k of this.windows.keys()) {
      if (excess-- <= 0) break;
      this.windows.delete(k);
    }
  }

  get tracked(): number {
    return this.windows.size;
  }
}
