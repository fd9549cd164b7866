import { EventEmitter } from "node:events";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { REST_OPERATIONS } from "@/server/api/rest-router";
import { getConfig } from "@/server/config";
import { closeDatabase } from "@/server/db/client";
import { checkReadiness } from "@/server/db/health";
import { applyMigrations } from "@/server/db/migrate";
import { AppError } from "@/server/errors";
import { errorPayload } from "@/server/http/error-response";
import { requestIdFrom } from "@/server/lib/ids";
import { IpMatcher, resolveClientIp } from "@/server/lib/ip";
import { log } from "@/server/lib/logger";
import { buildOpenApiDocument } from "@/server/openapi";
import { createRestDoor, isRestPath } from "@/server/rest/door";
import { getServices } from "@/server/services";
import { purgeExpiredAuditLogs } from "@/server/services/audit/audit-writer";
import { purgeExpiredIdempotency } from "@/server/services/idempotency/idempotency";
import { ensureDemoMerchant, type DemoCredentials } from "@/server/services/merchants/demo";
import { panVerifyRequestExample } from "@/server/rest/openapi-examples";
import { serveDocsAsset } from "@/server/http/static-docs";
import { guardConnections } from "@/server/http/connection-guard";
import { pageRequestProblem } from "@/server/http/page-guard";
import { answerUnparsedRequests } from "@/server/http/unparsed-requests";
import { API_CONTENT_SECURITY_POLICY, baseSecurityHeaders, checkoutPaymentIdOf, newNonce, pageSecurityHeaders } from "@/server/http/security-headers";
import { checkoutFrameAncestors } from "@/server/services/merchants/checkout-framing";
import { createBatchRunner, createDeliveryRunner, createJobRunner } from "@/server/jobs/handlers";
import { purgeExpiredBatches } from "@/server/services/batches/batches";
import { purgeSandboxData } from "@/server/services/sandbox-retention";
import { requeueStalledRefunds } from "@/server/services/refunds/refunds";
import { purgeFinishedJobs } from "@/server/jobs/queue";
import { purgeOldEmails } from "@/server/services/email/email";
import { purgeKycData, sweepUnfinishedKyc } from "@/server/services/kyc/maintenance";

export interface StartOptions {
  dev: boolean;
  /** False runs the API doors only (no pages): an API-only instance. */
  servePages: boolean;
  seedDemo: boolean;
}

/** Header through which pages learn the client IP this server resolved (never taken from the client). */
export const CLIENT_IP_HEADER = "x-parakh-client-ip";
/** Header through which layouts learn the page's own path and query (for "sign in, then back here"). */
export const PAGE_PATH_HEADER = "x-parakh-page-path";

const RETENTION_INTERVAL_MS = 6 * 60 * 60 * 1000;
/** How often holds and OTP claims left by a crashed call are undone (they count as stale after minutes). */
const KYC_SWEEP_INTERVAL_MS = 60 * 1000;
const FINISHED_JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Content-Security-Policy", API_CONTENT_SECURITY_POLICY);
  res.setHeader("Cache-Control", "no-store");
  res.end(JSON.stringify(body));
}

/**
 * The demo merchant's banner. In development it carries the password and sandbox keys so the first
 * call is one copy away; in production it only says where they are kept, so logs never hold secrets.
 */
function printDemo(creds: DemoCredentials, appUrl: string, withSecrets: boolean, example: { pan: string; name: string }) {
  const file = "data folder, demo-credentials.json (mode 0600)";
  const lines = withSecrets
    ? [
        "",
        "  Parakh is running. Demo merchant (sandbox):",
        `    Dashboard     ${appUrl}/login`,
        `    Email         ${creds.email}`,
        `    Password      ${creds.password}`,
        `    Merchant id   ${creds.merchantId}`,
        `    Public key    ${creds.sandbox.publicKey}`,
        `    Secret key    ${creds.sandbox.secretKey}`,
        `    Signing secret ${creds.sandbox.signingSecret}`,
        `    API reference ${appUrl}/docs`,
        "",
        `  Try: curl -s ${appUrl}/v1/identity/pan/verify -H 'Authorization: Bearer ${creds.sandbox.secretKey}' \\`,
        `         -H 'Content-Type: application/json' -d '${JSON.stringify(example)}'`,
        "",
      ]
    : [
        "",
        "  Parakh is running with a demo merchant (SEED_DEMO=true):",
        `    Dashboard     ${appUrl}/login`,
        `    Email         ${creds.email}`,
        `    Merchant id   ${creds.merchantId}`,
        `    Password and sandbox keys: ${file}`,
        "",
      ];
  process.stdout.write(lines.join("\n") + "\n");
}

