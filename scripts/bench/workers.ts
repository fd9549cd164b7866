import fs from "node:fs";
import type autocannon from "autocannon";
import { rollingRestart, type RollingRestart } from "./rolling-restart";

interface Started {
  dataDir: string;
  pg?: { stop: () => Promise<void> };
  server: { port: number; child: { pid?: number }; peakRssMb: () => number; workerPeakRssMb: () => number[]; stop: () => Promise<void> };
  creds: { sandbox: { secretKey: string } };
}

/**
 * PAN verify on a server running two workers (WEB_CONCURRENCY=2), to set beside the one-worker run,
 * then a SIGHUP under steady load: the failed requests of a rolling restart (the goal is 0).
 */
export async function benchTwoWorkers<R extends { requestsPerSec: number }>(
  label: string,
  baselineRequestsPerSec: number,
  deps: { start: () => Promise<Started>; load: (name: string, opts: autocannon.Options, pid?: number) => Promise<R> },
) {
  const { dataDir, pg, server, creds } = await deps.start();
  const opts = {
    url: `http://127.0.0.1:${server.port}/v1/identity/pan/verify`,
    method: "POST" as const,
    headers: { "content-type": "application/json", authorization: `Bearer ${creds.sandbox.secretKey}` },
    body: JSON.stringify({ pan: "ABCPK1234F", name: "Arjun Kapoor" }),
  };
  try {
    const two = await deps.load(`POST /v1/identity/pan/verify, WEB_CONCURRENCY=2 (${label})`, opts, server.child.pid);
    const restart = await rollingRestart(opts, server.child.pid!);
    return {
      ...two,
      ratio: Math.round((two.requestsPerSec / baselineRequestsPerSec) * 100) / 100,
      peakRssMb: server.peakRssMb(),
      workerPeakRssMb: server.workerPeakRssMb(),
      restart,
    };
  } finally {
    await server.stop();
    await pg?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A line per two-worker run: its ratio to one worker and the rolling restart's failed requests. */
export function workersReport(rows: Record<string, unknown>[]): string[] {
  const lines: string[] = [];
  for (const r of rows) {
    const restart = r.restart as RollingRestart | undefined;
    if (!restart) continue;
    lines.push(
      "",
      `${r.name}: ${r.ratioToOneWorker}× the req/s of one worker in this run (CPU counted over the primary and its workers; peak RSS: the primary's, then each worker's, the two the restart replaced included). ` +
        `Rolling restart (SIGHUP) under 20 connections: ${restart.requests} requests, ${restart.failed} failed; ` +
        (restart.replaced ? `both workers replaced in ${restart.restartMs} ms` : "the workers were NOT all replaced"),
    );
  }
  return lines;
}
