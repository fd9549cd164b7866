import diagnostics from "node:diagnostics_channel";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AppError } from "@/server/errors";
import { createLiveProviders, type ProviderSet } from "@/server/providers";
import { CircuitState } from "cockatiel";
import { DEFAULT_BREAKER_RULE, SlidingWindowBreaker } from "@/server/providers/upstream/breaker";
import { Gate, type GateSettings } from "@/server/providers/upstream/gate";
import { parseRetryAfter, UpstreamClient, upstreamStats, type UpstreamLogger } from "@/server/providers/upstream/client";
import { CallLog } from "@/server/providers/upstream/stats";
import { FakeCashfreeVerification, PAST_ONE_MIB, startFakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { sleep, waitFor } from "../helpers/wait";

const CREDENTIALS = { clientId: "CF_TEST_CLIENT", clientSecret: "cfsk_live_do_not_log_me" };
const TIMEOUT_MS = 500;
const OPEN_MS = 400;
const PAN = "ABCPK1234F";

let fake: FakeCashfreeVerification;
let logged: string[];
let live: ProviderSet;

const logger: UpstreamLogger = {
  warn: (msg, fields) => logged.push(JSON.stringify({ level: "warn", msg, ...fields })),
  error: (msg, fields) => logged.push(JSON.stringify({ level: "error", msg, ...fields })),
};

function providers(maxConcurrency = 64, timeoutMs = TIMEOUT_MS): ProviderSet {
  return createLiveProviders({ provider: "cashfree", cashfree: { baseUrl: fake.url, ...CREDENTIALS }, timeoutMs, maxConcurrency }, logger, {
    openMs: OPEN_MS,
    retryDelayMs: 20,
  });
}

/** Connection attempts undici reports as failed (its published diagnostics channel), to one port. */
function countConnectErrors(port: string): { count: () => number; stop: () => void } {
  let n = 0;
  const listener = (message: unknown) => {
    if (String((message as { connectParams?: { port?: unknown } }).connectParams?.port) === port) n++;
  };
  diagnostics.subscribe("undici:client:connectError", listener);
  return { count: () => n, stop: () => diagnostics.unsubscribe("undici:client:connectError", listener) };
}

/** The AppError a call ends with, and how long it took. */
async function failure(call: () => Promise<unknown>): Promise<{ error: AppError; ms: number }> {
  const started = performance.now();
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return { error: error as AppError, ms: performance.now() - started };
  }
  throw new Error("the call answered instead of failing");
}

const panStats = () => upstreamStats().find((s) => s.family === "pan")!;

beforeEach(async () => {
  fake = await startFakeCashfreeVerification(CREDENTIALS);
  logged = [];
  live = providers();
});

afterEach(async () => {
  await fake.close();
  expect(fake.problems).toEqual([]);
});

describe("one deadline for the whole call", () => {
  it("a vendor that never answers ends as 504 SOURCE_TIMEOUT within the deadline, tried once", async () => {
    fake.fail("pan", "hang");
    const { error, ms } = await failure(() => live.pan.lookup(PAN));
    expect(error.code).toBe("SOURCE_TIMEOUT");
    expect(error.status).toBe(504);
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(ms).toBeLessThan(TIMEOUT_MS + 1000);
    expect(fake.count("/pan")).toBe(1);
  });

  it("200 headers then a trickling body end as 504 within the deadline, not when the bytes stop", async () => {
    fake.fail("pan", "trickle");
    const { error, ms } = await failure(() => live.pan.lookup(PAN));
    expect(error.code).toBe("SOURCE_TIMEOUT");
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(TIMEOUT_MS + 1000);
    expect(fake.count("/pan")).toBe(1);
  });

  it("a valid answer padded past 1 MiB is cut off: 502 UPSTREAM_ERROR, its length announced or not; one just under is read", async () => {
    fake.fail("pan", "huge-body", { times: 1 });
    const chunked = await failure(() => live.pan.lookup(PAN));
    expect(chunked.error.code).toBe("UPSTREAM_ERROR");
    expect(chunked.error.status).toBe(502);
    fake.fail("pan", "huge-body", { times: 1, contentLength: true });
    expect((await failure(() => live.pan.lookup(PAN))).error.code).toBe("UPSTREAM_ERROR");
    // The same padding a little under the cap: the answer itself is fine.
    fake.fail("pan", "huge-body", { times: 1, bytes: 1024 * 1024 - 64 });
    expect((await live.pan.lookup(PAN)).status).toBe("VALID");
    expect(PAST_ONE_MIB).toBeGreaterThan(1024 * 1024);
    expect(fake.count("/pan")).toBe(3);
  });

  it("an answer that is not JSON is 502 UPSTREAM_ERROR", async () => {
    fake.fail("pan", "malformed-json");
    const { error } = await failure(() => live.pan.lookup(PAN));
    expect(error.code).toBe("UPSTREAM_ERROR");
  });
});

