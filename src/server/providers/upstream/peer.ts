/**
 * Upstream calls are counted where they are made: the server's thread makes the API's and the jobs',
 * the page thread (src/server/http/page-thread.ts) the dashboard's and the checkout page's. Each
 * thread reads the other's figures through its peer, so the metrics scrape and the operator console
 * see both. Without a peer (one thread, tests, tools) they are this thread's alone. The breaker is
 * not a thread's: it is read from the family's gate, which the whole server shares.
 */
import { upstreamCallCounts, upstreamGateViews, upstreamKey, upstreamStats, type UpstreamFamily, type UpstreamVendor } from "./client";
import type { GateView } from "./gate";
import type { UpstreamCallCounts, UpstreamFamilyStats } from "./stats";

export interface UpstreamSnapshot {
  counts: UpstreamCallCounts[];
  stats: UpstreamFamilyStats[];
}

type PeerSource = () => Promise<UpstreamSnapshot>;

// On globalThis: Next bundles its own copy of this module, and the console reads through that one.
const KEY = Symbol.for("parakh.upstream-peer");
const holder = globalThis as { [KEY]?: PeerSource };

export function setUpstreamPeer(source: PeerSource | undefined): void {
  holder[KEY] = source;
}

export function localUpstreamSnapshot(): UpstreamSnapshot {
  return { counts: upstreamCallCounts(), stats: upstreamStats() };
}

/** The peer's figures, or none when there is no peer or it did not answer. */
async function peerSnapshot(): Promise<UpstreamSnapshot | null> {
  const source = holder[KEY];
  if (!source) return null;
  return source().catch(() => null);
}

/** The server's gates; none when they cannot be read (the threads' own breaker readings then stand). */
async function gateViews(): Promise<Map<string, GateView>> {
  return upstreamGateViews().catch(() => new Map<string, GateView>());
}

/**
 * Every family's counts per thread: one entry per thread that has the family (so sums add up like a
 * cluster's workers); each entry's breaker is the server's.
 */
export async function allUpstreamCallCounts(): Promise<UpstreamCallCounts[]> {
  const [peer, views] = await Promise.all([peerSnapshot(), gateViews()]);
  const counts = peer ? [...upstreamCallCounts(), ...peer.counts] : upstreamCallCounts();
  return counts.map((c) => {
    const view = views.get(upstreamKey(c.vendor as UpstreamVendor, c.family as UpstreamFamily));
    return view ? { ...c, breaker: view.breaker } : c;
  });
}

const BREAKER_SEVERITY: Record<UpstreamFamilyStats["breaker"], number> = { closed: 0, "half-open": 1, open: 2, isolated: 3 };

const later = (a: UpstreamFamilyStats["lastError"], b: UpstreamFamilyStats["lastError"]) => (!a ? b : !b ? a : a.at >= b.at ? a : b);

/**
 * One family seen by two threads: calls and failures add up; the breaker is the worse of the two
 * (with its retry time); p95 is the higher one (each thread's is over its own calls); the last error is the later one.
 */
export function mergeFamilyStats(a: UpstreamFamilyStats, b: UpstreamFamilyStats): UpstreamFamilyStats {
  const worse = BREAKER_SEVERITY[b.breaker] > BREAKER_SEVERITY[a.breaker] ? b : a;
  const p95 = a.p95LatencyMs === null ? b.p95LatencyMs : b.p95LatencyMs === null ? a.p95LatencyMs : Math.max(a.p95LatencyMs, b.p95LatencyMs);
  return {
    family: a.family,
    vendor: a.vendor,
    breaker: worse.breaker,
    retryAt: worse.retryAt,
    misconfigured: a.misconfigured || b.misconfigured,
    callsLast5Min: a.callsLast5Min + b.callsLast5Min,
    failuresLast5Min: a.failuresLast5Min + b.failuresLast5Min,
    p95LatencyMs: p95,
    lastError: later(a.lastError, b.lastError),
  };
}

/** Each family's statistics over this thread and its peer, with the server's breaker. */
export async function allUpstreamStats(): Promise<UpstreamFamilyStats[]> {
  const [peer, views] = await Promise.all([peerSnapshot(), gateViews()]);
  const keyOf = (s: UpstreamFamilyStats) => upstreamKey(s.vendor as UpstreamVendor, s.family as UpstreamFamily);
  const byFamily = new Map(upstreamStats().map((s) => [keyOf(s), s]));
  for (const s of peer?.stats ?? []) {
    const mine = byFamily.get(keyOf(s));
    byFamily.set(keyOf(s), mine ? mergeFamilyStats(mine, s) : s);
  }
  return [...byFamily.values()].map((s) => {
    const view = views.get(keyOf(s));
    if (!view) return s;
    return { ...s, breaker: view.breaker, retryAt: view.openUntil === null ? null : new Date(view.openUntil).toISOString() };
  });
}