export async function startParakh(opts: StartOptions) {
  const config = getConfig();
  // next-auth reads these from the environment; the generated secret lives in the data folder.
  process.env.NEXTAUTH_URL ??= config.nextAuthUrl;
  process.env.NEXTAUTH_SECRET ??= config.secrets.nextAuthSecret;
  const migrated = await applyMigrations(config.databaseUrl);
  if (migrated.applied.length) log.info("migrations applied", { applied: migrated.applied });
  const services = getServices();
  services.authCache.start();
  const runners = config.jobsEnabled ? [createJobRunner(services), createDeliveryRunner(services), createBatchRunner(services)] : [];
  for (const runner of runners) runner.start();

  const restDoor = createRestDoor(services, REST_OPERATIONS);
  const openApiJson = JSON.stringify(await buildOpenApiDocument(config.appUrl));
  const trusted = new IpMatcher(config.trustedProxies);
  let ready = false;

  let nextHandler: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  let nextUpgrade: ((req: IncomingMessage, socket: import("node:stream").Duplex, head: Buffer) => Promise<void>) | undefined;
  if (opts.servePages) {
    const { default: next } = await import("next");
    // Next attaches its own 'upgrade' listener to the server of the first request it handles, and
    // leaves every upgrade it does not recognise open for good. It gets an inert emitter instead:
    // this server decides what an Upgrade request means (see below).
    const inert = new EventEmitter() as unknown as http.Server;
    const app = next({ dev: opts.dev, dir: path.resolve(process.cwd()), hostname: config.host, port: config.port, httpServer: inert });
    await app.prepare();
    nextHandler = app.getRequestHandler();
    nextUpgrade = app.getUpgradeHandler();
  }

  let inFlight = 0;
  let closing = false;
  let idle: (() => void) | undefined;

  const baseHeaders = baseSecurityHeaders(config.appUrl.startsWith("https://"));

  /** Pages get a fresh script nonce (Next reads it from the request's CSP header) and their framing rule. */
  async function handlePage(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  ) {
    const paymentId = checkoutPaymentIdOf(pathname);
    const frameAncestors = paymentId ? await checkoutFrameAncestors(services.db, paymentId).catch(() => []) : [];
    const headers = pageSecurityHeaders({ nonce: newNonce(), dev: opts.dev, frameAncestors });
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    req.headers["content-security-policy"] = headers["Content-Security-Policy"];
    await handler(req, res);
  }

  const server = http.createServer({ connectionsCheckingInterval: Math.min(1000, config.http.headersTimeoutMs) }, (req, res) => {
    inFlight++;
    res.on("close", () => {
      inFlight--;
      if (inFlight === 0) idle?.();
    });
    if (closing) res.setHeader("Connection", "close");
    for (const [k, v] of Object.entries(baseHeaders)) res.setHeader(k, v);
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const pathname = q === -1 ? url : url.slice(0, q);
    const clientIp = resolveClientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"], trusted);

    if (isRestPath(pathname)) {
      res.setHeader("Content-Security-Policy", API_CONTENT_SECURITY_POLICY);
      void restDoor.handle(req, res, pathname, clientIp);
      return;
    }
    const requestId = requestIdFrom(req.headers["x-request-id"]);
    res.setHeader("X-Request-Id", requestId);
    if (pathname === "/api/health") return sendJson(res, 200, { status: "ok" });
    if (pathname === "/api/ready") {
      void checkReadiness(services.db, ready).then((state) => {
        ready = state === "ready";
        if (ready) return sendJson(res, 200, { status: "ready" });
        const { status, body } = errorPayload(
          new AppError("SERVICE_UNAVAILABLE", state === "migrations pending" ? "Database migrations are pending." : "The database is unreachable."),
          requestId,
        );
        sendJson(res, status, body);
      });
      return;
    }
    if (pathname === "/api/openapi.json") {
      res.statusCode = 200;
      res.setHeader("Content-Type", "application/json");
      res.setHeader("Access-Control-Allow-Origin", "*");
      res.end(openApiJson);
      return;
    }
    if (pathname.startsWith("/docs/assets/") && serveDocsAsset(pathname.slice("/docs/assets/".length), res)) return;
    if (!nextHandler) {
      const { status, body } = errorPayload(new AppError("NOT_FOUND", "This instance serves the API only."), requestId);
      return sendJson(res, status, body);
    }
    const problem = pageRequestProblem(req, pathname);
    if (problem) {
      // Whatever body was announced is not read: the connection closes after the answer.
      res.setHeader("Connection", "close");
      const { status, body } = errorPayload(problem, requestId);
      return sendJson(res, status, body);
    }
    req.headers[CLIENT_IP_HEADER] = clientIp;
    // Next's own data requests carry _rsc; the page to come back to does not.
    req.headers[PAGE_PATH_HEADER] = url
      .replace(/([?&])_rsc=[^&]*&?/, "$1")
      .replace(/[?&]$/, "")
      .slice(0, 2000);
    handlePage(req, res, pathname, nextHandler).catch((err) => {
      log.error("page handler failed", { err });
      if (!res.headersSent) {
        const { status, body } = errorPayload("INTERNAL_ERROR", requestId);
        sendJson(res, status, body);
      }
    });
  });
  // Slow or silent clients are cut off: headers must arrive in time, the whole request too, and a
  // socket that stays silent (before its first request or between requests) is closed.
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
  if (nextUpgrade && opts.dev) {
    server.on("upgrade", (req, socket, head) => {
      if (!(req.url ?? "").startsWith("/_next/webpack-hmr")) return void socket.destroy();
      // The reload channel may stay quiet for long; the idle timeout is for HTTP.
      (socket as import("node:net").Socket).setTimeout?.(0);
      void nextUpgrade!(req, socket, head);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  log.info("listening", { host: config.host, port, pages: opts.servePages, dev: opts.dev });

  if (opts.seedDemo) {
    const creds = await ensureDemoMerchant(services.db, config.dataDir);
    if (creds) printDemo(creds, config.appUrl, !config.isProduction, panVerifyRequestExample());
  }

  const retention = async () => {
    try {
      const audit = await purgeExpiredAuditLogs(services.db, config.auditRetentionDays);
      const idem = await purgeExpiredIdempotency(services.db);
      // Finished jobs are only history (every payment leaves an expiry job); DEAD ones stay for inspection.
      const jobs = await purgeFinishedJobs(services.db, new Date(Date.now() - FINISHED_JOB_RETENTION_MS));
      // Reset links in old messages are long dead; the messages themselves are kept 30 days.
      const emails = await purgeOldEmails(services.db);
      const kyc = await purgeKycData(services.db);
      const batches = await purgeExpiredBatches(services.db, config.auditRetentionDays);
      // Test data is kept a month, not the audit rule's years: a sandbox merchant can store gigabytes an hour.
      const sandbox = await purgeSandboxData(services.db, config.sandboxRetentionDays);
      const sandboxRows = sandbox.batches + sandbox.verifications + sandbox.auditRecords;
      if (audit || idem || jobs || emails || kyc.results || kyc.otpRequests || batches || sandboxRows) {
        log.info("retention purge", {
          auditRecords: audit,
          idempotencyRecords: idem,
          finishedJobs: jobs,
          emails,
          kycResults: kyc.results,
          otpRequests: kyc.otpRequests,
          batches,
          sandboxBatches: sandbox.batches,
          sandboxVerifications: sandbox.verifications,
          sandboxAuditRecords: sandbox.auditRecords,
        });
      }
    } catch (err) {
      log.warn("retention purge failed", { err });
    }
  };
  const retentionTimer = setInterval(retention, RETENTION_INTERVAL_MS);
  retentionTimer.unref();
  setTimeout(retention, 10_000).unref();
  const kycSweepTimer = setInterval(async () => {
    try {
      const swept = await sweepUnfinishedKyc(services.db, services.atomicWriter);
      if (swept.holds || swept.otpRequests) log.warn("released unfinished KYC calls", swept);
      const refunds = await requeueStalledRefunds(services.db);
      if (refunds) log.warn("requeued stalled refunds", { refunds });
    } catch (err) {
      log.warn("KYC and refund sweep failed", { err });
    }
  }, KYC_SWEEP_INTERVAL_MS);
  kycSweepTimer.unref();

  async function shutdown(signal: string) {
    if (closing) return;
    closing = true;
    log.info("shutting down", { signal, inFlight });
    clearInterval(retentionTimer);
    clearInterval(kycSweepTimer);
    server.close();
    server.closeIdleConnections();
    const deadline = setTimeout(() => {
      log.warn("shutdown timeout; closing remaining connections", { inFlight });
      server.closeAllConnections();
      idle?.();
    }, config.shutdownTimeoutMs);
    if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
    clearTimeout(deadline);
    await Promise.all(runners.map((runner) => runner.stop(config.shutdownTimeoutMs)));
    await services.auditWriter.drain();
    await services.authCache.stop();
    await closeDatabase(services.db);
    log.info("stopped");
    process.exit(0);
  }
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  // When whoever reads the log goes away (a closed pipe), a failed write must not be reported by
  // writing to the same closed stream again: that loop held a core at 100 %. The server keeps serving.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});

  return { server, port };
}
