import { ConsecutiveBreaker, SamplingBreaker, type CircuitState, type IBreaker } from "cockatiel";

export interface BreakerRule {
  /** Failed calls in a row that open the circuit. */
  consecutiveFailures: number;
  /** Share of failed calls (0–1) within the window that opens it, once the window holds enough calls. */
  failureRatio: number;
  minimumCalls: number;
  windowMs: number;
}

export const DEFAULT_BREAKER_RULE: BreakerRule = { consecutiveFailures: 5, failureRatio: 0.5, minimumCalls: 20, windowMs: 30_000 };

/**
 * Opens on either rule: so many failures in a row, or a failure share over a sliding window. The
 * sampling breaker opens only above its threshold, so "at least half" asks it for a hair under half.
 */
export class ConsecutiveOrSamplingBreaker implements IBreaker {
  private readonly consecutive: ConsecutiveBreaker;
  private readonly sampling: SamplingBreaker;

  constructor(rule: BreakerRule = DEFAULT_BREAKER_RULE) {
    this.consecutive = new ConsecutiveBreaker(rule.consecutiveFailures);
    this.sampling = new SamplingBreaker({
      threshold: rule.failureRatio - 1e-9,
      duration: rule.windowMs,
      minimumRps: rule.minimumCalls / (rule.windowMs / 1000),
    });
  }

  get state(): unknown {
    return { consecutive: this.consecutive.state, sampling: this.sampling.state };
  }

  set state(value: unknown) {
    const v = value as { consecutive: number; sampling: unknown };
    this.consecutive.state = v.consecutive;
    this.sampling.state = v.sampling;
  }

  success(state: CircuitState): void {
    this.consecutive.success();
    this.sampling.success(state);
  }

  failure(state: CircuitState): boolean {
    // Both see every failure, so each keeps its own count right.
    const inARow = this.consecutive.failure();
    const share = this.sampling.failure(state);
    return inARow || share;
  }
}
