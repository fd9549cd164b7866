// What the one HTTP server does with a request: the REST doors, the server's own routes (health,
// readiness, the OpenAPI document, docs assets), and everything else handed to Next as a page.
import type { IncomingMessage, ServerResponse } from "node:http";
import { REST_OPERATIONS } from "@/server/api/rest-router";
import { instanceId } from "@/server/cluster/control";
import { checkReadiness } from "@/server/db/health";
import { AppError } from "@/server/errors";
import { errorPayload } from "@/server/http/error-response";
import { pageRequestProblem } from "@/server/http/page-guard";
import { isProcessorWebhookPath, serveProcessorWebhook } from "@/server/http/processor-webhook-door";
import { API_CONTENT_SECURITY_POLICY, baseSecurityHeaders, checkoutPaymentIdOf, newNonce, pageSecurityHeaders } from "@/server/http/security-headers";
import { serveDocsAsset } from "@/server/http/static-docs";
import { requestIdFrom } from "@/server/rest/request-id";
import { IpMatcher, resolveClientIp } from "@/server/lib/ip";
import { log } from "@/server/lib/logger";
import { watchServices } from "@/server/metrics/collectors";
import { createMetricsEndpoint, METRICS_PATH } from "@/server/http/metrics-endpoint";
import { pageSeries, timeRequest } from "@/server/metrics/http";
import { buildOpenApiDocument } from "@/server/openapi";
import { vendorCheckoutForPage } from "@/server/providers/payments/cashfree-checkout";
import { createRestDoor, isRestPath } from "@/server/http/rest-door";
import type { AppServices } from "@/server/services";
import { checkoutPageFacts } from "@/server/services/merchants/checkout-framing";

/** Header through which pages learn the client IP this server resolved (never taken from the client). */
export const CLIENT_IP_HEADER = "x-parakh-client-ip";
/** Header through which layouts learn the page's own path and query (for "sign in, then back here"). */
export const PAGE_PATH_HEADER = "x-parakh-page-path";

export type PageHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Requests being answered, so a shutdown can wait for them. */
export class InFlightRequests {
  count = 0;
  /** Set at shutdown: answers ask their clients to close the connection. */
  closing = false;
  private idle: (() => void) | undefined;
  private readonly open = new Set<ServerResponse>();

  track(res: ServerResponse): void {
    this.count++;
    this.open.add(res);
    res.on("close", () => {
      this.count--;
      this.open.delete(res);
      if (this.count === 0) this.idle?.();
    });
  }

  /** Shutdown begins: every answer from now on, those under way included, asks its client to close the connection. */
  close(): void {
    this.closing = true;
    for (const res of this.open) if (!res.headersSent) res.setHeader("Connection", "close");
  }

  /** Resolves once no request is in flight, or when `giveUp()` is called. */
  drained(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => (this.idle = resolve));
  }

  giveUp(): void {
    this.idle?.();
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Content-Security-Policy", API_CONTENT_SECURITY_POLICY);
  res.setHeader("Cache-Control", "no-store");
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, problem: AppError | "INTERNAL_ERROR", requestId: string) {
  const { status, body } = errorPayload(problem, requestId);
  sendJson(res, status, body);
}

/** The server's own routes; false when the path is none of them. */
function serveOwnRoute(res: ServerResponse, pathname: string, requestId: string, services: AppServices, openApiJson: string, readiness: { ready: boolean }) {
  if (pathname === "/api/health") {
    sendJson(res, 200, { status: "ok" });
    return true;
  }
  if (pathname === "/api/ready") {
    void checkReadiness(services.db, readiness.ready).then((state) => {
      readiness.ready = state === "ready";
      if (readiness.ready) return sendJson(res, 200, { status: "ready", instance: instanceId() });
      const message = state === "migrations pending" ? "Database migrations are pending." : "The database is unreachable.";
      sendError(res, new AppError("SERVICE_UNAVAILABLE", message), requestId);
    });
    return true;
  }
  if (pathname === "/api/openapi.json") {
    res.statusCode = 200;
    res.setHeader("Content-Type", "application/json");
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.end(openApiJson);
    return true;
  }
  return pathname.startsWith("/docs/assets/") && serveDocsAsset(pathname.slice("/docs/assets/".length), res);
}

