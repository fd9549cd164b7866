/**
 * The server-wide side of an upstream family: its bulkhead (calls in flight), its rate limit
 * (calls started a second) and its circuit breaker, in one Gate per family. Each call asks the gate to be let through and tells it how the
 * call ended; the gate decides from every call of the server, whichever process or thread made it.
 *
 * Where the gates live: in the process (LocalGates), or for a cluster worker and a page thread,
 * where the server's shared limits are counted (src/server/services/limits/shared.ts: the primary
 * answers its workers over the cluster's IPC channel, a process its page thread). A local gate
 * answers synchronously, so a one-process server pays no message for it.
 *
 * Why not cockatiel's bulkhead and circuit breaker policies: their counts live in the process that
 * runs them, and its half-open state makes the calls that arrive while the trial call is out wait
 * for that trial. The rule that opens the circuit is cockatiel's IBreaker (./breaker.ts); retries
 * stay cockatiel's (./client.ts).
 */
import { CircuitState } from "cockatiel";
import { TokenBuckets } from "@/server/lib/counters";
import { SlidingWindowBreaker, type BreakerRule } from "./breaker";

export interface GateSettings {
  /** Calls in flight at once; past it a call is refused. */
  maxConcurrency: number;
  /**
   * Calls started per second, as a token bucket holding one second's worth (a burst of at most
   * this many, then this many a second); past it a call is refused at once. 0: no limit.
   */
  maxRps?: number;
  /** How long an open circuit refuses calls before one trial call. */
  openMs: number;
  breaker: BreakerRule;
}

export type Admission =
  | { admitted: true; /** The one call that decides whether an open circuit closes. */ trial: boolean }
  | { admitted: false; reason: "open" | "full" | "rate"; retryAfterMs: number };

/** How an admitted call ended: the vendor answered, or it failed (the breaker counts it), or it vanished with its process. */
export type CallEnd = "answered" | "failed" | "abandoned";

export type BreakerState = "closed" | "open" | "half-open";

export interface GateView {
  key: string;
  breaker: BreakerState;
  /** While open: when the next call may be the trial. */
  openUntil: number | null;
  inFlight: number;
}

/** Calls refused while the trial call is out may come back in about a second: by then it has usually decided. */
export const TRIAL_RETRY_AFTER_MS = 1_000;
/** A full bulkhead frees a slot as soon as a call ends. */
export const FULL_RETRY_AFTER_MS = 1_000;

/** Where a family's gate lives. Local stores answer synchronously, remote ones as promises. */
export interface UpstreamGates {
  readonly remote: boolean;
  admit(key: string, settings: GateSettings): Admission | Promise<Admission>;
  /** Exactly once per admitted call. */
  end(key: string, trial: boolean, how: CallEnd): void;
  views(): GateView[] | Promise<GateView[]>;
}

/** A gate key's parts for log lines: `cashfree:pan` → { vendor: "cashfree", family: "pan" } (a bare family is Cashfree's). */
export function keyParts(key: string): { vendor: string; family: string } {
  const at = key.indexOf(":");
  return at < 0 ? { vendor: "cashfree", family: key } : { vendor: key.slice(0, at), family: key.slice(at + 1) };
}

/** Told when a circuit opens (once per server, by the process that holds the gate). */
export type OnOpen = (key: string, openMs: number) => void;

export class Gate {
  private inFlight = 0;
  private circuit: CircuitState.Closed | CircuitState.Open | CircuitState.HalfOpen = CircuitState.Closed;
  private openUntil = 0;
  private trialOut = false;
  private readonly breaker: SlidingWindowBreaker;
  /** The rate limit's bucket (one, under this gate's key). */
  private readonly bucket = new TokenBuckets(1);

  constructor(
    readonly key: string,
    private settings: GateSettings,
    private readonly onOpen: OnOpen,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.breaker = new SlidingWindowBreaker(settings.breaker, now);
  }

  /** A client built again with other limits (tests, a restarted page thread) brings them. */
  update(settings: GateSettings): void {
    this.settings = settings;
  }

  admit(): Admission {
    if (this.circuit === CircuitState.Open) {
      const left = this.openUntil - this.now();
      if (left > 0) return { admitted: false, reason: "open", retryAfterMs: left };
      this.circuit = CircuitState.HalfOpen;
    }
    if (this.inFlight >= this.settings.maxConcurrency) return { admitted: false, reason: "full", retryAfterMs: FULL_RETRY_AFTER_MS };
    if (this.circuit === CircuitState.HalfOpen && this.trialOut) return { admitted: false, reason: "open", retryAfterMs: TRIAL_RETRY_AFTER_MS };
    const waitMs = this.takeToken();
    if (waitMs > 0) return { admitted: false, reason: "rate", retryAfterMs: waitMs };
    if (this.circuit === CircuitState.HalfOpen) {
      this.trialOut = true;
      this.inFlight++;
      return { admitted: true, trial: true };
    }
    this.inFlight++;
    return { admitted: true, trial: false };
  }

  end(trial: boolean, how: CallEnd): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (trial) this.trialOut = false;
    // A call whose process went away decides nothing: the next call is the trial.
    if (how === "abandoned") return;
    if (trial) {
      if (how === "answered") {
        this.circuit = CircuitState.Closed;
        this.breaker.success(CircuitState.HalfOpen);
      } else this.open();
      return;
    }
    // Calls admitted before the circuit opened still end; only a closed circuit opens on them.
    if (how === "answered") this.breaker.success(this.circuit === CircuitState.Closed ? CircuitState.Closed : CircuitState.Open);
    else if (this.breaker.failure(this.circuit) && this.circuit === CircuitState.Closed) this.open();
  }

  view(): GateView {
    const breaker: BreakerState = this.circuit === CircuitState.Closed ? "closed" : this.circuit === CircuitState.Open ? "open" : "half-open";
    return { key: this.key, breaker, openUntil: this.circuit === CircuitState.Open ? this.openUntil : null, inFlight: this.inFlight };
  }

  /** Takes one token of the rate limit's bucket: 0 when taken, else how long until one is there. */
  private takeToken(): number {
    const rate = this.settings.maxRps ?? 0;
    return rate > 0 ? this.bucket.grant(this.key, 1, rate, this.now()).waitMs : 0;
  }

  private open(): void {
    this.circuit = CircuitState.Open;
    this.openUntil = this.now() + this.settings.openMs;
    this.onOpen(this.key, this.settings.openMs);
  }
}

/** The gates of this process. */
export class LocalGates implements UpstreamGates {
  readonly remote = false;
  private readonly gates = new Map<string, Gate>();

  constructor(
    private readonly onOpen: OnOpen = () => {},
    private readonly now: () => number = () => Date.now(),
  ) {}

  admit(key: string, settings: GateSettings): Admission {
    let gate = this.gates.get(key);
    if (!gate) this.gates.set(key, (gate = new Gate(key, settings, this.onOpen, this.now)));
    else gate.update(settings);
    return gate.admit();
  }

  end(key: string, trial: boolean, how: CallEnd): void {
    this.gates.get(key)?.end(trial, how);
  }

  views(): GateView[] {
    return [...this.gates.values()].map((g) => g.view());
  }
}
