import type autocannon from "autocannon";
import type { BenchVendor } from "./fake-vendor";

/** Live PAN verify's req/s should be at least this share of sandbox PAN verify's in the same run. */
export const LIVE_PAN_MIN_RATIO = 0.7;

/**
 * PAN verify with a live key: the live adapter, the upstream client and the fake vendor's answer,
 * loaded like the sandbox run it is compared with.
 */
export async function benchLivePan<R extends { total: number }>(
  name: string,
  base: string,
  liveSecretKey: string,
  vendor: BenchVendor,
  load: (name: string, opts: autocannon.Options) => Promise<R>,
) {
  const opts = {
    url: `${base}/v1/identity/pan/verify`,
    method: "POST" as const,
    headers: { "content-type": "application/json", authorization: `Bearer ${liveSecretKey}` },
    // A live check carries the person's consent and its purpose (contract C6).
    body: JSON.stringify({ pan: "ABCPK1234F", name: "Arjun Kapoor", consent: true, purpose: "Employee onboarding identity check" }),
  };
  // One call first: a misconfigured live path fails the bench here instead of measuring errors.
  const sentBefore = vendor.panCalls();
  const first = await fetch(opts.url, { method: "POST", headers: opts.headers, body: opts.body });
  const answer = (await first.json()) as { data?: { name?: string } };
  const callsBefore = vendor.panCalls();
  if (first.status !== 200 || answer.data?.name !== "ARJUN KAPOOR" || callsBefore !== sentBefore + 1) {
    throw new Error(`live PAN verify did not answer from the fake vendor: HTTP ${first.status} ${JSON.stringify(answer)}`);
  }
  const result = await load(name, opts);
  return { ...result, vendorCalls: vendor.panCalls() - callsBefore };
}

/** A line per live run with its ratio to sandbox, and a warning for each run under the floor. */
export function livePanReport(rows: Record<string, unknown>[]): { lines: string[]; warnings: string[] } {
  const lines: string[] = [];
  const warnings: string[] = [];
  for (const r of rows) {
    if (r.ratioToSandbox === undefined) continue;
    const ratio = r.ratioToSandbox as number;
    const ok = ratio >= LIVE_PAN_MIN_RATIO;
    if (!ok) warnings.push(`WARN: ${r.name} reached ${ratio}× sandbox PAN verify's req/s, under the ${LIVE_PAN_MIN_RATIO} the live path is held to`);
    lines.push(
      "",
      `${r.name}: ${r.requestsPerSec} req/s = ${ratio}× sandbox PAN verify in this run (at least ${LIVE_PAN_MIN_RATIO}: ${ok ? "ok" : "WARN, below"}), ` +
        `p99 ${r.p99} ms, server CPU ${r.cpuUsPerReq ?? "-"} µs/req; the fake vendor answered ${r.vendorCalls} /pan calls for ${r.total} requests`,
    );
  }
  return { lines, warnings };
}