/** Pages get a fresh script nonce (Next reads it from the request's CSP header) and their framing rule. */
async function handlePage(req: IncomingMessage, res: ServerResponse, pathname: string, dev: boolean, services: AppServices, handler: PageHandler) {
  const paymentId = checkoutPaymentIdOf(pathname);
  const facts = paymentId ? await checkoutPageFacts(services.db, paymentId).catch(() => ({ frameAncestors: [], live: false })) : null;
  const vendorCheckout = vendorCheckoutForPage(facts, services.config.livePayments);
  const headers = pageSecurityHeaders({ nonce: newNonce(), dev, frameAncestors: facts?.frameAncestors ?? [], vendorCheckout });
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  req.headers["content-security-policy"] = headers["Content-Security-Policy"];
  await handler(req, res);
}

/** A page request: refused when malformed, else handed to Next with the client IP and the page's own path. */
function servePage(req: IncomingMessage, res: ServerResponse, url: string, pathname: string, clientIp: string, requestId: string, page: PageOptions) {
  const problem = pageRequestProblem(req, pathname);
  if (problem) {
    // Whatever body was announced is not read: the connection closes after the answer.
    res.setHeader("Connection", "close");
    return sendError(res, problem, requestId);
  }
  // In development Next compiles a page on its first request, which can take longer than the idle
  // timeout with nothing written yet; that socket must not be cut. Node puts the keep-alive timeout
  // back once the answer is sent. Production keeps the idle timeout.
  if (page.dev) req.socket.setTimeout(0);
  req.headers[CLIENT_IP_HEADER] = clientIp;
  // Next's own data requests carry _rsc; the page to come back to does not.
  req.headers[PAGE_PATH_HEADER] = url
    .replace(/([?&])_rsc=[^&]*&?/, "$1")
    .replace(/[?&]$/, "")
    .slice(0, 2000);
  handlePage(req, res, pathname, page.dev, page.services, page.handler).catch((err) => {
    log.error("page handler failed", { err });
    if (!res.headersSent) sendError(res, "INTERNAL_ERROR", requestId);
  });
}

interface PageOptions {
  dev: boolean;
  services: AppServices;
  handler: PageHandler;
}

export interface ListenerOptions {
  services: AppServices;
  dev: boolean;
  /** Next's request handler; none on an API-only instance. */
  pages: PageHandler | undefined;
  inFlight: InFlightRequests;
}

/** The `request` listener of the server. */
export async function createRequestListener({ services, dev, pages, inFlight }: ListenerOptions) {
  const { config } = services;
  const restDoor = createRestDoor(services, REST_OPERATIONS);
  const openApiJson = JSON.stringify(await buildOpenApiDocument(config.appUrl));
  const trusted = new IpMatcher(config.trustedProxies);
  const baseHeaders = Object.entries(baseSecurityHeaders(config.appUrl.startsWith("https://")));
  const readiness = { ready: false };
  const page = pages ? { dev, services, handler: pages } : undefined;
  // Requests are timed only when someone can read the figures (METRICS_TOKEN set).
  const metrics = createMetricsEndpoint(services);
  if (metrics) watchServices(services);

  return (req: IncomingMessage, res: ServerResponse) => {
    inFlight.track(res);
    if (inFlight.closing) res.setHeader("Connection", "close");
    for (const [k, v] of baseHeaders) res.setHeader(k, v);
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const pathname = q === -1 ? url : url.slice(0, q);
    const clientIp = resolveClientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"], trusted);
    const processorWebhook = isProcessorWebhookPath(pathname);
    const rest = !processorWebhook && isRestPath(pathname);
    // The REST door names its route once matched; everything else is named by its path now.
    if (metrics) timeRequest(res, rest ? null : pageSeries(req.method, pathname));

    if (processorWebhook) {
      res.setHeader("Content-Security-Policy", API_CONTENT_SECURITY_POLICY);
      const requestId = requestIdFrom(req.headers["x-request-id"]);
      res.setHeader("X-Request-Id", requestId);
      return serveProcessorWebhook(req, res, services, requestId);
    }
    if (rest) {
      res.setHeader("Content-Security-Policy", API_CONTENT_SECURITY_POLICY);
      void restDoor.handle(req, res, pathname, clientIp);
      return;
    }
    const requestId = requestIdFrom(req.headers["x-request-id"]);
    res.setHeader("X-Request-Id", requestId);
    if (metrics && pathname === METRICS_PATH) return metrics(req, res, clientIp, requestId);
    if (serveOwnRoute(res, pathname, requestId, services, openApiJson, readiness)) return;
    if (!page) return sendError(res, new AppError("NOT_FOUND", "This instance serves the API only."), requestId);
    servePage(req, res, url, pathname, clientIp, requestId, page);
  };
}
