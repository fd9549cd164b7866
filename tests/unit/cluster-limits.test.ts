import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { answerLimits, IpcLimitStore, type Channel } from "@/server/cluster/limits-ipc";
import { restartDelay } from "@/server/cluster/primary";
import { FailedAuthLimiter } from "@/server/services/auth/failed-auth-limiter";
import { FixedWindows, TokenBuckets } from "@/server/lib/counters";
import { DEFAULT_BREAKER_RULE } from "@/server/providers/upstream/breaker";
import type { Admission, GateSettings } from "@/server/providers/upstream/gate";
import { LocalLimitStore, type LimitStore } from "@/server/services/limits/shared";
import { LEASE_MS, RateLimiter } from "@/server/services/rate-limiter";

const T0 = 1_700_000_000_000;

/** Two ends of an IPC channel in one process; messages arrive asynchronously, as over a pipe. */
function channelPair(): [Channel, Channel, { messages: number }] {
  const listeners: [((m: unknown) => void)[], ((m: unknown) => void)[]] = [[], []];
  const stats = { messages: 0 };
  const end = (mine: 0 | 1): Channel => ({
    send: (message, callback) => {
      stats.messages++;
      const copy = JSON.parse(JSON.stringify(message));
      void Promise.resolve().then(() => {
        for (const l of listeners[mine === 0 ? 1 : 0]) l(copy);
        callback(null);
      });
      return true;
    },
    on: (_event, listener) => void listeners[mine].push(listener),
  });
  return [end(0), end(1), stats];
}

/** A primary's store and `n` workers' stores talking to it. */
function cluster(n: number) {
  const primary = new LocalLimitStore();
  const workers = Array.from({ length: n }, () => {
    const [workerEnd, primaryEnd, stats] = channelPair();
    // `exited`: what the primary does when this worker's process is gone.
    const answering = answerLimits(primaryEnd, primary);
    return { store: new IpcLimitStore(workerEnd), stats, exited: () => answering.close() };
  });
  return { primary, workers, messages: () => workers.reduce((sum, w) => sum + w.stats.messages, 0) };
}

const admittedOf = (waits: number[]) => waits.filter((w) => w === 0).length;

describe("counters", () => {
  it("a token bucket gives a burst of `rate`, refills `rate` a second, and takes back unused tokens up to the burst", () => {
    const b = new TokenBuckets();
    expect(b.grant("k", 7, 10, T0)).toEqual({ granted: 7, waitMs: 0 });
    expect(b.grant("k", 7, 10, T0)).toEqual({ granted: 3, waitMs: 0 });
    // Empty: one token at 10/s is 100 ms away.
    expect(b.grant("k", 1, 10, T0)).toEqual({ granted: 0, waitMs: 100 });
    expect(b.grant("k", 5, 10, T0 + 250)).toEqual({ granted: 2, waitMs: 0 });
    b.giveBack("k", 4, 10, T0 + 250);
    expect(b.grant("k", 100, 10, T0 + 250)).toEqual({ granted: 4, waitMs: 0 });
    b.giveBack("k", 50, 10, T0 + 60_000);
    expect(b.grant("k", 100, 10, T0 + 60_000).granted).toBe(10);
  });

  it("a fixed window counts up to its maximum, starts again when it ends, and takes a count back", () => {
    const w = new FixedWindows();
    expect(w.count("a", 1000, 2, T0)).toEqual({ ok: true, count: 1, resetAt: T0 + 1000 });
    expect(w.count("a", 1000, 2, T0 + 10)).toEqual({ ok: true, count: 2, resetAt: T0 + 1000 });
    expect(w.count("a", 1000, 2, T0 + 20)).toEqual({ ok: false, count: 2, resetAt: T0 + 1000 });
    w.release("a");
    expect(w.count("a", 1000, 2, T0 + 30).ok).toBe(true);
    expect(w.count("a", 1000, null, T0 + 40)).toEqual({ ok: true, count: 3, resetAt: T0 + 1000 });
    expect(w.count("a", 1000, 2, T0 + 1000)).toEqual({ ok: true, count: 1, resetAt: T0 + 2000 });
  });
});

