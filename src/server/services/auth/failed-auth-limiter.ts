import { rateLimitKey } from "@/server/lib/ip";
import { LocalLimitStore, whenReady, type LimitStore } from "@/server/services/limits/shared";

/**
 * Counts requests refused before any credentials were accepted (unknown routes, wrong methods,
 * invalid keys) per client address, in fixed windows. Past the limit an address gets 429 instead,
 * until its window ends; requests with valid credentials from it are never refused here. IPv6
 * clients are counted by their /64, the block one customer usually holds. The counts are in the
 * limit store, so with several workers they are the server's, not a worker's.
 */
export interface RefusalVerdict {
  /** Seconds to wait when the address is over its limit, else 0. */
  wait: number;
  /** True for the first refusal over the limit in this window (the one worth recording). */
  firstOver: boolean;
}

const UNDER: RefusalVerdict = { wait: 0, firstOver: false };

export class FailedAuthLimiter {
  /** Addresses known to be over their limit, and until when: a flood of refusals asks the store once. */
  private readonly overUntil = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly store: LimitStore = new LocalLimitStore(),
  ) {}

  /** Records a refusal and says whether the address is now over its limit. */
  fail(address: string, now = Date.now()): RefusalVerdict | Promise<RefusalVerdict> {
    if (this.limit <= 0) return UNDER;
    const key = rateLimitKey(address);
    const over = this.overUntil.get(key);
    if (over !== undefined) {
      if (over > now) return { wait: this.waitSeconds(over, now), firstOver: false };
      this.overUntil.delete(key);
    }
    return whenReady(this.store.count(`auth-failures|${key}`, this.windowMs, null, now), (w) => {
      if (w.count <= this.limit) return UNDER;
      if (this.overUntil.size >= 10_000) this.overUntil.clear();
      this.overUntil.set(key, w.resetAt);
      return { wait: this.waitSeconds(w.resetAt, now), firstOver: w.count === this.limit + 1 };
    });
  }

  /** Whole seconds until `until`, 1 to the window's length: a call that read the clock before another worker opened the window still waits at most one window. */
  private waitSeconds(until: number, now: number): number {
    return Math.min(Math.ceil(this.windowMs / 1000), Math.max(1, Math.ceil((until - now) / 1000)));
  }
}
