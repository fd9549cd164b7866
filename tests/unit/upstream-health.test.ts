import { describe, expect, it } from "vitest";
import type { UpstreamFamilyStats } from "@/server/providers/upstream/stats";
import { upstreamHealth } from "@/server/services/operations/upstream-health";

const quiet = { retryAt: null, misconfigured: false, callsLast5Min: 0, failuresLast5Min: 0, p95LatencyMs: null, lastError: null };
const settings = (verification: "cashfree" | "none", payments: "cashfree" | "none" = "cashfree") => ({
  liveVerification: { provider: verification },
  livePayments: { provider: payments },
});
const stats = (family: string, over: Partial<UpstreamFamilyStats> = {}): UpstreamFamilyStats => ({
  family,
  vendor: "cashfree",
  breaker: "closed",
  ...quiet,
  ...over,
});

describe("the operator console's upstream panel", () => {
  it("orders the families and reads each one's status: a refused account first, then the breaker", () => {
    const health = upstreamHealth(settings("cashfree"), [
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
    const health = upstreamHealth(settings("none"), [stats("pan"), stats("payments")]);
    expect(health).toMatchObject({ provider: "none", liveVerificationConfigured: false });
    expect(health.families.map((f) => f.family)).toEqual(["payments"]);
    expect(upstreamHealth(settings("none"), []).families).toEqual([]);
  });

  it("lists payments as not configured with LIVE_PAYMENT_PROVIDER=none, whatever an earlier client left behind", () => {
    const health = upstreamHealth(settings("cashfree", "none"), [stats("pan"), stats("payments", { callsLast5Min: 7, failuresLast5Min: 7, breaker: "open" })]);
    expect(health.paymentsProvider).toBe("none");
    expect(health.families.map((f) => [f.family, f.status])).toEqual([
      ["pan", "ok"],
      ["payments", "not-configured"],
    ]);
    expect(health.families[1]).toMatchObject({
      label: "Payments",
      breaker: "closed",
      callsLast5Min: 0,
      failuresLast5Min: 0,
      p95LatencyMs: null,
      lastError: null,
    });
    expect(upstreamHealth(settings("none", "none"), []).families.map((f) => f.status)).toEqual(["not-configured"]);
  });

  it("leaves out a family no client serves", () => {
    expect(upstreamHealth(settings("cashfree"), [stats("pan")]).families.map((f) => f.family)).toEqual(["pan"]);
  });
});