describe("the per-key limit across workers (leases from the primary's bucket)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  it("two workers together admit one burst of N at an instant, and N more after a second; not 2N", async () => {
    const { workers } = cluster(2);
    const [a, b] = workers.map((w) => new RateLimiter(1000, w.store));
    const burst = () => Promise.all(Array.from({ length: 3000 }, (_, i) => (i % 2 ? a! : b!).take("key")));
    expect(admittedOf(await burst())).toBe(1000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(admittedOf(await burst())).toBe(1000);
    await vi.advanceTimersByTimeAsync(500);
    expect(admittedOf(await burst())).toBe(500);
  });

  it("one worker that gets all of a key's traffic gets the whole limit, and most calls send no message", async () => {
    const { workers, messages } = cluster(2);
    const a = new RateLimiter(1000, workers[0]!.store);
    const waits: number[] = [];
    for (let i = 0; i < 1200; i++) waits.push(await a.take("key"));
    expect(admittedOf(waits)).toBe(1000);
    // Leases grow 1, 2, 4, 8, then 1 % of the limit (10): 4 + 99 leases and one refusal, one
    // question and one answer each, instead of a round trip per call.
    expect(messages() / 2).toBeLessThanOrEqual(104);
  });

  it("tokens a worker leased and did not use go back after the lease time, for the other worker", async () => {
    const { workers } = cluster(2);
    const [a, b] = workers.map((w) => new RateLimiter(100, w.store));
    // A takes the whole burst in one go (100 concurrent calls), then uses none of a later lease.
    expect(admittedOf(await Promise.all(Array.from({ length: 100 }, () => a!.take("key"))))).toBe(100);
    expect(await b!.take("key")).toBeGreaterThan(0);
    await vi.advanceTimersByTimeAsync(LEASE_MS * 2);
    // Half a second of refill at 100/s: 50 tokens, all of them for B.
    expect(admittedOf(await Promise.all(Array.from({ length: 80 }, () => b!.take("key"))))).toBe(50);
  });

  it("a refused call says how long until the bucket has a token again, in whole seconds", async () => {
    const { workers } = cluster(1);
    const a = new RateLimiter(2, workers[0]!.store);
    expect(await a.take("key")).toBe(0);
    expect(await a.take("key")).toBe(0);
    expect(await a.take("key")).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await a.take("key")).toBe(0);
  });

  it("a worker whose primary is gone refuses instead of counting nothing", async () => {
    const { workers } = cluster(1);
    workers[0]!.store.close();
    const a = new RateLimiter(10, workers[0]!.store);
    expect(await a.take("key")).toBeGreaterThan(0);
    expect((await workers[0]!.store.count("w", 1000, 5)).ok).toBe(false);
  });
});

describe("refused credentials per address across workers", () => {
  it("five refusals pass in all, whichever worker counts them, and exactly one call is the first over", async () => {
    const { workers } = cluster(2);
    const [a, b] = workers.map((w) => new FailedAuthLimiter(5, 60_000, w.store));
    const verdicts = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a! : b!).fail("203.0.113.9")));
    expect(verdicts.filter((v) => v.wait === 0)).toHaveLength(5);
    expect(verdicts.filter((v) => v.firstOver)).toHaveLength(1);
    expect(verdicts.filter((v) => v.wait > 0).every((v) => v.wait >= 1 && v.wait <= 60)).toBe(true);
  });
});

describe("the page thread's limits", () => {
  /** A page thread's store, asking its worker's store (local, or itself asking the primary). */
  function pageThreadOf(worker: LimitStore) {
    const [threadEnd, workerEnd] = channelPair();
    answerLimits(workerEnd, worker);
    return new IpcLimitStore(threadEnd);
  }

  it("count in the one store behind the worker: sign-ups from two workers' pages and the workers themselves share one window", async () => {
    const { workers } = cluster(2);
    const [a, b] = workers.map((w) => pageThreadOf(w.store));
    const counted = [await a!.count("signup|203.0.113.9", 60_000, 3), await b!.count("signup|203.0.113.9", 60_000, 3)];
    counted.push(await workers[0]!.store.count("signup|203.0.113.9", 60_000, 3), await b!.count("signup|203.0.113.9", 60_000, 3));
    expect(counted.map((c) => [c.ok, c.count])).toEqual([
      [true, 1],
      [true, 2],
      [true, 3],
      [false, 3],
    ]);
    b!.release("signup|203.0.113.9");
    await new Promise((r) => setTimeout(r, 10));
    expect((await a!.count("signup|203.0.113.9", 60_000, 3)).ok).toBe(true);
  });

  it("take tokens from the per-key bucket of a single process too", async () => {
    const thread = pageThreadOf(new LocalLimitStore());
    expect(await thread.grant("key", 7, 5)).toMatchObject({ granted: 5, waitMs: 0 });
    expect((await thread.grant("key", 1, 5)).granted).toBe(0);
  });
});

