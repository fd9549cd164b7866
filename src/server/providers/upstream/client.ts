/**
 * Every call to an upstream vendor goes through an UpstreamClient, one per family (PAN, EPFO,
 * Aadhaar, bank, payments) per thread:
 *
 *   gate: bulkhead (no queue) and circuit breaker, for the whole server → retries (inside one deadline) → one HTTP attempt
 *
 * The gate (./gate.ts) is the family's for the whole server: the server wires every thread's client
 * of a family to one gate, counted in the process or, in a cluster, in the primary; a client built
 * on its own (a test, a tool) has its own. One Deadline is the whole call's: connect, headers, body
 * and the pauses between retries. The answer's body is read up to 1 MiB. What the vendor's answer
 * means is the adapter's business (`read`); this layer only turns transport faults and the vendor's
 * own failure statuses into Parakh's codes. Credentials and request bodies are never logged.
 */
import { Agent } from "undici";
import { ExponentialBackoff, handleWhen, retry, type RetryPolicy } from "cockatiel";
import { AppError, isAppError, type AppErrorOptions, type ErrorCode } from "@/server/errors";
import { DEFAULT_BREAKER_RULE, type BreakerRule } from "./breaker";
import { Deadline, exchange, type ExchangeLimits, type RawAnswer } from "./exchange";
import { keyParts, LocalGates, type Admission, type BreakerState, type CallEnd, type GateSettings, type GateView, type UpstreamGates } from "./gate";
import { CallLog, type UpstreamCallCounts, type UpstreamFamilyStats, type UpstreamOutcome } from "./stats";

export type UpstreamFamily = "pan" | "epfo" | "aadhaar" | "bank" | "payments";
export type UpstreamVendor = "cashfree" | "setu";

/** Where a vendor's family is kept: its gate (bulkhead, breaker) and its statistics. */
export const upstreamKey = (vendor: UpstreamVendor, family: UpstreamFamily) => `${vendor}:${family}`;
export { UPSTREAM_OUTCOMES, type UpstreamCallCounts, type UpstreamOutcome } from "./stats";

export const CONNECT_TIMEOUT_MS = 2_000;
export const MAX_BODY_BYTES = 1024 * 1024;
/** Parakh's Retry-After when the vendor sends none. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;
export const MAX_RETRIES = 2;
export const DEFAULT_OPEN_MS = 30_000;

export interface UpstreamLogger {
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface UpstreamClientOptions {
  family: UpstreamFamily;
  /** Who is called (its gate, breaker and statistics are the vendor's for the family); default `cashfree`. */
  vendor?: UpstreamVendor;
  /** No trailing slash; paths are appended. */
  baseUrl: string;
  /** Sent on every call (the vendor's credentials). Never logged. */
  headers: Record<string, string>;
  timeoutMs: number;
  maxConcurrency: number;
  /** Calls started a second, server-wide (UPSTREAM_MAX_RPS); 0 or absent: no limit. */
  maxRps?: number;
  /** What an unavailable vendor is to the caller: verification families say SOURCE_UNAVAILABLE, payments SERVICE_UNAVAILABLE. */
  unavailableCode?: "SOURCE_UNAVAILABLE" | "SERVICE_UNAVAILABLE";
  logger: UpstreamLogger;
  breaker?: BreakerRule;
  /** How long an open circuit refuses calls before one trial call. */
  openMs?: number;
  connectTimeoutMs?: number;
  maxBodyBytes?: number;
  /** Smallest pause before a retry; the pauses grow exponentially with jitter, at most 1 s. */
  retryDelayMs?: number;
  /** False keeps a one-off client (an operator's check) out of the operator statistics. */
  listed?: boolean;
  /**
   * Where the family's bulkhead and breaker live: the server passes its shared store, so that every
   * thread and worker counts in one gate. Without it the client has a gate of its own.
   */
  gates?: UpstreamGates;
}

export interface UpstreamRequest {
  /** PATCH is retried like a POST: only where the first try provably did not take effect. */
  method: "GET" | "POST" | "PATCH";
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * The vendor de-duplicates this POST by an id in its body and answers a repeat "already exists",
   * which the adapter reads back (a PG order or refund): a connection cut after it was sent may be
   * retried, as a GET's may. Other POSTs are not (a PAN check or a bank check may have been done and billed).
   */
  deduplicated?: boolean;
  /**
   * When the whole Parakh call must end (Date.now() milliseconds): a call that tries several vendors
   * gives each its share. The call's own deadline is the earlier of this and the client's timeout.
   */
  deadlineAt?: number;
}

