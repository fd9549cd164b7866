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
  const sentBefore = await vendor.panCalls();
  const first = await fetch(opts.url, { method: "POST", headers: opts.headers, body: opts.body });
  const answer = (await first.json()) as { data?: { name?: string } };
  const callsBefore = await vendor.panCalls();
  if (first.status !== 200 || answer.data?.name !== "ARJUN KAPOOR" || callsBefore !== sentBefore + 1) {
    throw new Error(`live PAN verify did not answer from the fake vendor: HTTP ${first.status} ${JSON.stringify(answer)}`);
  }
  const result = await load(name, opts);
  return { ...result, vendorCalls: (await vendor.panCalls()) - callsBefore };
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

/** The rate the live path is held to behind a slow vendor, and the vendor latencies it is measured at. */
export const SLOW_VENDOR_RATE = 2_000;
export const SLOW_VENDOR_LATENCIES_MS = [250, 1_000];

/**
 * Connections the load generator keeps for a latency: the calls in flight the rate needs (rate ×
 * latency, Little's law) and a fifth more. BENCH_LIVE_CONNECTIONS sets it (the smoke run of `npm test`).
 */
export function slowVendorConnections(latencyMs: number): number {
  const set = Number(process.env.BENCH_LIVE_CONNECTIONS);
  return set > 0 ? set : Math.ceil(((SLOW_VENDOR_RATE * latencyMs) / 1000) * 1.2);
}

/**
 * Live PAN verify with the vendor answering after each of SLOW_VENDOR_LATENCIES_MS: req/s and p99
 * against the vendor's latency, and how many connections Parakh opened to the vendor per 1,000 calls
 * (its pool keeps them alive).
 */
export async function benchSlowVendorPan<R extends { total: number; p99: number }>(
  db: string,
  base: string,
  liveSecretKey: string,
  vendor: BenchVendor,
  load: (name: string, opts: autocannon.Options) => Promise<R>,
) {
  const rows = [];
  for (const latencyMs of SLOW_VENDOR_LATENCIES_MS) {
    await vendor.setLatency(latencyMs);
    const connections = slowVendorConnections(latencyMs);
    const calls = await vendor.panCalls();
    const opened = await vendor.connections();
    const result = await load(`POST /v1/identity/pan/verify live, vendor answering in ${latencyMs} ms (${db})`, {
      url: `${base}/v1/identity/pan/verify`,
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${liveSecretKey}` },
      body: JSON.stringify({ pan: "ABCPK1234F", name: "Arjun Kapoor", consent: true, purpose: "Employee onboarding identity check" }),
      connections,
    });
    const vendorCalls = (await vendor.panCalls()) - calls;
    const openedNow = await vendor.connections();
    rows.push({
      ...result,
      vendorLatencyMs: latencyMs,
      loadConnections: connections,
      vendorCalls,
      vendorConnectionsPer1000Calls: vendorCalls > 0 ? Math.round(((openedNow - opened) * 1000 * 10) / vendorCalls) / 10 : null,
    });
  }
  await vendor.setLatency(0);
  return rows;
}

/** A line per slow-vendor run: the rate against the one wanted, p99 against the vendor's latency, connections opened. */
export function slowVendorReport(rows: Record<string, unknown>[]): string[] {
  const lines: string[] = [];
  for (const r of rows) {
    if (r.vendorLatencyMs === undefined) continue;
    const latency = r.vendorLatencyMs as number;
    lines.push(
      "",
      `${r.name}: ${r.requestsPerSec} req/s with ${r.loadConnections} connections (wanted ${SLOW_VENDOR_RATE}), p50 ${r.p50} ms, p99 ${r.p99} ms ` +
        `(${(r.p99 as number) - latency} ms over the vendor's ${latency}), ${r.errors} errors, ${r.non2xx} non-2xx; CPU µs/req: server ${r.cpuUsPerReq ?? "-"}, ` +
        `fake vendor ${r.vendorCpuUsPerReq ?? "-"}, load generator ${r.loadCpuUsPerReq ?? "-"}; ` +
        `${r.vendorConnectionsPer1000Calls} vendor connections opened per 1,000 calls; server peak RSS ${r.peakRssMb} MB`,
    );
  }
  return lines;
}
