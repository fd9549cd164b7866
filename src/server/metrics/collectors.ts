/**
 * Gauges read when scraped: the audit writer's queue, the job queue's backlog, open wallet holds and
 * the upstream families. The database reads are one bounded index walk and one index count; every
 * other figure is already in memory.
 */
import { Counter, Gauge } from "prom-client";
import { dueJobsByType } from "@/server/jobs/stats";
import { log } from "@/server/lib/logger";
import { processMetrics } from "@/server/metrics/registry";
import { UPSTREAM_OUTCOMES } from "@/server/providers/upstream/client";
import { allUpstreamCallCounts } from "@/server/providers/upstream/peer";
import type { AppServices } from "@/server/services";
import { chunkPassesRan } from "@/server/services/batches/batch-worker";
import { countOpenHolds } from "@/server/services/wallet/holds";

const BREAKER_STATES = ["closed", "half-open", "open", "isolated"] as const;

/** The services the gauges read: the process's, set when its request listener is made. */
let watched: AppServices | undefined;

/** Figures about the shared database are the same from every worker: a cluster reports one, not their sum. */
const DATABASE_WIDE = "max" as const;

/** One read shared by every gauge collected in the same scrape (the registry collects them side by side). */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () => (inFlight ??= read().finally(() => (inFlight = null)));
}

const readBacklog = sharedRead(async () => {
  const now = new Date();
  if (!watched) return { now, due: [] };
  const due = await dueJobsByType(watched.db, now).catch((err) => void log.warn("metrics: job queue not read", { err }));
  return { now, due: due ?? [] };
});

function databaseGauges(registry: ReturnType<typeof processMetrics>["registry"]) {
  new Gauge({
    name: "parakh_job_queue_depth",
    help: "Jobs queued and due, waiting for a worker, by job type (counted up to 5000 in all).",
    labelNames: ["job"],
    aggregator: DATABASE_WIDE,
    registers: [registry],
    async collect() {
      const { due } = await readBacklog();
      this.reset();
      for (const d of due) this.set({ job: d.type }, d.due);
    },
  });
  new Gauge({
    name: "parakh_job_oldest_pending_age_seconds",
    help: "How long the longest-waiting due job of each type has waited for a worker.",
    labelNames: ["job"],
    aggregator: DATABASE_WIDE,
    registers: [registry],
    async collect() {
      const { now, due } = await readBacklog();
      this.reset();
      for (const d of due) this.set({ job: d.type }, Math.max(0, (now.getTime() - d.oldestDueAt.getTime()) / 1000));
    },
  });
  new Gauge({
    name: "parakh_wallet_holds_open",
    help: "Wallet holds not yet captured or released: fees of charged calls in flight.",
    aggregator: DATABASE_WIDE,
    registers: [registry],
    async collect() {
      this.reset();
      if (!watched) return;
      const open = await countOpenHolds(watched.db).catch((err) => void log.warn("metrics: wallet holds not counted", { err }));
      if (open !== undefined) this.set(open);
    },
  });
}