/** An answer the adapter reads: any 2xx, or a 4xx that is the vendor's word on the input (not 401, 403, 429). */
export interface UpstreamAnswer {
  status: number;
  /** Parsed JSON; null for an empty body. */
  body: unknown;
}

/**
 * A failure of the upstream rather than an answer. `countsAsFailure`: the breaker counts it (connect
 * errors, deadlines, 5xx, unreadable answers). `retryable`: the attempt provably did not take effect.
 */
export class UpstreamFailure extends AppError {
  readonly countsAsFailure: boolean;
  readonly retryable: boolean;
  constructor(code: ErrorCode, message: string, opts: AppErrorOptions & { countsAsFailure: boolean; retryable?: boolean }) {
    super(code, message, opts);
    this.countsAsFailure = opts.countsAsFailure;
    this.retryable = opts.retryable ?? false;
  }
}

/** The vendor refused Parakh's own account (credentials, or this server's address not whitelisted): operators see the family misconfigured. */
export class UpstreamAccountRefused extends UpstreamFailure {
  /** What the vendor said, for operators: the HTTP status and the vendor's error code, never its message. */
  readonly reason: string;
  constructor(reason: string, code: ErrorCode, message: string, opts: AppErrorOptions & { countsAsFailure: boolean }) {
    super(code, message, opts);
    this.reason = reason;
  }
}

/** The adapter's own reading of an answer it cannot use (missing fields, an unknown shape): counted like a 5xx. */
export function unreadableAnswer(what: string): UpstreamFailure {
  return new UpstreamFailure("UPSTREAM_ERROR", `The upstream source's answer could not be read: ${what}.`, { countsAsFailure: true });
}

/** Connection failures that end a try at once: retried when the request provably was not sent (or may be sent again). */
const CONNECTION_LOST = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

/** Seconds from a Retry-After header (seconds or an HTTP date), within 1 s–1 h; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (!value) return null;
  const text = value.trim();
  const seconds = /^\d+$/.test(text) ? Number(text) : Math.ceil((Date.parse(text) - now) / 1000);
  if (!Number.isFinite(seconds)) return null;
  return Math.min(3600, Math.max(1, seconds));
}

/** The vendor's error code from an error body (`{ code, type, message }`), if it has one; never its message. */
export function vendorErrorCode(body: unknown): string | null {
  if (body && typeof body === "object" && typeof (body as { code?: unknown }).code === "string") return (body as { code: string }).code;
  return null;
}

type Outcome<T> = { value: T } | { answerError: unknown };

function outcomeOf(failure: UpstreamFailure): UpstreamOutcome {
  if (failure instanceof UpstreamAccountRefused) return "misconfigured";
  if (failure.code === "SOURCE_TIMEOUT") return "timeout";
  return failure.countsAsFailure ? "failed" : "rejected";
}

// Next bundles its own copy of this module beside the server process's; the console must read the
// clients the process's services built, so the list lives on globalThis (as the services do).
const REGISTRY_KEY = Symbol.for("parakh.upstream-clients");
const registry = ((globalThis as { [REGISTRY_KEY]?: Map<string, UpstreamClient> })[REGISTRY_KEY] ??= new Map());

// Failovers away from a vendor, by gate key, since the process started (the family routers count them).
const FAILOVERS_KEY = Symbol.for("parakh.upstream-failovers");
const failovers = ((globalThis as { [FAILOVERS_KEY]?: Map<string, number> })[FAILOVERS_KEY] ??= new Map());

/** A family's router moved a call on from this vendor to the next one. */
export function noteFailover(vendor: UpstreamVendor, family: UpstreamFamily): void {
  const key = upstreamKey(vendor, family);
  failovers.set(key, (failovers.get(key) ?? 0) + 1);
}

/** Each family's calls since the process started, by outcome, and its breaker now: for the metrics scrape. */
export function upstreamCallCounts(): UpstreamCallCounts[] {
  return [...registry.values()].map((c) => c.counts());
}

/** Each family's breaker state, misconfiguration, calls, failures, p95 and last error, for operators. */
export function upstreamStats(): UpstreamFamilyStats[] {
  return [...registry.values()].map((c) => c.stats());
}

/** Each family's gate as the server holds it (in a cluster, as the primary does): its breaker for every worker at once. */
export async function upstreamGateViews(): Promise<Map<string, GateView>> {
  const views = new Map<string, GateView>();
  for (const gates of new Set([...registry.values()].map((c) => c.gates))) {
    for (const view of await gates.views()) views.set(view.key, view);
  }
  return views;
}