describe("retries only where the first try provably did not take effect", () => {
  it("a 500 on a POST is not retried: 503 SOURCE_UNAVAILABLE with the default Retry-After", async () => {
    fake.fail("pan", "500");
    const { error } = await failure(() => live.pan.lookup(PAN));
    expect(error.code).toBe("SOURCE_UNAVAILABLE");
    expect(error.status).toBe(503);
    expect(error.retryAfterSeconds).toBe(5);
    expect(fake.count("/pan")).toBe(1);
  });

  it("a 429 is retried twice, then answered with the vendor's Retry-After", async () => {
    fake.fail("pan", "429", { retryAfter: "7" });
    const { error, ms } = await failure(() => live.pan.lookup(PAN));
    expect(error.code).toBe("SOURCE_UNAVAILABLE");
    expect(error.retryAfterSeconds).toBe(7);
    expect(fake.count("/pan")).toBe(3);
    expect(ms).toBeLessThan(TIMEOUT_MS + 1000);
  });

  it("a 503 is retried, and the retry's answer counts", async () => {
    fake.fail("pan", "503", { times: 1 });
    expect((await live.pan.lookup(PAN)).status).toBe("VALID");
    expect(fake.count("/pan")).toBe(2);
  });

  it("a POST the vendor read before it cut the connection is not retried: it may have been done (and billed)", async () => {
    fake.fail("bank", "reset");
    const { error } = await failure(() => live.bank.verifyAccount("026291800001191", "YESB0000262"));
    expect(error.code).toBe("SOURCE_UNAVAILABLE");
    expect(fake.count("/bank-account/sync")).toBe(1);
    fake.fail("pan", "reset");
    await failure(() => live.pan.lookup(PAN));
    expect(fake.count("/pan")).toBe(1);
    fake.fail("aadhaar", "reset");
    await failure(() => live.aadhaar.sendOtp("999941057058"));
    expect(fake.count("/offline-aadhaar/otp")).toBe(1);
  });

  it("a GET cut off after it was read is retried", async () => {
    const client = new UpstreamClient({
      family: "pan",
      baseUrl: fake.url,
      headers: { "x-client-id": CREDENTIALS.clientId, "x-client-secret": CREDENTIALS.clientSecret },
      timeoutMs: TIMEOUT_MS,
      maxConcurrency: 4,
      logger,
      retryDelayMs: 20,
      listed: false,
    });
    fake.fail("pan", "reset", { times: 2 });
    // The fake's answer for a reference it never gave.
    expect(await client.call({ method: "GET", path: "/pan/1234" }, (a) => a.status)).toBe(404);
    expect(fake.count("/pan/1234")).toBe(3);
  });

  it("an EPFO retry reuses its verification_id", async () => {
    fake.fail("epfo", "503", { times: 1 });
    await live.epfo.byUan("100200300400");
    const ids = fake.requests.filter((r) => r.path === "/advance-employment").map((r) => r.body.verification_id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
  });

  it("a refused connection is tried three times (it never reached the vendor), then answered 503", async () => {
    const url = fake.url;
    await fake.close();
    fake = await startFakeCashfreeVerification(CREDENTIALS);
    const down = createLiveProviders({ provider: "cashfree", cashfree: { baseUrl: url, ...CREDENTIALS }, timeoutMs: TIMEOUT_MS, maxConcurrency: 4 }, logger, {
      retryDelayMs: 20,
    });
    const tries = countConnectErrors(new URL(url).port);
    try {
      const { error, ms } = await failure(() => down.pan.lookup(PAN));
      expect(error.code).toBe("SOURCE_UNAVAILABLE");
      expect(ms).toBeLessThan(TIMEOUT_MS + 1000);
      expect(tries.count()).toBe(3);
    } finally {
      tries.stop();
    }
  });
});

describe("the vendor refusing Parakh's own credentials", () => {
  it("401 is never passed to the merchant: 503, an error log line, and the family marked misconfigured", async () => {
    fake.fail("pan", "401");
    const { error } = await failure(() => live.pan.lookup(PAN));
    expect(error.status).toBe(503);
    expect(error.code).toBe("SOURCE_UNAVAILABLE");
    expect(panStats().misconfigured).toBe(true);
    expect(logged.some((l) => l.includes('"level":"error"') && l.includes('"family":"pan"'))).toBe(true);
    // The next answered call clears the mark.
    fake.clear("pan");
    await live.pan.lookup(PAN);
    expect(panStats().misconfigured).toBe(false);
  });

  it("403 (address not whitelisted) is the same", async () => {
    fake.fail("bank", "403");
    const { error } = await failure(() => live.bank.verifyAccount("026291800001191", "YESB0000262"));
    expect(error.status).toBe(503);
    expect(upstreamStats().find((s) => s.family === "bank")!.misconfigured).toBe(true);
  });

  it("wrong credentials are refused by the fake exactly as a 401", async () => {
    const wrong = createLiveProviders(
      { provider: "cashfree", cashfree: { baseUrl: fake.url, clientId: "CF_TEST_CLIENT", clientSecret: "wrong" }, timeoutMs: TIMEOUT_MS, maxConcurrency: 4 },
      logger,
    );
    const { error } = await failure(() => wrong.epfo.byUan("100200300400"));
    expect(error.status).toBe(503);
  });
});

describe("circuit breaker", () => {
  it("opens after 5 failed calls: the next fails in under 300 ms without reaching the vendor, and a trial call closes it", async () => {
    fake.fail("pan", "500");
    for (let i = 0; i < 5; i++) expect((await failure(() => live.pan.lookup(PAN))).error.code).toBe("SOURCE_UNAVAILABLE");
    expect(fake.count("/pan")).toBe(5);
    expect(panStats().breaker).toBe("open");

    const { error, ms } = await failure(() => live.pan.lookup(PAN));
    expect(ms).toBeLessThan(300);
    expect(error.code).toBe("SOURCE_UNAVAILABLE");
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(fake.count("/pan")).toBe(5);
    // Other families are not affected.
    expect((await live.bank.verifyAccount("026291800001191", "YESB0000262")).accountStatus).toBe("VALID");

    fake.clear("pan");
    await new Promise((r) => setTimeout(r, OPEN_MS + 50));
    expect((await live.pan.lookup(PAN)).status).toBe("VALID");
    expect(fake.count("/pan")).toBe(6);
    expect(panStats().breaker).toBe("closed");
  });

  it("a failed trial call opens it again", async () => {
    fake.fail("pan", "malformed-json");
    for (let i = 0; i < 5; i++) await failure(() => live.pan.lookup(PAN));
    await new Promise((r) => setTimeout(r, OPEN_MS + 50));
    await failure(() => live.pan.lookup(PAN));
    expect(fake.count("/pan")).toBe(6);
    expect(panStats().breaker).toBe("open");
  });

  it("business answers, rate limits and refused credentials do not count", async () => {
    fake.fail("pan", "not-on-record");
    for (let i = 0; i < 6; i++) expect((await live.pan.lookup(PAN)).status).toBe("INVALID");
    fake.fail("pan", "429");
    for (let i = 0; i < 3; i++) await failure(() => live.pan.lookup(PAN));
    fake.fail("pan", "401");
    for (let i = 0; i < 3; i++) await failure(() => live.pan.lookup(PAN));
    expect(panStats().breaker).toBe("closed");
  });

  it("the vendor's 4xx business answers (a PAN it refuses, an expired OTP) do not count: every one reaches the vendor", async () => {
    fake.fail("pan", "invalid-pan");
    for (let i = 0; i < 6; i++) expect((await failure(() => live.pan.lookup(PAN))).error.code).toBe("INVALID_PAN");
    expect(fake.count("/pan")).toBe(6);
    expect(panStats().breaker).toBe("closed");

    const sent = await live.aadhaar.sendOtp("999941057058");
    fake.expireOtp(sent.reference);
    for (let i = 0; i < 6; i++) expect((await failure(() => live.aadhaar.submitOtp("999941057058", sent.reference, "246810"))).error.code).toBe("OTP_EXPIRED");
    expect(fake.count("/offline-aadhaar/verify")).toBe(6);
    expect(upstreamStats().find((s) => s.family === "aadhaar")!.breaker).toBe("closed");
  });

  describe("half of at least 20 calls in the last 30 s, counted by time", () => {
    // Only Date is faked: the calls still go over loopback to the fake, with their real timers.
    afterEach(() => vi.useRealTimers());

    /** One call per `gapMs` of the clock, every other one failing (a 500); how many reached the vendor. */
    async function alternate(calls: number, gapMs: number): Promise<number> {
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
      for (let i = 0; i < calls; i++) {
        if (i > 0) vi.setSystemTime(Date.now() + gapMs);
        if (i % 2 === 1) fake.fail("pan", "500", { times: 1 });
        await live.pan.lookup(PAN).catch(() => undefined);
        fake.clear("pan");
      }
      return fake.count("/pan");
    }

    it("opens it: 20 calls a second apart, every other one failed", async () => {
      expect(await alternate(20, 1_000)).toBe(20);
      expect(panStats().breaker).toBe("open");
      const { error } = await failure(() => live.pan.lookup(PAN));
      expect(error.code).toBe("SOURCE_UNAVAILABLE");
      expect(fake.count("/pan")).toBe(20);
    });

    it("never opens it with one call every 3.4 s (never 20 calls in 30 s), however long that goes on", async () => {
      expect(await alternate(40, 3_400)).toBe(40);
      expect(panStats().breaker).toBe("closed");
    });

    it("forgets calls older than 30 s: 18 calls (9 failed), then two more (one failed) 31 s later, keep it closed", async () => {
      expect(await alternate(18, 1_000)).toBe(18);
      vi.setSystemTime(Date.now() + 31_000);
      await live.pan.lookup(PAN);
      vi.setSystemTime(Date.now() + 1_000);
      fake.fail("pan", "500", { times: 1 });
      await failure(() => live.pan.lookup(PAN));
      // Twenty calls and ten failures in all, but only two in the last 30 s.
      expect(panStats().breaker).toBe("closed");
      expect((await live.pan.lookup(PAN)).status).toBe("VALID");
      expect(fake.count("/pan")).toBe(21);
    });

    it("counts a call 29.999 s after it ended, and not at 30 s", () => {
      const T0 = 1_700_000_000_000;
      const run = (lastAt: number) => {
        let now = T0;
        const breaker = new SlidingWindowBreaker(undefined, () => now);
        // 19 calls a second apart from T0, the even ones failed (10 of 19, never two in a row).
        for (let i = 0; i < 19; i++) {
          now = T0 + i * 1_000;
          if (i % 2 === 0) expect(breaker.failure(CircuitState.Closed)).toBe(false);
          else breaker.success(CircuitState.Closed);
        }
        now = lastAt;
        return breaker.failure(CircuitState.Closed);
      };
      // With the first call: 11 failures in 20 calls. Without it: 19 calls.
      expect(run(T0 + 29_999)).toBe(true);
      expect(run(T0 + 30_000)).toBe(false);
    });

    it("stays closed under half: 9 failures in 21 calls, never 5 in a row", async () => {
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
      for (let i = 0; i < 21; i++) {
        if (i > 0) vi.setSystemTime(Date.now() + 200);
        if (i % 7 < 3) fake.fail("pan", "500", { times: 1 });
        await live.pan.lookup(PAN).catch(() => undefined);
        fake.clear("pan");
      }
      expect(fake.count("/pan")).toBe(21);
      expect(panStats().breaker).toBe("closed");
    });
  });

  it("while the trial call is out, other calls are refused at once (503 with Retry-After) without reaching the vendor", async () => {
    // A deadline long enough that only the trial's release, never its timeout, ends it.
    live = providers(64, 10_000);
    fake.fail("pan", "500");
    for (let i = 0; i < 5; i++) await failure(() => live.pan.lookup(PAN));
    expect(panStats().breaker).toBe("open");
    fake.clear("pan");
    const release = fake.hold("pan");
    await sleep(OPEN_MS + 50);
    let trialEnded = false;
    const trial = live.pan.lookup(PAN).finally(() => (trialEnded = true));
    await waitFor("the trial call at the vendor", () => fake.count("/pan") === 6, 5_000, 5);
    const others = await Promise.all([1, 2, 3].map(() => failure(() => live.pan.lookup(PAN))));
    expect(trialEnded).toBe(false);
    for (const { error } of others) {
      expect(error.code).toBe("SOURCE_UNAVAILABLE");
      expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    expect(fake.count("/pan")).toBe(6);
    release();
    expect((await trial).status).toBe("VALID");
    expect(panStats().breaker).toBe("closed");
    expect((await live.pan.lookup(PAN)).status).toBe("VALID");
  });
});

describe("bulkhead", () => {
  it("past the concurrency limit a call is refused at once with 503 and Retry-After, never queued", async () => {
    live = providers(2);
    fake.fail("pan", "hang");
    const held = [live.pan.lookup(PAN).catch((e: unknown) => e), live.pan.lookup(PAN).catch((e: unknown) => e)];
    // Both held calls are at the vendor (a fixed pause was too short on a loaded machine).
    await waitFor("the two held calls at the vendor", () => fake.count("/pan") === 2, 5_000, 5);
    const { error, ms } = await failure(() => live.pan.lookup(PAN));
    expect(error.code).toBe("SOURCE_UNAVAILABLE");
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(ms).toBeLessThan(100);
    expect(fake.count("/pan")).toBe(2);
    await Promise.all(held);
  });
});

describe("rate limit (UPSTREAM_MAX_RPS)", () => {
  const gateAt = (maxRps: number | undefined, clock: { now: number }) => {
    const settings: GateSettings = { maxConcurrency: 1_000, maxRps, openMs: 30_000, breaker: DEFAULT_BREAKER_RULE };
    return new Gate(
      "cashfree:pan",
      settings,
      () => {},
      () => clock.now,
    );
  };

  it("lets a burst of one second's worth through, then that many a second, refusing the rest at once with the wait", () => {
    const clock = { now: 1_000_000 };
    const gate = gateAt(4, clock);
    const first = Array.from({ length: 6 }, () => gate.admit());
    expect(first.map((a) => a.admitted)).toEqual([true, true, true, true, false, false]);
    // One token at 4 a second is 250 ms away.
    expect(first[4]).toEqual({ admitted: false, reason: "rate", retryAfterMs: 250 });
    // A refusal holds no slot of the bulkhead.
    expect(gate.view().inFlight).toBe(4);
    clock.now += 250;
    expect(gate.admit().admitted).toBe(true);
    expect(gate.admit().admitted).toBe(false);
    // A quiet minute does not save up more than one second's burst.
    clock.now += 60_000;
    expect(Array.from({ length: 6 }, () => gate.admit()).filter((a) => a.admitted)).toHaveLength(4);
  });

  it("0 or absent is no limit", () => {
    const clock = { now: 1_000_000 };
    for (const maxRps of [0, undefined]) {
      const gate = gateAt(maxRps, clock);
      expect(Array.from({ length: 500 }, () => gate.admit()).every((a) => a.admitted)).toBe(true);
    }
  });

  it("a burst past it through the live providers: the vendor sees the limit's worth, the rest are 503 with Retry-After", async () => {
    live = createLiveProviders(
      { provider: "cashfree", cashfree: { baseUrl: fake.url, ...CREDENTIALS }, timeoutMs: TIMEOUT_MS, maxConcurrency: 64, maxRps: 3 },
      logger,
      { openMs: OPEN_MS, retryDelayMs: 20 },
    );
    const settled = await Promise.allSettled(Array.from({ length: 10 }, () => live.pan.lookup(PAN)));
    expect(settled.filter((r) => r.status === "fulfilled")).toHaveLength(3);
    const refused = settled.flatMap((r) => (r.status === "rejected" ? [r.reason as AppError] : []));
    expect(refused).toHaveLength(7);
    for (const e of refused) {
      expect(e.code).toBe("SOURCE_UNAVAILABLE");
      expect(e.retryAfterSeconds).toBe(1);
      expect(e.message).toMatch(/rate limit/);
    }
    expect(fake.count("/pan")).toBe(3);
    // Refusals are not failures: the breaker stays closed.
    expect(panStats().breaker).toBe("closed");
  });
});

describe("operator statistics and logs", () => {
  it("count calls and failures, give a p95 and the last error without personal data", async () => {
    await live.pan.lookup(PAN);
    fake.fail("pan", "500", { times: 1 });
    await failure(() => live.pan.lookup(PAN));
    const stats = panStats();
    expect(stats).toMatchObject({ family: "pan", breaker: "closed", callsLast5Min: 2, failuresLast5Min: 1, misconfigured: false });
    expect(stats.p95LatencyMs).toBeGreaterThanOrEqual(0);
    expect(stats.lastError?.message).toMatch(/HTTP 500/);
    expect(stats.lastError?.message).not.toContain(PAN);
  });

  it("count only the last five minutes, however many calls a busy family has made", () => {
    let now = 0;
    const log = new CallLog(() => now);
    // Eleven minutes at 50 calls a second, every tenth failed and slow: the log drops old calls many times over.
    for (let i = 0; i < 11 * 60 * 50; i++) {
      now = i * 20;
      log.record(i % 10 === 0 ? 900 : 10, i % 10 === 0);
    }
    // The last 300 whole seconds: 15,000 calls 20 ms apart, 1,500 of them failed.
    expect(log.summary()).toMatchObject({ callsLast5Min: 15_000, failuresLast5Min: 1_500, p95LatencyMs: 900 });
    now += 5 * 60_000 + 1;
    expect(log.summary()).toMatchObject({ callsLast5Min: 0, failuresLast5Min: 0, p95LatencyMs: null });
    log.record(5, false);
    expect(log.summary()).toMatchObject({ callsLast5Min: 1, p95LatencyMs: 5 });
  });

  it("give the p95 of the window's latencies to within 5%, in fixed memory", () => {
    let now = 1_000_000;
    const log = new CallLog(() => now);
    // 1..1000 ms, each once, spread over four minutes: the exact p95 is 950 ms.
    const latencies = Array.from({ length: 1000 }, (_, i) => i + 1);
    for (const [i, ms] of latencies.entries()) {
      now = 1_000_000 + i * 240;
      log.record(ms, false);
    }
    const p95 = log.summary().p95LatencyMs!;
    expect(p95).toBeGreaterThanOrEqual(950);
    expect(p95).toBeLessThanOrEqual(950 * 1.05);
    // A single slow call is the whole window's p95 exactly, not its bucket's bound.
    now += 10 * 60_000;
    log.record(2_345, true);
    expect(log.summary()).toMatchObject({ callsLast5Min: 1, failuresLast5Min: 1, p95LatencyMs: 2_345 });
  });

  it("never log the vendor secret, Aadhaar numbers or OTPs", async () => {
    fake.fail("aadhaar", "401");
    await failure(() => live.aadhaar.sendOtp("999941057058"));
    fake.clear();
    const sent = await live.aadhaar.sendOtp("999941057058");
    fake.fail("aadhaar", "500");
    await failure(() => live.aadhaar.submitOtp("999941057058", sent.reference, "246810"));
    for (let i = 0; i < 5; i++) await failure(() => live.aadhaar.submitOtp("999941057058", sent.reference, "246810"));
    const all = logged.join("\n") + JSON.stringify(upstreamStats());
    expect(logged.length).toBeGreaterThan(0);
    for (const secret of [CREDENTIALS.clientSecret, "999941057058", "246810"]) expect(all).not.toContain(secret);
  });

  it("Retry-After is read as seconds or as a date", () => {
    expect(parseRetryAfter("7")).toBe(7);
    expect(parseRetryAfter(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(29);
    expect(parseRetryAfter("soon")).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
  });
});

describe("connections to the vendor", () => {
  it("are kept alive and never more than the bulkhead's calls, however fast calls follow each other", async () => {
    const port = new URL(fake.url).port;
    let opened = 0;
    const listener = (message: unknown) => {
      if (String((message as { connectParams?: { port?: unknown } }).connectParams?.port) === port) opened++;
    };
    diagnostics.subscribe("undici:client:connected", listener);
    try {
      const set = providers(4);
      // Four callers, each starting its next call the moment its last one answered: the moment before
      // undici frees that connection, when an unbounded pool opens another.
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let i = 0; i < 25; i++) expect((await set.pan.lookup(PAN)).status).toBe("VALID");
        }),
      );
    } finally {
      diagnostics.unsubscribe("undici:client:connected", listener);
    }
    expect(opened).toBeGreaterThan(0);
    expect(opened).toBeLessThanOrEqual(4);
  });
});
