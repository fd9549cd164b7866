/**
 * The page thread (see ./page-thread.ts): Next on a server of its own, reached only through the
 * Unix socket the server thread gave it. Its limits count in the server thread's store, its job
 * wakes go to the server thread's runners, and it answers questions about its upstream calls.
 */
import fs from "node:fs";
import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";
import { IpcLimitStore, type Channel } from "@/server/cluster/limits-ipc";
import { getConfig } from "@/server/config";
import { closeDatabase } from "@/server/db/client";
import { loadNext } from "@/server/http/next-app";
import { isPageThreadMessage, type PageThreadMessage } from "@/server/http/page-thread-messages";
import { forwardWakes } from "@/server/jobs/wake";
import { log } from "@/server/lib/logger";
import { localUpstreamSnapshot, setUpstreamPeer, type UpstreamSnapshot } from "@/server/providers/upstream/peer";
import { getServices } from "@/server/services";
import { warmSignupPath } from "@/server/services/accounts/warm-up";
import { installSharedLimits } from "@/server/services/limits/shared";

const port = parentPort!;
const { socketPath } = workerData as { socketPath: string };
const send = (m: PageThreadMessage) => port.postMessage(m);

const channel: Channel = {
  send: (message, callback) => {
    port.postMessage(message);
    callback(null);
  },
  on: (event, listener) => port.on(event, listener),
};
// Before any service exists: the limits of the pages (sign-in failures, sign-ups) count with the API's.
installSharedLimits(new IpcLimitStore(channel));
forwardWakes((lane) => send({ parakh: "page-thread", type: "wake", lane }));

let nextAsk = 1;
const asks = new Map<number, (snapshot: UpstreamSnapshot) => void>();
setUpstreamPeer(
  () =>
    new Promise((resolve, reject) => {
      const id = nextAsk++;
      const timer = setTimeout(() => {
        asks.delete(id);
        reject(new Error("the server thread did not answer"));
      }, 2000);
      asks.set(id, (snapshot) => {
        clearTimeout(timer);
        resolve(snapshot);
      });
      send({ parakh: "page-thread", type: "upstream?", id });
    }),
);

let server: http.Server | undefined;

/** The server thread has drained its page requests: close what this thread holds and end it. */
async function stop() {
  server?.close();
  server?.closeAllConnections();
  const services = getServices();
  services.rateLimiter.stop();
  await services.auditWriter.drain();
  await closeDatabase(services.db);
  process.exit(0);
}

port.on("message", (m: unknown) => {
  if (!isPageThreadMessage(m)) return;
  if (m.type === "upstream?") send({ parakh: "page-thread", type: "upstream", id: m.id, snapshot: localUpstreamSnapshot() });
  else if (m.type === "upstream") {
    asks.get(m.id)?.(m.snapshot);
    asks.delete(m.id);
  } else if (m.type === "stop") void stop();
});

async function main() {
  const config = getConfig();
  const services = getServices();
  const next = await loadNext(false, config);
  // A failure before the answer began drops the connection; the server thread then answers with the error envelope.
  server = http.createServer((req, res) => {
    next.handler(req, res).catch((err: unknown) => {
      log.error("page handler failed", { err });
      if (!res.headersSent) res.destroy();
    });
  });
  // The server thread bounds its clients; between the two threads a connection stays open for reuse.
  server.keepAliveTimeout = 0;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server!.once("error", reject);
    server!.listen(socketPath, resolve);
  });
  fs.chmodSync(socketPath, 0o600);
  send({ parakh: "page-thread", type: "ready" });
  // The first sign-up's database side, in the background (see ../http/warm-up.ts for the rest).
  warmSignupPath(services.db).catch((err: unknown) => log.warn("warming the first sign-up failed", { err }));
}

main().catch((err: unknown) => {
  log.error("the page thread failed to start", { err });
  process.exit(1);
});