export class UpstreamClient {
  readonly family: UpstreamFamily;
  readonly vendor: UpstreamVendor;
  /** The gate's and the registry's name for this vendor's family. */
  readonly key: string;
  /** Where this family's bulkhead and breaker are kept. */
  readonly gates: UpstreamGates;
  private readonly options: Required<Omit<UpstreamClientOptions, "breaker" | "gates" | "vendor">> & { breaker: BreakerRule };
  private readonly settings: GateSettings;
  private readonly dispatcher: Agent;
  /** The base URL split for undici: its origin, and the path the call's path is appended to. */
  private readonly origin: string;
  private readonly pathPrefix: string;
  private readonly retry: RetryPolicy;
  private readonly calls = new CallLog();
  /** Calls since the process started, by how they ended. */
  private readonly outcomes: Record<UpstreamOutcome, number> = { ok: 0, timeout: 0, failed: 0, misconfigured: 0, rejected: 0 };
  /** The body cap and the failures an exchange can end with: for a request that may be sent again (GET), and for one that may not. */
  private readonly repeatable: ExchangeLimits;
  private readonly once: ExchangeLimits;
  /** The breaker as this thread last heard of it, where the gate is another process's (see breakerNow). */
  private lastSeen: { breaker: BreakerState; openUntil: number | null } = { breaker: "closed", openUntil: null };
  private misconfigured = false;

  constructor(options: UpstreamClientOptions) {
    this.family = options.family;
    this.vendor = options.vendor ?? "cashfree";
    this.key = upstreamKey(this.vendor, this.family);
    const { gates, vendor: _vendor, ...rest } = options;
    this.options = {
      unavailableCode: "SOURCE_UNAVAILABLE",
      breaker: DEFAULT_BREAKER_RULE,
      openMs: DEFAULT_OPEN_MS,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      maxRps: 0,
      maxBodyBytes: MAX_BODY_BYTES,
      retryDelayMs: 100,
      listed: true,
      ...rest,
    };
    this.gates = gates ?? new LocalGates((key, openMs) => this.options.logger.warn("upstream circuit opened", { ...keyParts(key), openMs }));
    this.settings = { maxConcurrency: this.options.maxConcurrency, maxRps: this.options.maxRps, openMs: this.options.openMs, breaker: this.options.breaker };
    const base = new URL(this.options.baseUrl);
    this.origin = base.origin;
    this.pathPrefix = base.pathname.replace(/\/$/, "");
    // The call's own deadline ends headers and body; the agent's timers would only cut it shorter.
    // Kept-alive connections, at most one per call the bulkhead lets through: undici frees a connection
    // a moment after its answer, and an unbounded pool opens a new one for any call that comes in that
    // moment, so under a steady load it keeps growing (about 70 new connections per 1,000 calls at 600
    // in flight); bounded, such a call waits the moment for the freed one.
    this.dispatcher = new Agent({
      connect: { timeout: this.options.connectTimeoutMs },
      headersTimeout: 0,
      bodyTimeout: 0,
      connections: this.options.maxConcurrency,
    });
    this.retry = retry(
      handleWhen((e) => e instanceof UpstreamFailure && e.retryable),
      { maxAttempts: MAX_RETRIES, backoff: new ExponentialBackoff({ initialDelay: this.options.retryDelayMs, maxDelay: 1_000 }) },
    );
    this.repeatable = this.exchangeLimits(true);
    this.once = this.exchangeLimits(false);
    if (this.options.listed) registry.set(this.key, this);
  }

  private exchangeLimits(repeatable: boolean): ExchangeLimits {
    const maxBodyBytes = this.options.maxBodyBytes;
    return {
      maxBodyBytes,
      timedOut: () => this.timedOut(),
      tooLarge: () =>
        new UpstreamFailure("UPSTREAM_ERROR", `The upstream source's answer is over ${Math.round(maxBodyBytes / 1024)} KiB; it was not read further.`, {
          countsAsFailure: true,
        }),
      brokeOff: (err) =>
        this.unavailable(`The upstream source's answer broke off (${connectionErrorCode(err) ?? "read failed"}).`, null, {
          countsAsFailure: true,
          retryable: false,
        }),
      unreachable: (err, sent) => {
        const code = connectionErrorCode(err);
        return this.unavailable(`The upstream source could not be reached (${code ?? "connection failed"}).`, null, {
          countsAsFailure: true,
          // Refused, or cut before the request went out: the vendor never saw it. Once sent, the vendor
          // may have read and done it: only a request that may be sent again is. A connect timeout is a timeout.
          retryable: code !== null && CONNECTION_LOST.has(code) && (!sent || repeatable),
        });
      },
    };
  }

