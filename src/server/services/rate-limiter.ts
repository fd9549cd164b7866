/**
 * Per-key token bucket, in memory per instance. `limit` requests per second with a burst of the
 * same size; 0 disables it.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly limit: number) {}

  /** Seconds to wait before retrying, or 0 when the request may go ahead. */
  take(key: string, now = Date.now()): number {
    if (this.limit <= 0) return 0;
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size > 100_000) this.buckets.clear();
      b = { tokens: this.limit, at: now };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(this.limit, b.tokens + ((now - b.at) / 1000) * this.limit);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.limit));
  }
}
