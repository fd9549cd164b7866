import { describe, expect, it } from "vitest";
import type { UpstreamFamilyStats } from "@/server/providers/upstream/stats";
import { upstreamHealth } from "@/server/services/operations/upstream-health";

const quiet = { retryAt: null, misconfigured: false, callsLast5Min: 0, failuresLast5Min: 0, p95LatencyMs: null, lastError: null };
const stats = (family: string, over: Partial<UpstreamFamilyStats> = {}): UpstreamFamilyStats => ({ family, breaker: "closed", ...quiet, ...over });

describe("the operator console's upstream panel", () => {
  it("orders the families and reads each one's status: a refused account first, then the breaker", () => {
    const health = upstreamHealth({ provider: "cashfree" }, [
      stats("bank", { breaker: "half-open" }),
      stats("payments"),
      stats("aadhaar", { breaker: "isolated" }),
      stats("epfo", { breaker: "open", misconfigured: true }),
      stats("pan", { breaker: "open", retryAt: "2026-01-01T00:00:30.000Z" }),
    ]);
    expect(health.liveVerificationConfigured).toBe(true);
    expect(health.families.map((f) => [f.label, f.status])).toEqual([
      ["PAN", "breaker-open"],
      ["EPFO", "misconfigured"],
      ["Aadhaar OTP", "breaker-open"],
      ["Bank account", "breaker-trial"],
      ["Payments", "ok"],
    ]);
    expect(health.families[0]!.retryAt).toBe("2026-01-01T00:00:30.000Z");
  });

  it("without a provider shows no verification family, even one a client from earlier settings left behind", () => {
    const health = upstreamHealth({ provider: "none" }, [stats("pan"), stats("payments")]);
    expect(health).toMatchObject({ provider: "none", liveVerificationConfigured: false });
    expect(health.families.map((f) => f.family)).toEqual(["payments"]);
    expect(upstreamHealth({ provider: "none" }, []).families).toEqual([]);
  });

  it("leaves out a family no client serves", () => {
    expect(upstreamHealth({ provider: "cashfree" }, [stats("pan")]).families.map((f) => f.family)).toEqual(["pan"]);
  });
});
