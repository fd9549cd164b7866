/**
 * The process's Prometheus registry: Node's default metrics (event-loop delay, memory, CPU, GC) and
 * Parakh's own, in one place so a cluster primary can gather every worker's (see ./cluster.ts).
 * Label values are route templates, status classes, job types, upstream families and outcomes:
 * fixed sets, never an id, a key or anything a caller sent.
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import { prepareClusterMetrics } from "@/server/metrics/cluster";

export const HTTP_LABELS = ["method", "route", "status_class"] as const;
export type HttpLabel = (typeof HTTP_LABELS)[number];

/** From 1 ms (a sandbox answer) to 10 s (a slow upstream, a large batch body). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Group commits: a few ms with the disk synced, longer under load or when the lock is contended. */
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export interface ParakhMetrics {
  registry: Registry;
  requestDuration: Histogram<HttpLabel>;
  auditCommitDuration: Histogram;
  auditRecordsCommitted: Counter<"result">;
  requestBodies: Counter<"outcome">;
}

/**
 * Requests answered, per route, method and status class. Read from the latency histogram's counts
 * when scraped, so a request costs one observation, not two.
 */
function requestCounter(registry: Registry, requestDuration: Histogram<HttpLabel>) {
  return new Counter({
    name: "parakh_http_requests_total",
    help: "HTTP requests answered, by method, route template and status class.",
    labelNames: HTTP_LABELS,
    registers: [registry],
    async collect() {
      const { values } = await requestDuration.get();
      this.reset();
      for (const v of values) {
        if (v.metricName === "parakh_http_request_duration_seconds_count") this.inc(v.labels as Record<HttpLabel, string>, v.value);
      }
    },
  });
}

function createMetrics(): ParakhMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requestDuration = new Histogram({
    name: "parakh_http_request_duration_seconds",
    help: "Time from a request's arrival to the end of its answer, by method, route template and status class.",
    labelNames: HTTP_LABELS,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  requestCounter(registry, requestDuration);
  const auditCommitDuration = new Histogram({
    name: "parakh_audit_commit_duration_seconds",
    help: "Time of one audit-log group commit, waiting for the database included.",
    buckets: COMMIT_BUCKETS,
    registers: [registry],
  });
  const auditRecordsCommitted = new Counter({
    name: "parakh_audit_records_total",
    help: "Audit records by commit result: committed, or failed (their requests were answered 503).",
    labelNames: ["result"],
    registers: [registry],
  });
  const requestBodies = new Counter({
    name: "parakh_rest_request_bodies_total",
    help: "REST request bodies by how they were read: in place (small), on a body thread (large), or refused while too many large ones were in hand.",
    labelNames: ["outcome"],
    registers: [registry],
  });
  // A cluster worker's registry must answer the primary from the start, whichever worker is scraped.
  prepareClusterMetrics(registry);
  return { registry, requestDuration, auditCommitDuration, auditRecordsCommitted, requestBodies };
}

// One registry per process even if a module is loaded twice (Next bundles its own copies).
const KEY = Symbol.for("parakh.metrics");

export function processMetrics(): ParakhMetrics {
  const holder = globalThis as { [KEY]?: ParakhMetrics };
  holder[KEY] ??= createMetrics();
  return holder[KEY];
}