  /**
   * One Parakh call: `read` turns the vendor's answer into the adapter's result, or throws. An
   * UpstreamFailure it throws counts against the breaker; any other error it throws is the
   * vendor's word (a business answer) and passes to the caller as it is.
   */
  async call<T>(request: UpstreamRequest, read: (answer: UpstreamAnswer) => T): Promise<T> {
    const started = performance.now();
    const budgetMs = request.deadlineAt === undefined ? this.options.timeoutMs : Math.min(this.options.timeoutMs, request.deadlineAt - Date.now());
    const deadline = new Deadline(Math.max(0, budgetMs));
    let admitted: { trial: boolean } | null = null;
    let end: CallEnd = "answered";
    let outcome: Outcome<T>;
    try {
      const asked = this.gates.admit(this.key, this.settings);
      const admission = asked instanceof Promise ? await asked : asked;
      if (this.gates.remote) this.heard(admission);
      if (!admission.admitted) throw this.refusal(admission);
      admitted = admission;
      const answer = await this.retry.execute(() => this.attempt(request, deadline));
      try {
        outcome = { value: read(answer) };
      } catch (err) {
        if (err instanceof UpstreamFailure) throw err;
        outcome = { answerError: err };
      }
    } catch (err) {
      const failure = this.toAppError(err);
      if (failure instanceof UpstreamFailure) {
        if (failure.countsAsFailure) end = "failed";
        this.calls.record(performance.now() - started, failure.countsAsFailure);
        this.outcomes[outcomeOf(failure)]++;
        // A refusal's own message is the merchant's; operators need the vendor's status and code.
        this.calls.noteError(failure instanceof UpstreamAccountRefused ? `The vendor refused Parakh's account (${failure.reason}).` : failure.message);
      }
      throw failure;
    } finally {
      // The gate hears how every call it let through ended, once.
      if (admitted) this.gates.end(this.key, admitted.trial, end);
      deadline.clear();
    }
    this.misconfigured = false;
    this.calls.record(performance.now() - started, false);
    this.outcomes.ok++;
    if ("answerError" in outcome) throw this.toAppError(outcome.answerError);
    return outcome.value;
  }

  /**
   * One request for an operator's check: the call's deadline and body cap, but no bulkhead, no
   * breaker and no retries, and not counted in the family's calls, so a check can neither trip the
   * breaker nor close it. Gives what `call` hands its reader (a 2xx, or a 4xx other than 401, 403
   * and 429); throws the UpstreamFailure `call` would, UpstreamAccountRefused for a 401 or 403.
   */
  async probe(request: UpstreamRequest): Promise<UpstreamAnswer> {
    const deadline = new Deadline(this.options.timeoutMs);
    try {
      return await this.attempt(request, deadline);
    } catch (err) {
      throw this.toAppError(err);
    } finally {
      deadline.clear();
    }
  }

  counts(): UpstreamCallCounts {
    return {
      family: this.family,
      vendor: this.vendor,
      breaker: this.breakerNow().breaker,
      misconfigured: this.misconfigured,
      calls: { ...this.outcomes },
      failovers: failovers.get(this.key) ?? 0,
    };
  }

  /**
   * The breaker, read at once: from the gate when it is this thread's, else as the last admission
   * told (the console and the scrape read the gate itself: see upstreamGateViews).
   */
  private breakerNow(): { breaker: BreakerState; openUntil: number | null } {
    const views = this.gates.remote ? null : this.gates.views();
    if (!views || views instanceof Promise) return this.lastSeen;
    return views.find((v) => v.key === this.key) ?? { breaker: "closed", openUntil: null };
  }

  /** What an admission says of the breaker, kept for breakerNow. */
  private heard(admission: Admission): void {
    if (admission.admitted) this.lastSeen = { breaker: admission.trial ? "half-open" : "closed", openUntil: null };
    else if (admission.reason === "open") this.lastSeen = { breaker: "open", openUntil: Date.now() + admission.retryAfterMs };
  }

  stats(): UpstreamFamilyStats {
    const { breaker, openUntil } = this.breakerNow();
    const retryAt = openUntil === null ? null : new Date(openUntil).toISOString();
    return { family: this.family, vendor: this.vendor, breaker, retryAt, misconfigured: this.misconfigured, ...this.calls.summary() };
  }

