import { afterEach, describe, expect, it } from "vitest";
import { allUpstreamCallCounts, allUpstreamStats, mergeFamilyStats, setUpstreamPeer } from "@/server/providers/upstream/peer";
import type { UpstreamFamilyStats } from "@/server/providers/upstream/stats";
import { forwardWakes, wakeLane, wakeOnEnqueue } from "@/server/jobs/wake";

const quiet = { retryAt: null, misconfigured: false, callsLast5Min: 0, failuresLast5Min: 0, p95LatencyMs: null, lastError: null };
const stats = (family: string, over: Partial<UpstreamFamilyStats> = {}): UpstreamFamilyStats => ({
  family,
  vendor: "cashfree",
  breaker: "closed",
  ...quiet,
  ...over,
});
const calls = { ok: 3, timeout: 1, failed: 0, misconfigured: 0, rejected: 2 };

afterEach(() => setUpstreamPeer(undefined));

describe("upstream figures of the API's thread and the page thread", () => {
  it("one family seen by both: calls add up, the worse breaker with its retry time, the higher p95, the later error", () => {
    const api = stats("payments", {
      callsLast5Min: 40,
      failuresLast5Min: 1,
      p95LatencyMs: 120,
      lastError: { at: "2026-11-28T03:00:00.000Z", message: "timed out" },
    });
    const pages = stats("payments", {
      breaker: "open",
      retryAt: "2026-11-28T03:01:00.000Z",
      misconfigured: true,
      callsLast5Min: 6,
      failuresLast5Min: 5,
      p95LatencyMs: 900,
      lastError: { at: "2026-11-28T03:00:30.000Z", message: "502" },
    });
    const expected = {
      family: "payments",
      vendor: "cashfree",
      breaker: "open",
      retryAt: "2026-11-28T03:01:00.000Z",
      misconfigured: true,
      callsLast5Min: 46,
      failuresLast5Min: 6,
      p95LatencyMs: 900,
      lastError: { at: "2026-11-28T03:00:30.000Z", message: "502" },
    };
    expect(mergeFamilyStats(api, pages)).toEqual(expected);
    expect(mergeFamilyStats(pages, api)).toEqual(expected);
    expect(mergeFamilyStats(stats("pan", { breaker: "half-open" }), stats("pan", { breaker: "isolated" })).breaker).toBe("isolated");
    expect(mergeFamilyStats(stats("pan", { p95LatencyMs: 40 }), stats("pan")).p95LatencyMs).toBe(40);
  });

  it("the console and the scrape include the peer's families; a silent peer leaves this thread's alone", async () => {
    setUpstreamPeer(async () => ({
      counts: [{ family: "payments", vendor: "cashfree", breaker: "closed", misconfigured: false, calls, failovers: 0 }],
      stats: [stats("payments", { callsLast5Min: 6 })],
    }));
    expect((await allUpstreamStats()).find((s) => s.family === "payments")?.callsLast5Min).toBeGreaterThanOrEqual(6);
    expect((await allUpstreamCallCounts()).filter((c) => c.family === "payments" && c.calls.rejected === 2)).toHaveLength(1);

    setUpstreamPeer(() => Promise.reject(new Error("the page thread is not running")));
    expect((await allUpstreamStats()).some((s) => s.callsLast5Min === 6)).toBe(false);
    expect((await allUpstreamCallCounts()).some((c) => c.calls.rejected === 2)).toBe(false);
  });
});

describe("job wakes from the page thread", () => {
  it("go to where they are forwarded, and still poke this thread's own runners", () => {
    const forwarded: string[] = [];
    let poked = 0;
    const runner = { poke: () => poked++ };
    wakeOnEnqueue("batches", runner);
    forwardWakes((lane) => forwarded.push(lane));
    wakeLane("batches");
    wakeLane("deliveries");
    expect(forwarded).toEqual(["batches", "deliveries"]);
    expect(poked).toBe(1);
    forwardWakes(() => {});
  });
});
