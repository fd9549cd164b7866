// A two-worker node:cluster wired the way the server's cluster primary is meant to wire metrics:
// the primary calls aggregateClusterMetrics() before forking; each worker times its requests into
// its own registry and answers /metrics with scrapeText(). Prints "ready <port>" once both listen.
import cluster from "node:cluster";
import http from "node:http";
import { aggregateClusterMetrics, scrapeText } from "@/server/metrics/cluster";
import { routeSeries, timeRequest } from "@/server/metrics/http";
import { processMetrics } from "@/server/metrics/registry";

const WORKERS = 2;

if (cluster.isPrimary) {
  aggregateClusterMetrics();
  let listening = 0;
  let port = 0;
  for (let i = 0; i < WORKERS; i++) cluster.fork();
  cluster.on("listening", (_worker, address) => {
    port = address.port;
    if (++listening === WORKERS) process.stdout.write(`ready ${port}\n`);
  });
  process.on("SIGTERM", () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill();
    process.exit(0);
  });
} else {
  const { registry } = processMetrics();
  const series = routeSeries("GET", "/fixture");
  const port = Number(process.env.FIXTURE_PORT ?? 0);
  http
    .createServer((req, res) => {
      if (req.url === "/metrics") {
        void scrapeText(registry).then((text) => res.end(text));
        return;
      }
      timeRequest(res, series);
      res.end(String(process.pid));
    })
    .listen(port, "127.0.0.1");
}
