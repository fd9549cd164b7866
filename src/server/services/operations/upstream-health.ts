import type { Config } from "@/server/config";
import { upstreamStats, type UpstreamFamily } from "@/server/providers/upstream/client";
import type { UpstreamFamilyStats } from "@/server/providers/upstream/stats";

/**
 * What an operator reads first: OK, a breaker refusing calls (open, or letting one trial call
 * through), or the vendor refusing Parakh's own account (credentials or this server's address).
 */
export type UpstreamStatus = "ok" | "breaker-open" | "breaker-trial" | "misconfigured";

export interface UpstreamFamilyHealth extends Omit<UpstreamFamilyStats, "family"> {
  family: UpstreamFamily;
  label: string;
  status: UpstreamStatus;
}

export interface UpstreamHealth {
  /** LIVE_VERIFICATION_PROVIDER. */
  provider: Config["liveVerification"]["provider"];
  /** False with no provider: live calls answer SOURCE_UNAVAILABLE and no verification family is shown. */
  liveVerificationConfigured: boolean;
  /** Each upstream family this server instance calls, in a fixed order; the figures are this instance's own (kept in memory). */
  families: UpstreamFamilyHealth[];
  at: string;
}

const FAMILIES: { family: UpstreamFamily; label: string }[] = [
  { family: "pan", label: "PAN" },
  { family: "epfo", label: "EPFO" },
  { family: "aadhaar", label: "Aadhaar OTP" },
  { family: "bank", label: "Bank account" },
  { family: "payments", label: "Payments" },
];

const VERIFICATION_FAMILIES: ReadonlySet<UpstreamFamily> = new Set(["pan", "epfo", "aadhaar", "bank"]);

function statusOf(stats: UpstreamFamilyStats): UpstreamStatus {
  if (stats.misconfigured) return "misconfigured";
  if (stats.breaker === "open" || stats.breaker === "isolated") return "breaker-open";
  if (stats.breaker === "half-open") return "breaker-trial";
  return "ok";
}

/**
 * The operator console's upstream panel: per family, its breaker, whether the vendor refused
 * Parakh's account, calls and failures in the last 5 minutes, p95 latency and the last error. The
 * statistics carry no personal data (they hold counts, timings and Parakh's own error messages).
 */
export function upstreamHealth(settings: Pick<Config["liveVerification"], "provider">, stats: UpstreamFamilyStats[] = upstreamStats()): UpstreamHealth {
  const configured = settings.provider !== "none";
  const byFamily = new Map(stats.map((s) => [s.family, s]));
  const families: UpstreamFamilyHealth[] = [];
  for (const { family, label } of FAMILIES) {
    const s = byFamily.get(family);
    // Clients built for an earlier set of settings (tests, tools) say nothing about this one.
    if (!s || (VERIFICATION_FAMILIES.has(family) && !configured)) continue;
    families.push({ ...s, family, label, status: statusOf(s) });
  }
  return { provider: settings.provider, liveVerificationConfigured: configured, families, at: new Date().toISOString() };
}
