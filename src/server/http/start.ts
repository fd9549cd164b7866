import http from "node:http";
import net from "node:net";
import { Primary } from "@/server/cluster/primary";
import { joinCluster, obeyPrimary, tellPrimary, workerSlot } from "@/server/cluster/worker";
import { getConfig, settingWarnings, type Config } from "@/server/config";
import { closeDatabase, createPrismaClient, type Db } from "@/server/db/client";
import { checkReadiness } from "@/server/db/health";
import { applyMigrations } from "@/server/db/migrate";
import { guardConnections } from "@/server/http/connection-guard";
import { demoBanner } from "@/server/http/demo-banner";
import { loadNext, type UpgradeHandler } from "@/server/http/next-app";
import { PageThread } from "@/server/http/page-thread";
import { createRequestListener, InFlightRequests, type PageHandler } from "@/server/http/request-listener";
import { answerUnparsedRequests } from "@/server/http/unparsed-requests";
import { warmFirstSignup } from "@/server/http/warm-up";
import type { JobRunner } from "@/server/jobs/runner";
import { createJobRunners, scheduleRecurringJobs } from "@/server/job-handlers/runners";
import { log } from "@/server/lib/logger";
import { TimedResponse } from "@/server/metrics/http";
import { panVerifyRequestExample } from "@/server/rest/openapi-examples";
import { getServices, type AppServices } from "@/server/services";
import { ensureDemoMerchant } from "@/server/services/merchants/demo";

export { CLIENT_IP_HEADER, PAGE_PATH_HEADER } from "@/server/http/request-listener";

export interface StartOptions {
  dev: boolean;
  /** False runs the API doors only (no pages): an API-only instance. */
  servePages: boolean;
  seedDemo: boolean;
}

/** Settings next-auth reads from the environment, and the process's services. */
function prepare(config: Config): AppServices {
  // next-auth reads these from the environment; the generated secret lives in the data folder.
  process.env.NEXTAUTH_URL ??= config.nextAuthUrl;
  process.env.NEXTAUTH_SECRET ??= config.secrets.nextAuthSecret;
  const services = getServices();
  services.authCache.start();
  return services;
}

async function migrate(config: Config) {
  const migrated = await applyMigrations(config.databaseUrl);
  if (migrated.applied.length) log.info("migrations applied", { applied: migrated.applied });
}

/** The demo merchant, created if missing, and its banner. */
async function seedDemo(config: Config, db: Db) {
  const creds = await ensureDemoMerchant(db, config.dataDir);
  if (creds) process.stdout.write(demoBanner(creds, config.appUrl, !config.isProduction, panVerifyRequestExample()));
}

/** The cluster's primary seeds on a client of its own, closed before any worker opens the database. */
async function seedDemoOnce(config: Config) {
  const db = createPrismaClient(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
  try {
    await seedDemo(config, db);
  } finally {
    await closeDatabase(db);
  }
}

/**
 * This instance's share of the background work: its job runners, and the next run of each
 * recurring job (maintenance runs once per period across all instances, on whichever claims it).
 */
async function startJobs(services: AppServices): Promise<JobRunner[]> {
  if (!services.config.jobsEnabled) return [];
  const runners = createJobRunners(services);
  for (const runner of runners) runner.start();
  await scheduleRecurringJobs(services).catch((err) => log.warn("recurring jobs not scheduled", { err }));
  return runners;
}

/** Timeouts, connection limits, requests Node cannot parse, and (in development) Next's reload channel. */
export function configureServer(server: http.Server, config: Config, devUpgrade: UpgradeHandler | undefined) {
  // Slow or silent clients are cut off: headers must arrive in time, the whole request too, and a
  // socket that stays silent (before its first request or between requests) is closed. In
  // development a page request being compiled is spared the idle timeout (request-listener.ts).
  server.headersTimeout = config.http.headersTimeoutMs;
  server.requestTimeout = config.http.requestTimeoutMs;
  server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
  server.setTimeout(config.http.idleTimeoutMs);
  server.maxConnections = config.http.maxConnections;
  guardConnections(server, { maxPerAddress: config.http.maxConnectionsPerIp });
  answerUnparsedRequests(server);
  // Only development has a websocket (Next's reload channel). Without an 'upgrade' listener Node
  // answers an Upgrade request as a plain request; with one, every other upgrade would be a socket
  // nobody reads or closes, so those are dropped at once.
  if (devUpgrade) {
    server.on("upgrade", (req, socket, head) => {
      if (!(req.url ?? "").startsWith("/_next/webpack-hmr")) return void socket.destroy();
      // The reload channel may stay quiet for long; the idle timeout is for HTTP.
      (socket as import("node:net").Socket).setTimeout?.(0);
      void devUpgrade(req, socket, head);
    });
  }
}

/** Listens on the configured address; resolves with the port (the one chosen when the setting is 0). */
async function listen(server: http.Server, config: Config): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  return typeof address === "object" && address ? address.port : config.port;
}

interface Running {
  server: http.Server;
  inFlight: InFlightRequests;
  runners: JobRunner[];
  services: AppServices;
  pageThread: PageThread | undefined;
}

interface Pages {
  handler: PageHandler;
  /** Next's reload channel, in development. */
  upgrade?: UpgradeHandler;
  thread?: PageThread;
}

/**
 * Production pages run on a thread of their own (./page-thread.ts), so Next's per-promise hooks
 * and global patches stay off the API's thread. The development server stays on this thread: it
 * compiles on demand and its reload channel is a websocket upgrade of this server's.
 */
async function startPages(dev: boolean, config: Config): Promise<Pages> {
  if (dev) return loadNext(true, config);
  const thread = new PageThread();
  await thread.start();
  return { handler: thread.handler, thread };
}

