import type { IncomingMessage, ServerResponse } from "node:http";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import type { AnyRouter } from "@trpc/server";
import { ERROR_CODES, type ErrorCode } from "@/server/errors";
import { requestIdFrom } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { errorBody } from "@/server/rest/envelope";
import { buildRouteTable, matchRoute, SINGLE_BODY_LIMIT } from "@/server/rest/routes";
import { attachRestState, restStateOf, type RestState } from "@/server/rest/state";
import type { AppServices } from "@/server/services";
import { redactedBodyText } from "@/server/services/audit/redact";
import type { Context } from "@/server/trpc/init";

/** Requests past this are not even drained: the connection is closed after the 413. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/** Paths served by the REST door (B1): `/v1/*` and `/api/*` except the app's own endpoints. */
export function isRestPath(pathname: string): boolean {
  if (pathname === "/v1" || pathname.startsWith("/v1/")) return true;
  if (!pathname.startsWith("/api/") && pathname !== "/api") return false;
  return !(
    pathname.startsWith("/api/trpc") ||
    pathname.startsWith("/api/auth") ||
    pathname.startsWith("/api/dashboard/") ||
    pathname === "/api/health" ||
    pathname === "/api/ready" ||
    pathname === "/api/openapi.json"
  );
}

class BodyError extends Error {
  constructor(readonly code: ErrorCode, message?: string) {
    super(message);
  }
}

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const media = header.split(";", 1)[0]!.trim().toLowerCase();
  return media === "application/json";
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.reject(new BodyError("PAYLOAD_TOO_LARGE", `The request body must be at most ${limit} bytes.`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        if (size > DRAIN_LIMIT) req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () =>
      tooLarge
        ? reject(new BodyError("PAYLOAD_TOO_LARGE", `The request body must be at most ${limit} bytes.`))
        : resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)),
    );
    req.on("error", reject);
  });
}

/**
 * The REST door: envelopes, request ids, body rules, route errors and the durable audit record
 * around trpc-to-openapi's node:http handler. Runs outside Next's request pipeline.
 */
export function createRestDoor(services: AppServices, router: AnyRouter) {
  const routes = buildRouteTable(router);
  const handler = createOpenApiNodeHttpHandler({
    router,
    createContext: ({ req, res }): Context => ({ services, rest: restStateOf(req) ?? null, req, res: res as ServerResponse }),
    responseMeta: ({ ctx }) => {
      const rest = (ctx as Context | undefined)?.rest;
      return { status: rest?.status ?? 500, headers: rest?.headers ?? {} };
    },
  });

  /** Holds the response until its audit record is committed (B9). */
  function auditThenEnd(state: RestState, res: ServerResponse) {
    const realEnd = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
    res.end = ((chunk?: unknown) => {
      const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : "";
      const latencyMs = Math.round((performance.now() - state.startedAt) * 100) / 100;
      services.auditWriter
        .write({
          requestId: state.requestId,
          merchantId: state.auth?.merchantId ?? null,
          apiKeyId: state.auth?.apiKeyId ?? null,
          mode: state.auth?.mode ?? null,
          method: state.method,
          path: state.path,
          status: res.statusCode,
          latencyMs,
          clientIp: state.clientIp,
          userAgent: state.userAgent,
          requestBody: redactedBodyText(state.rawBody),
          responseBody: redactedBodyText(text),
          errorCode: state.errorCode,
          createdAt: new Date(),
          verification: state.verification,
        })
        .then(
          () => {
            log.debug("request", { requestId: state.requestId, method: state.method, path: state.path, status: res.statusCode, latencyMs, merchantId: state.auth?.merchantId, errorCode: state.errorCode });
            realEnd(chunk);
          },
          () => {
            // Never hand out a result that has no audit record.
            if (!res.headersSent) {
              res.statusCode = 503;
              res.removeHeader("Idempotent-Replayed");
            }
            realEnd(JSON.stringify(errorBody(state.kind, state.requestId, { code: "SERVICE_UNAVAILABLE" })));
          },
        );
      return res;
    }) as typeof res.end;
  }

  function sendError(state: RestState, res: ServerResponse, code: ErrorCode, message?: string, headers: Record<string, string> = {}) {
    state.errorCode = code;
    res.statusCode = ERROR_CODES[code].status;
    res.setHeader("Content-Type", "application/json");
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.end(JSON.stringify(errorBody(state.kind, state.requestId, { code, message })));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, pathname: string, clientIp: string) {
    const method = (req.method ?? "GET").toUpperCase();
    const state: RestState = {
      requestId: requestIdFrom(req.headers["x-request-id"]),
      kind: pathname.startsWith("/v1") ? "v1" : "api",
      method,
      path: req.url ?? pathname,
      clientIp,
      userAgent: typeof req.headers["user-agent"] === "string" ? req.headers["user-agent"].slice(0, 512) : null,
      startedAt: performance.now(),
      rawBody: null,
      status: 200,
      headers: {},
      errorCode: null,
      auth: null,
      verification: null,
      replayed: false,
    };
    res.setHeader("X-Request-Id", state.requestId);
    res.setHeader("Cache-Control", "no-store");
    auditThenEnd(state, res);

    try {
      const match = matchRoute(routes, method, pathname);
      if (match.kind === "none") {
        req.resume();
        return sendError(state, res, "NOT_FOUND", `No route ${method} ${pathname}.`);
      }
      if (match.kind === "wrong-method") {
        req.resume();
        return sendError(state, res, "METHOD_NOT_ALLOWED", `${method} is not allowed on ${pathname}; use ${match.allow.join(", ")}.`, { Allow: match.allow.join(", ") });
      }
      if (method === "POST" || method === "PUT" || method === "PATCH") {
        if (!isJsonContentType(req.headers["content-type"])) {
          req.resume();
          return sendError(state, res, "UNSUPPORTED_MEDIA_TYPE");
        }
        const raw = await readBody(req, match.route.rest.bodyLimit ?? SINGLE_BODY_LIMIT);
        state.rawBody = raw;
        let body: unknown;
        try {
          body = raw.length === 0 ? undefined : JSON.parse(raw.toString("utf8"));
        } catch {
          return sendError(state, res, "INVALID_JSON");
        }
        if (body === null || typeof body !== "object" || Array.isArray(body)) {
          return sendError(state, res, "VALIDATION_ERROR", "The request body must be a JSON object.");
        }
        (req as IncomingMessage & { body?: unknown }).body = body;
      }
      attachRestState(req, state);
      await handler(req, res);
    } catch (err) {
      if (err instanceof BodyError) {
        res.setHeader("Connection", "close");
        return sendError(state, res, err.code, err.message);
      }
      log.error("REST door failure", { requestId: state.requestId, err });
      if (!res.headersSent) sendError(state, res, "INTERNAL_ERROR");
    }
  }

  return { handle, routes };
}
