/**
 * Metrics across node:cluster workers. Each worker keeps its own registry; a scrape may land on any
 * worker, so the worker that gets it asks the primary, which asks every worker for its registry
 * (prom-client's AggregatorRegistry) and answers with their sum (database-wide gauges: their max).
 *
 * The primary calls `aggregateClusterMetrics()` once, before it forks; workers forked after that
 * answer /metrics for the whole cluster. A process that is not such a worker answers for itself.
 */
import cluster from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";

/** Set by the primary for the workers it forks (they inherit its environment). */
export const CLUSTER_METRICS_ENV = "PARAKH_CLUSTER_METRICS";
const SCRAPE_REQUEST = "parakh:metrics-scrape";
const SCRAPE_ANSWER = "parakh:metrics-scrape-answer";
/** prom-client gives each worker 5 s to answer; the asking worker waits a little longer than that. */
const SCRAPE_TIMEOUT_MS = 6_000;

interface ScrapeMessage {
  type: string;
  id: number;
  text?: string;
  error?: string;
}

const isScrapeMessage = (m: unknown, type: string): m is ScrapeMessage => typeof m === "object" && m !== null && (m as ScrapeMessage).type === type;

/** In the cluster primary, before forking the workers: answers their scrapes with every worker's metrics. */
export function aggregateClusterMetrics(): void {
  if (!cluster.isPrimary) throw new Error("aggregateClusterMetrics runs in the cluster primary");
  process.env[CLUSTER_METRICS_ENV] = "1";
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker, message: unknown) => {
    if (!isScrapeMessage(message, SCRAPE_REQUEST)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: SCRAPE_ANSWER, id: message.id, text }),
      (err: Error) => worker.isConnected() && worker.send({ type: SCRAPE_ANSWER, id: message.id, error: err.message }),
    );
  });
}

const waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();
let nextId = 0;
let joined = false;

/** In a worker of an aggregating primary: lets the primary read this registry, and hears its answers. */
function joinCluster(registry: Registry): boolean {
  if (!cluster.isWorker || process.env[CLUSTER_METRICS_ENV] !== "1" || !process.send) return false;
  if (joined) return true;
  joined = true;
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one is what makes prom-client answer the primary's requests in this worker.
  new AggregatorRegistry();
  process.on("message", (message: unknown) => {
    if (!isScrapeMessage(message, SCRAPE_ANSWER)) return;
    const w = waiting.get(message.id);
    if (!w) return;
    waiting.delete(message.id);
    clearTimeout(w.timer);
    if (message.error !== undefined) w.reject(new Error(message.error));
    else w.resolve(message.text ?? "");
  });
  return true;
}

/** Joins the cluster's aggregation when this process is one of its workers; call once the registry exists. */
export function prepareClusterMetrics(registry: Registry): void {
  joinCluster(registry);
}

/** The scrape's text: the whole cluster's when this is a worker of an aggregating primary, else this process's. */
export function scrapeText(registry: Registry): Promise<string> {
  if (!joinCluster(registry)) return registry.metrics();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error("the cluster primary did not answer the scrape"));
    }, SCRAPE_TIMEOUT_MS);
    waiting.set(id, { resolve, reject, timer });
    process.send!({ type: SCRAPE_REQUEST, id });
  });
}