/** Resolves when `done` does, or after `ms`. */
function within(done: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([done, new Promise((r) => (timer = setTimeout(r, ms)))]).then(() => clearTimeout(timer));
}

/**
 * Stops accepting, finishes in-flight requests (up to the shutdown timeout), the running jobs and the
 * audit log, then exits. `gentle` (a cluster worker whose replacement already serves) also leaves
 * idle keep-alive sockets open: a client may be sending its next request on one at that moment, and
 * closing it would fail that request. Each closes after its next answer, or when it times out.
 */
async function shutdown({ server, inFlight, runners, services, pageThread }: Running, reason: string, gentle = false) {
  const { config } = services;
  if (inFlight.closing) return;
  inFlight.close();
  log.info(gentle ? "draining" : "shutting down", { reason, inFlight: inFlight.count });
  // Every socket has ended (the event may come at once: listen before closing).
  const socketsEnded = new Promise((resolve) => server.once("close", resolve));
  if (gentle) {
    // http.Server's close would also close the idle sockets.
    net.Server.prototype.close.call(server);
    tellPrimary("draining");
  } else {
    server.close();
    server.closeIdleConnections();
  }
  const stopping = Promise.all(runners.map((runner) => runner.stop(config.shutdownTimeoutMs)));
  const deadline = setTimeout(() => {
    log.warn("shutdown timeout; closing remaining connections", { inFlight: inFlight.count });
    server.closeAllConnections();
    inFlight.giveUp();
  }, config.shutdownTimeoutMs);
  await inFlight.drained();
  clearTimeout(deadline);
  if (gentle) {
    await within(socketsEnded, config.http.keepAliveTimeoutMs + 1000);
    server.closeAllConnections();
  }
  await Promise.all([stopping, pageThread?.stop(config.shutdownTimeoutMs)]);
  await services.batchChunkThread.close();
  services.rateLimiter.stop();
  await services.auditWriter.drain();
  await services.authCache.stop();
  await closeDatabase(services.db);
  log.info("stopped");
  process.exit(0);
}

function onSignals(running: Running) {
  process.on("SIGTERM", () => void shutdown(running, "SIGTERM"));
  process.on("SIGINT", () => void shutdown(running, "SIGINT"));
  // When whoever reads the log goes away (a closed pipe), a failed write must not be reported by
  // writing to the same closed stream again: that loop held a core at 100 %. The server keeps serving.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
}

/** A cluster worker tells the primary it is ready once it listens and its readiness check passes. */
async function reportReady(services: AppServices) {
  let ready = false;
  while (!ready) {
    ready = (await checkReadiness(services.db, false)) === "ready";
    if (!ready) await new Promise((r) => setTimeout(r, 250));
  }
  tellPrimary("ready");
}

interface Role {
  /** Cluster worker slot, or null for the single process. */
  slot: number | null;
  jobs: boolean;
}

/** One serving process: the single process, or one cluster worker. */
async function serve(opts: StartOptions, role: Role) {
  const config = getConfig();
  if (role.slot === null) await migrate(config);
  const services = prepare(config);
  const runners = role.jobs ? await startJobs(services) : [];
  const pages = opts.servePages ? await startPages(opts.dev, config) : undefined;
  const inFlight = new InFlightRequests();
  const listener = await createRequestListener({ services, dev: opts.dev, pages: pages?.handler, inFlight });
  const server = http.createServer({ connectionsCheckingInterval: Math.min(1000, config.http.headersTimeoutMs), ServerResponse: TimedResponse }, listener);
  configureServer(server, config, pages?.upgrade);
  const port = await listen(server, config);
  const worker = role.slot === null ? {} : { worker: role.slot, pid: process.pid };
  log.info("listening", { host: config.host, port, pages: opts.servePages, dev: opts.dev, ...worker });

  if (role.slot === null && opts.seedDemo) await seedDemo(config, services.db);
  // Production pages only: the development server compiles on demand, and an API-only instance has no sign-up.
  if (opts.servePages && !opts.dev) void warmFirstSignup(server);
  const running = { server, inFlight, runners, services, pageThread: pages?.thread };
  onSignals(running);
  if (role.slot !== null) {
    obeyPrimary({ drain: () => void shutdown(running, "replaced", true), stop: (reason) => void shutdown(running, reason) });
    void reportReady(services);
  }
  return { server, port };
}

/** How many processes serve: WEB_CONCURRENCY, except with Next's development server, which runs in one. */
function workerCount(opts: StartOptions, config: Config): number {
  if (config.webConcurrency > 1 && opts.dev && opts.servePages) {
    log.warn("WEB_CONCURRENCY ignored: the development server runs in one process", { webConcurrency: config.webConcurrency });
    return 1;
  }
  return config.webConcurrency;
}

export async function startParakh(opts: StartOptions) {
  const slot = workerSlot();
  if (slot !== null) {
    // Everything run once per deployment (secrets, migrations, the demo) was done by the primary.
    joinCluster();
    return serve(opts, { slot, jobs: slot === 0 });
  }
  const config = getConfig();
  // Once per deployment, in the process that stays: settings that start but will not work as meant.
  for (const warning of settingWarnings(config)) log.warn(warning);
  const workers = workerCount(opts, config);
  if (workers <= 1) return serve(opts, { slot: null, jobs: true });
  // Once, before any worker exists: the secrets file (getConfig), migrations, the demo merchant.
  await migrate(config);
  if (opts.seedDemo) await seedDemoOnce(config);
  new Primary({
    workers,
    readyTimeoutMs: 120_000,
    stopTimeoutMs: config.shutdownTimeoutMs + config.http.keepAliveTimeoutMs + 5_000,
  }).start();
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
  return undefined;
}