function upstreamMetrics(registry: ReturnType<typeof processMetrics>["registry"]) {
  new Counter({
    name: "parakh_upstream_calls_total",
    help: "Calls to live upstream vendors by family, vendor and outcome (ok, timeout, failed, misconfigured, rejected).",
    labelNames: ["family", "vendor", "outcome"],
    registers: [registry],
    async collect() {
      const counts = await allUpstreamCallCounts();
      this.reset();
      for (const f of counts) for (const outcome of UPSTREAM_OUTCOMES) this.inc({ family: f.family, vendor: f.vendor, outcome }, f.calls[outcome]);
    },
  });
  new Counter({
    name: "parakh_upstream_failovers_total",
    help: "Live calls moved on from a family's vendor to the next one (its breaker open, its bulkhead full, or no business answer).",
    labelNames: ["family", "vendor"],
    registers: [registry],
    async collect() {
      const counts = await allUpstreamCallCounts();
      this.reset();
      for (const f of counts) this.inc({ family: f.family, vendor: f.vendor }, f.failovers);
    },
  });
  new Gauge({
    name: "parakh_upstream_breaker_state",
    help: "1 for each upstream family's and vendor's current circuit-breaker state. One breaker per family and vendor for the whole server (every thread and cluster worker shares it).",
    labelNames: ["family", "vendor", "state"],
    // Every worker reads the same breaker (the primary's): one worker's reading is the server's.
    aggregator: "first",
    registers: [registry],
    async collect() {
      const counts = await allUpstreamCallCounts();
      this.reset();
      const breakers = new Map(counts.map((f) => [`${f.family}|${f.vendor}`, f]));
      for (const f of breakers.values())
        for (const state of BREAKER_STATES) this.set({ family: f.family, vendor: f.vendor, state }, f.breaker === state ? 1 : 0);
    },
  });
  new Gauge({
    name: "parakh_upstream_misconfigured",
    help: "1 while an upstream family's vendor refuses Parakh's credentials or address.",
    labelNames: ["family", "vendor"],
    aggregator: "max",
    registers: [registry],
    async collect() {
      const counts = await allUpstreamCallCounts();
      this.reset();
      const misconfigured = new Map<string, { family: string; vendor: string; refused: boolean }>();
      for (const f of counts) {
        const key = `${f.family}|${f.vendor}`;
        misconfigured.set(key, { family: f.family, vendor: f.vendor, refused: f.misconfigured || misconfigured.get(key)?.refused === true });
      }
      for (const { family, vendor, refused } of misconfigured.values()) this.set({ family, vendor }, refused ? 1 : 0);
    },
  });
}

function auditMetrics(registry: ReturnType<typeof processMetrics>["registry"]) {
  new Gauge({
    name: "parakh_audit_queue_depth",
    help: "Audit records waiting for their group commit (queued or being committed); their answers wait with them.",
    registers: [registry],
    collect() {
      this.set(watched?.auditWriter.pending ?? 0);
    },
  });
}

function batchMetrics(registry: ReturnType<typeof processMetrics>["registry"]) {
  new Counter({
    name: "parakh_batch_chunk_passes_total",
    help: "Passes over batch chunks' items by where they ran: the chunk thread (sandbox fixtures) or the event loop (live sources, or when the chunk thread failed).",
    labelNames: ["ran_on"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [ranOn, passes] of Object.entries(chunkPassesRan)) this.inc({ ran_on: ranOn }, passes);
    },
  });
  new Counter({
    name: "parakh_batch_early_passes_total",
    help: "First passes of new sandbox batches' chunks started early, when the batch was stored: taken by the worker that claimed the chunk, or dropped (not taken in time, or not yet started when the worker came, which then ran the pass itself).",
    labelNames: ["outcome"],
    registers: [registry],
    collect() {
      this.reset();
      const counts = watched?.batchChunkThread.early.counts ?? { taken: 0, dropped: 0 };
      for (const [outcome, passes] of Object.entries(counts)) this.inc({ outcome }, passes);
    },
  });
}

const made = Symbol.for("parakh.metrics.collectors");

/** Points the gauges at the process's services (the last call wins) and hooks the audit writer's commits. */
export function watchServices(services: AppServices): void {
  const metrics = processMetrics();
  const holder = metrics as unknown as { [made]?: true };
  if (!holder[made]) {
    holder[made] = true;
    databaseGauges(metrics.registry);
    upstreamMetrics(metrics.registry);
    auditMetrics(metrics.registry);
    batchMetrics(metrics.registry);
  }
  watched = services;
  services.auditWriter.onCommit = (records, seconds, ok) => {
    metrics.auditCommitDuration.observe(seconds);
    metrics.auditRecordsCommitted.inc({ result: ok ? "committed" : "failed" }, records);
  };
}
