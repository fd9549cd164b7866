import { CircuitState, type IBreaker } from "cockatiel";

export interface BreakerRule {
  /** Failed calls in a row that open the circuit. */
  consecutiveFailures: number;
  /** Share of failed calls (0–1) within the window that opens it, once the window holds enough calls. */
  failureRatio: number;
  minimumCalls: number;
  windowMs: number;
}

export const DEFAULT_BREAKER_RULE: BreakerRule = { consecutiveFailures: 5, failureRatio: 0.5, minimumCalls: 20, windowMs: 30_000 };

/** The window is kept as one count per second: a call leaves it between windowMs − 1 s and windowMs after it ended. */
const SLOT_MS = 1_000;

/**
 * Opens on either rule: so many failures in a row, or at least `failureRatio` of at least
 * `minimumCalls` calls that ended in the last `windowMs`. The window is one of time: cockatiel's
 * SamplingBreaker moves to its next slot on every call once a slot's time has passed, so with calls
 * rarer than its slots it kept the last 30 calls whatever their age. Memory is fixed (one count of
 * calls and one of failures per second of the window).
 */
export class SlidingWindowBreaker implements IBreaker {
  private inARow = 0;
  /** Per slot: the second it holds, and its calls and failures. */
  private readonly seconds: Float64Array;
  private readonly calls: Uint32Array;
  private readonly failures: Uint32Array;

  constructor(
    private readonly rule: BreakerRule = DEFAULT_BREAKER_RULE,
    private readonly now: () => number = () => Date.now(),
  ) {
    const slots = Math.max(1, Math.ceil(rule.windowMs / SLOT_MS));
    this.seconds = new Float64Array(slots).fill(-Infinity);
    this.calls = new Uint32Array(slots);
    this.failures = new Uint32Array(slots);
  }

  get state(): unknown {
    return { inARow: this.inARow, seconds: [...this.seconds], calls: [...this.calls], failures: [...this.failures] };
  }

  set state(value: unknown) {
    const v = value as { inARow: number; seconds: number[]; calls: number[]; failures: number[] };
    this.inARow = v.inARow;
    this.seconds.set(v.seconds);
    this.calls.set(v.calls);
    this.failures.set(v.failures);
  }

  success(state: CircuitState): void {
    // The trial call closed the circuit: what went before it no longer counts.
    if (state === CircuitState.HalfOpen) return this.reset();
    this.inARow = 0;
    this.count(false);
  }

  failure(state: CircuitState): boolean {
    this.inARow++;
    this.count(true);
    // Only a closed circuit opens on the counts; a failed trial call opens it again.
    if (state === CircuitState.HalfOpen) return true;
    if (state !== CircuitState.Closed) return false;
    if (this.inARow >= this.rule.consecutiveFailures) return true;
    const newest = Math.floor(this.now() / SLOT_MS);
    let calls = 0;
    let failures = 0;
    for (let i = 0; i < this.seconds.length; i++) {
      if (this.seconds[i]! > newest - this.seconds.length) {
        calls += this.calls[i]!;
        failures += this.failures[i]!;
      }
    }
    return calls >= this.rule.minimumCalls && failures >= this.rule.failureRatio * calls;
  }

  reset(): void {
    this.inARow = 0;
    this.seconds.fill(-Infinity);
    this.calls.fill(0);
    this.failures.fill(0);
  }

  private count(failed: boolean): void {
    const second = Math.floor(this.now() / SLOT_MS);
    const i = second % this.seconds.length;
    if (this.seconds[i] !== second) {
      this.seconds[i] = second;
      this.calls[i] = 0;
      this.failures[i] = 0;
    }
    this.calls[i]!++;
    if (failed) this.failures[i]!++;
  }
}
