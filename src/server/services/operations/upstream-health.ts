import type { Config } from "@/server/config";
import { upstreamStats, type UpstreamFamily } from "@/server/providers/upstream/client";
import type { UpstreamFamilyStats } from "@/server/providers/upstream/stats";

/**
 * What an operator reads first: OK, a breaker refusing calls (open, or letting one trial call
 * through), the vendor refusing Parakh's own account (credentials or this server's address), or
 * no provider chosen for the family (payments with LIVE_PAYMENT_PROVIDER=none).
 */
export type UpstreamStatus = "ok" | "breaker-open" | "breaker-trial" | "misconfigured" | "not-configured";

export interface UpstreamFamilyHealth extends Omit<UpstreamFamilyStats, "family"> {
  family: UpstreamFamily;
  label: string;
  /** The vendor's name as operators read it (a family with several vendors has one row for each, in the order they are tried). */
  vendorLabel: string;
  status: UpstreamStatus;
}

export interface UpstreamHealth {
  /** LIVE_VERIFICATION_PROVIDER. */
  provider: Config["liveVerification"]["provider"];
  /** False with no provider: live calls answer SOURCE_UNAVAILABLE and no verification family is shown. */
  liveVerificationConfigured: boolean;
  /** LIVE_PAYMENT_PROVIDER; with none the payments family is listed as not configured. */
  paymentsProvider: Config["livePayments"]["provider"];
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

const VENDOR_LABELS: Record<string, string> = { cashfree: "Cashfree", setu: "Setu" };

type VerificationFamily = "pan" | "epfo" | "aadhaar" | "bank";

function statusOf(stats: UpstreamFamilyStats): UpstreamStatus {
  if (stats.misconfigured) return "misconfigured";
  if (stats.breaker === "open" || stats.breaker === "isolated") return "breaker-open";
  if (stats.breaker === "half-open") return "breaker-trial";
  return "ok";
}

/** The payments row when no processor is chosen: nothing called, nothing to count. */
function paymentsNotConfigured(): UpstreamFamilyHealth {
  return {
    family: "payments",
    label: "Payments",
    vendor: "none",
    vendorLabel: "None",
    status: "not-configured",
    breaker: "closed",
    retryAt: null,
    misconfigured: false,
    callsLast5Min: 0,
    failuresLast5Min: 0,
    p95LatencyMs: null,
    lastError: null,
  };
}

/**
 * The operator console's upstream panel: per family, its breaker, whether the vendor refused
 * Parakh's account, calls and failures in the last 5 minutes, p95 latency and the last error. The
 * statistics carry no personal data (they hold counts, timings and Parakh's own error messages).
 */
export function upstreamHealth(
  settings: {
    liveVerification: Pick<Config["liveVerification"], "provider"> & { vendors?: Config["liveVerification"]["vendors"] };
    livePayments: Pick<Config["livePayments"], "provider">;
  },
  stats: UpstreamFamilyStats[] = upstreamStats(),
): UpstreamHealth {
  const vendors = settings.liveVerification.vendors;
  const configured = settings.liveVerification.provider !== "none" || (vendors !== undefined && Object.values(vendors).some((v) => v.length > 0));
  const paymentsConfigured = settings.livePayments.provider !== "none";
  const families: UpstreamFamilyHealth[] = [];
  for (const { family, label } of FAMILIES) {
    if (family === "payments" && !paymentsConfigured) {
      families.push(paymentsNotConfigured());
      continue;
    }
    if (VERIFICATION_FAMILIES.has(family) && !configured) continue;
    // The family's vendors in the order they are tried; clients built for an earlier set of settings (tests, tools) say nothing about this one.
    const order: readonly string[] | null = VERIFICATION_FAMILIES.has(family) && vendors ? vendors[family as VerificationFamily] : null;
    const rows = stats.filter((s) => s.family === family && (order === null || order.includes(s.vendor)));
    if (order) rows.sort((a, b) => order.indexOf(a.vendor) - order.indexOf(b.vendor));
    for (const s of rows) families.push({ ...s, family, label, vendorLabel: VENDOR_LABELS[s.vendor] ?? s.vendor, status: statusOf(s) });
  }
  return {
    provider: settings.liveVerification.provider,
    liveVerificationConfigured: configured,
    paymentsProvider: settings.livePayments.provider,
    families,
    at: new Date().toISOString(),
  };
}
