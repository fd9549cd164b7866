/**
 * GET /metrics: the Prometheus scrape, answered only to `Authorization: Bearer <METRICS_TOKEN>`.
 * Without the setting there is no such endpoint. A refusal costs one SHA-256 and a constant-time
 * comparison of two digests (the token's length is not learnt from it either), and counts against
 * the address like any refused credentials: past AUTH_FAILURES_PER_MINUTE it is 429 until the
 * window ends.
 */
import crypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "@/server/errors";
import { errorPayload } from "@/server/http/error-response";
import { log } from "@/server/lib/logger";
import { scrapeText } from "@/server/metrics/cluster";
import { processMetrics } from "@/server/metrics/registry";
import { afterUnreadBody, hasUnreadBody } from "@/server/rest/body";
import type { AppServices } from "@/server/services";

export const METRICS_PATH = "/metrics";
/** A header longer than any valid one is refused without hashing it. */
const LONGEST_HEADER = 1024;
/** What a scrape request may carry: it needs no body, and a large one closes the connection. */
const IGNORED_BODY_BYTES = 8 * 1024;

const digest = (text: string) => crypto.createHash("sha256").update(text).digest();

export type MetricsEndpoint = (req: IncomingMessage, res: ServerResponse, clientIp: string, requestId: string) => void;

function sendError(res: ServerResponse, err: AppError, requestId: string, extra: Record<string, string> = {}) {
  const { status, body, headers } = errorPayload(err, requestId);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Cache-Control", "no-store");
  for (const [k, v] of Object.entries({ ...headers, ...extra })) res.setHeader(k, v);
  res.end(JSON.stringify(body));
}

/** The endpoint, or null when METRICS_TOKEN is not set (the path is then unknown like any other). */
export function createMetricsEndpoint(services: AppServices): MetricsEndpoint | null {
  const token = services.config.metricsToken;
  if (!token) return null;
  const expected = digest(token);
  const { registry } = processMetrics();

  // The scheme as the API reads it: any letter case, any spacing before the token.
  const authorized = (header: string | undefined) => {
    if (typeof header !== "string" || header.length > LONGEST_HEADER) return false;
    const given = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    return given !== undefined && crypto.timingSafeEqual(digest(given), expected);
  };

  // The refusal count may live in the cluster's primary: then it is a message away.
  async function answer(req: IncomingMessage, res: ServerResponse, clientIp: string, requestId: string) {
    if (!authorized(req.headers.authorization)) {
      const verdict = await services.failedAuthLimiter.fail(clientIp);
      if (verdict.wait > 0) {
        const limited = new AppError("RATE_LIMITED", "Too many refused requests from this address; retry after the time in Retry-After.", {
          retryAfterSeconds: verdict.wait,
        });
        return sendError(res, limited, requestId);
      }
      return sendError(res, new AppError("UNAUTHORIZED", "A valid metrics token is required."), requestId, { "WWW-Authenticate": 'Bearer realm="metrics"' });
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      return sendError(res, new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${METRICS_PATH}; use GET.`), requestId, { Allow: "GET, HEAD" });
    }
    scrapeText(registry).then(
      (text) => {
        res.statusCode = 200;
        res.setHeader("Content-Type", registry.contentType);
        res.setHeader("Cache-Control", "no-store");
        res.end(text);
      },
      (err) => {
        log.error("metrics scrape failed", { err });
        if (!res.headersSent) sendError(res, new AppError("INTERNAL_ERROR"), requestId);
      },
    );
  }

  const answerOrFail = (req: IncomingMessage, res: ServerResponse, clientIp: string, requestId: string) =>
    answer(req, res, clientIp, requestId).catch((err: unknown) => {
      log.error("metrics request failed", { err });
      if (!res.headersSent) sendError(res, new AppError("INTERNAL_ERROR"), requestId);
    });
  return (req, res, clientIp, requestId) => {
    if (hasUnreadBody(req)) return afterUnreadBody(req, res, IGNORED_BODY_BYTES, () => void answerOrFail(req, res, clientIp, requestId));
    void answerOrFail(req, res, clientIp, requestId);
  };
}