describe("an upstream family's gate across workers (bulkhead and breaker of the whole server)", () => {
  const SETTINGS: GateSettings = { maxConcurrency: 4, openMs: 30_000, breaker: DEFAULT_BREAKER_RULE };
  const admitted = (answers: Admission[]) => answers.filter((a) => a.admitted).length;
  /** Messages without an answer (an end) arrive a turn later. */
  const delivered = () => new Promise((r) => setTimeout(r, 5));

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  it("two workers with a limit of 4 let 4 calls through in all; a call that ends frees its slot for either", async () => {
    const { workers } = cluster(2);
    const [a, b] = workers.map((w) => w.store);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a! : b!).admit("pan", SETTINGS)));
    expect(admitted(answers)).toBe(4);
    expect(answers.filter((x) => !x.admitted)).toEqual(Array(6).fill({ admitted: false, reason: "full", retryAfterMs: 1000 }));
    a!.end("pan", false, "answered");
    await delivered();
    expect(await b!.admit("pan", SETTINGS)).toEqual({ admitted: true, trial: false });
    expect(await a!.admit("pan", SETTINGS)).toMatchObject({ admitted: false, reason: "full" });
    // Another family has its own slots.
    expect(await a!.admit("bank", SETTINGS)).toEqual({ admitted: true, trial: false });
  });

  it("five failures in a row from two workers open one breaker: both refuse until one trial call, and refuse while it is out", async () => {
    const { workers } = cluster(2);
    const [a, b] = workers.map((w) => w.store);
    for (let i = 0; i < 5; i++) {
      const w = i % 2 ? a! : b!;
      expect(await w.admit("pan", SETTINGS)).toMatchObject({ admitted: true });
      w.end("pan", false, "failed");
      await delivered();
    }
    expect(await a!.admit("pan", SETTINGS)).toEqual({ admitted: false, reason: "open", retryAfterMs: 30_000 });
    vi.setSystemTime(T0 + 10_000);
    expect(await b!.admit("pan", SETTINGS)).toEqual({ admitted: false, reason: "open", retryAfterMs: 20_000 });
    expect(await a!.views()).toEqual([{ key: "pan", breaker: "open", openUntil: T0 + 30_000, inFlight: 0 }]);
    vi.setSystemTime(T0 + 30_000);
    expect(await b!.admit("pan", SETTINGS)).toEqual({ admitted: true, trial: true });
    expect(await a!.admit("pan", SETTINGS)).toMatchObject({ admitted: false, reason: "open" });
    expect(await b!.admit("pan", SETTINGS)).toMatchObject({ admitted: false, reason: "open" });
    b!.end("pan", true, "answered");
    await delivered();
    expect(await a!.admit("pan", SETTINGS)).toEqual({ admitted: true, trial: false });
    expect((await b!.views())[0]).toMatchObject({ breaker: "closed", inFlight: 1 });
  });

  it("a worker gone with calls in flight gives their slots back, without counting them for or against the breaker", async () => {
    const { workers } = cluster(2);
    const [a, b] = workers;
    for (let i = 0; i < 4; i++) expect(await a!.store.admit("pan", SETTINGS)).toMatchObject({ admitted: true });
    expect(await b!.store.admit("pan", SETTINGS)).toMatchObject({ admitted: false, reason: "full" });
    a!.exited();
    expect(admitted(await Promise.all(Array.from({ length: 5 }, () => b!.store.admit("pan", SETTINGS))))).toBe(4);
    // A late word from the dead worker changes nothing.
    a!.store.end("pan", false, "failed");
    for (let i = 0; i < 4; i++) b!.store.end("pan", false, "failed");
    await delivered();
    expect(await b!.store.views()).toEqual([{ key: "pan", breaker: "closed", openUntil: null, inFlight: 0 }]);
  });

  it("a worker gone while its trial call is out: the next call is the trial", async () => {
    const { workers } = cluster(2);
    const [a, b] = workers;
    for (let i = 0; i < 5; i++) {
      await b!.store.admit("pan", SETTINGS);
      b!.store.end("pan", false, "failed");
    }
    await delivered();
    vi.setSystemTime(T0 + 30_000);
    expect(await a!.store.admit("pan", SETTINGS)).toEqual({ admitted: true, trial: true });
    expect(await b!.store.admit("pan", SETTINGS)).toMatchObject({ admitted: false, reason: "open" });
    a!.exited();
    expect(await b!.store.admit("pan", SETTINGS)).toEqual({ admitted: true, trial: true });
  });

  it("a page thread's calls count in the same gate, through its worker", async () => {
    const { workers } = cluster(2);
    const [threadEnd, workerEnd] = channelPair();
    const forwarding = answerLimits(workerEnd, workers[0]!.store);
    const pages = new IpcLimitStore(threadEnd);
    expect(admitted(await Promise.all(Array.from({ length: 3 }, () => pages.admit("payments", SETTINGS))))).toBe(3);
    expect(admitted(await Promise.all(Array.from({ length: 3 }, () => workers[1]!.store.admit("payments", SETTINGS))))).toBe(1);
    // The page thread restarts with its three calls in flight: the worker gives them back.
    forwarding.close();
    await delivered();
    expect(admitted(await Promise.all(Array.from({ length: 4 }, () => workers[1]!.store.admit("payments", SETTINGS))))).toBe(3);
  });
});

describe("restarts after crashes", () => {
  it("wait 250 ms, doubling per crash in a row, at most 30 s", () => {
    expect([1, 2, 3, 4, 7, 8, 20].map(restartDelay)).toEqual([250, 500, 1000, 2000, 16_000, 30_000, 30_000]);
  });
});