  /** For adapters that learn from an answer's content that Parakh's own account is the problem (e.g. test keys on the live host). */
  refuseMisconfigured(reason: string): UpstreamAccountRefused {
    this.misconfigured = true;
    this.options.logger.error("upstream refused Parakh's account: check the vendor credentials and whitelisted IPs", {
      family: this.family,
      vendor: this.vendor,
      reason,
    });
    return new UpstreamAccountRefused(reason, this.options.unavailableCode, "The upstream source is not available to this server right now.", {
      countsAsFailure: false,
      retryAfterSeconds: 60,
    });
  }

  /** A refusal the vendor's connector cannot use (not an outage: the breaker does not count it). */
  cannotUse(message: string): UpstreamFailure {
    return new UpstreamFailure("UPSTREAM_ERROR", message, { countsAsFailure: false });
  }

  /** A call the gate did not let through: never reached the vendor, never counted against the breaker. */
  private refusal(admission: Extract<Admission, { admitted: false }>): UpstreamFailure {
    const message =
      admission.reason === "full"
        ? "Too many calls to the upstream source are in flight; retry shortly."
        : admission.reason === "rate"
          ? "Calls to the upstream source are at this server's rate limit; retry shortly."
          : "The upstream source is failing; calls are paused for a while.";
    return new UpstreamFailure(this.options.unavailableCode, message, {
      countsAsFailure: false,
      retryAfterSeconds: Math.max(1, Math.ceil(admission.retryAfterMs / 1000)),
    });
  }

  private toAppError(err: unknown): AppError {
    if (isAppError(err)) return err;
    return new UpstreamFailure("UPSTREAM_ERROR", "The upstream call failed unexpectedly.", { countsAsFailure: true, cause: err });
  }

  private unavailable(message: string, retryAfterSeconds: number | null, flags: { countsAsFailure: boolean; retryable: boolean }): UpstreamFailure {
    return new UpstreamFailure(this.options.unavailableCode, message, { ...flags, retryAfterSeconds: retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS });
  }

  private timedOut(): UpstreamFailure {
    return new UpstreamFailure("SOURCE_TIMEOUT", `The upstream source did not answer within ${this.options.timeoutMs} ms.`, {
      countsAsFailure: true,
      retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
    });
  }

  /** One HTTP exchange, classified. Throws UpstreamFailure; returns only answers the adapter reads. */
  private async attempt(request: UpstreamRequest, deadline: Deadline): Promise<UpstreamAnswer> {
    if (deadline.expired) throw this.timedOut();
    const { status, retryAfter: retryAfterHeader, text } = await this.exchange(request, deadline);
    const retryAfter = parseRetryAfter(retryAfterHeader);
    if (status === 401 || status === 403) {
      throw this.refuseMisconfigured(`HTTP ${status}${codeSuffix(parseJson(text))}`);
    }
    if (status === 429) {
      throw this.unavailable(`The upstream source is rate limiting calls (HTTP 429${codeSuffix(parseJson(text))}).`, retryAfter, {
        countsAsFailure: false,
        retryable: true,
      });
    }
    if (status >= 500) {
      throw this.unavailable(`The upstream source failed (HTTP ${status}${codeSuffix(parseJson(text))}).`, retryAfter, {
        countsAsFailure: true,
        // A POST may have been processed (and billed) unless the vendor said it was unavailable.
        retryable: status === 503 || request.method === "GET",
      });
    }
    if (status < 200 || (status >= 300 && status < 400)) {
      throw new UpstreamFailure("UPSTREAM_ERROR", `The upstream source answered HTTP ${status}.`, { countsAsFailure: true });
    }
    const body = text === "" ? null : parseJson(text);
    if (body === undefined) {
      throw new UpstreamFailure("UPSTREAM_ERROR", `The upstream source's answer (HTTP ${status}) is not JSON.`, { countsAsFailure: true });
    }
    return { status, body };
  }

  /** The request and its answer (status, Retry-After, body up to maxBodyBytes), within the deadline. */
  private exchange(request: UpstreamRequest, deadline: Deadline): Promise<RawAnswer> {
    return exchange(
      this.dispatcher,
      {
        origin: this.origin,
        path: `${this.pathPrefix}${request.path}`,
        method: request.method,
        headers: {
          accept: "application/json",
          // Some gateways refuse calls without one.
          "user-agent": "Parakh",
          ...(request.body === undefined ? {} : { "content-type": "application/json" }),
          ...this.options.headers,
          ...request.headers,
        },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      },
      deadline,
      request.method === "GET" || request.deduplicated === true ? this.repeatable : this.once,
    );
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function codeSuffix(body: unknown): string {
  const code = vendorErrorCode(body);
  return code ? `, ${code}` : "";
}

/** The system or undici error code of a failed request, looking under wrapping errors (their `cause`). */
function connectionErrorCode(err: unknown): string | null {
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}
