import { log } from "@/server/lib/logger";
import { keyParts, LocalGates, type Admission, type CallEnd, type GateSettings, type GateView, type UpstreamGates } from "@/server/providers/upstream/gate";
import { FixedWindows, TokenBuckets, type Grant, type WindowCount } from "@/server/lib/counters";

export type { Grant, WindowCount } from "@/server/lib/counters";

/**
 * Where the server-wide limits keep their counts. In one process, here in memory; in a cluster
 * worker, in the primary (src/server/cluster/limits-ipc.ts), so every worker counts against the same
 * numbers. Local answers come back synchronously, remote ones as promises. The upstream families'
 * bulkheads and circuit breakers (src/server/providers/upstream/gate.ts) are kept here too.
 */
export interface LimitStore extends UpstreamGates {
  /** True when every call is a message to another process. */
  readonly remote: boolean;
  /** Takes up to `want` tokens from bucket `key` (a burst of `rate`, then `rate` per second). */
  grant(key: string, want: number, rate: number, now?: number): Grant | Promise<Grant>;
  /** Unused tokens go back to the bucket. */
  giveBack(key: string, n: number, rate: number, now?: number): void;
  /** Counts one in window `key` unless it already holds `max` (see FixedWindows). */
  count(key: string, windowMs: number, max: number | null, now?: number): WindowCount | Promise<WindowCount>;
  /** Gives one count back. */
  release(key: string): void;
}

/** The counts in this process's memory. */
export class LocalLimitStore implements LimitStore {
  readonly remote = false;
  private readonly buckets = new TokenBuckets();
  private readonly windows = new FixedWindows();
  // The process that holds the gate tells of an opening: once per server, however many workers call.
  private readonly gates = new LocalGates((key, openMs) => log.warn("upstream circuit opened", { ...keyParts(key), openMs }));

  grant(key: string, want: number, rate: number, now = Date.now()): Grant {
    return this.buckets.grant(key, want, rate, now);
  }
  giveBack(key: string, n: number, rate: number, now = Date.now()) {
    this.buckets.giveBack(key, n, rate, now);
  }
  count(key: string, windowMs: number, max: number | null, now = Date.now()): WindowCount {
    return this.windows.count(key, windowMs, max, now);
  }
  release(key: string) {
    this.windows.release(key);
  }
  admit(key: string, settings: GateSettings): Admission {
    return this.gates.admit(key, settings);
  }
  end(key: string, trial: boolean, how: CallEnd) {
    this.gates.end(key, trial, how);
  }
  views(): GateView[] {
    return this.gates.views();
  }
}

// Next bundles its own copy of server modules: the process's store lives on globalThis, so the
// dashboard's limits and the REST door's count in the same place.
const KEY = Symbol.for("parakh.limits");
type Holder = { [KEY]?: LimitStore };

/** The process's limit store: local unless a cluster worker installed the primary's. */
export function sharedLimits(): LimitStore {
  const holder = globalThis as Holder;
  holder[KEY] ??= new LocalLimitStore();
  return holder[KEY];
}

/** Installs the store every limit of this process uses from now on (a cluster worker, at start). */
export function installSharedLimits(store: LimitStore) {
  (globalThis as Holder)[KEY] = store;
}

/** Runs `then` on a value now, or once its promise settles: local answers stay synchronous. */
export function whenReady<T, R>(value: T | Promise<T>, then: (v: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}
