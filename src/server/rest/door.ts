import type { IncomingMessage, ServerResponse } from "node:http";
import { TRPCError, type AnyRouter } from "@trpc/server";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import { AppError, ERROR_CODES, type ErrorCode } from "@/server/errors";
import { requestIdFrom } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { lockInputTypes } from "@/server/rest/strict-input";
import { admitKey, identifyKey, restAuthOf } from "@/server/rest/credentials";
import { errorBody, type EnvelopeKind } from "@/server/rest/envelope";
import { buildRouteTable, matchRoute, SINGLE_BODY_LIMIT } from "@/server/rest/routes";
import { attachRestState, restStateOf, type RestState } from "@/server/rest/state";
import type { AppServices } from "@/server/services";
import { redactedBodyText, redactString } from "@/server/services/audit/redact";
import type { Context } from "@/server/trpc/init";

/** Requests past this are not even drained: the connection is closed after the 413. */
const DRAIN_LIMIT = 64 * 1024 * 1024;
/** How long the unread body of a refused request may keep arriving (and be dropped) before the answer. */
const LINGER_MS = 10_000;
/**
 * What an audit record keeps of a request. A caller without valid credentials gets a short record;
 * a refused call (4xx) an excerpt of its body; a served call its body up to the redaction cap.
 */
const AUDIT_PATH_CHARS = 1024;
const STRANGER_PATH_CHARS = 256;
const STRANGER_AGENT_CHARS = 256;
const REFUSED_BODY_BYTES = 8 * 1024;

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The app's own endpoints under /api (dashboard tRPC, sign-in, CSV exports, health, readiness,
 * this document), recognised only in the exact form their handlers are routed by: a variant in
 * another case, encoding or with doubled slashes or dot segments would be folded or refused by
 * Next (an HTML page, a redirect), so it is the door's to answer.
 */
function isOwnEndpoint(pathname: string): boolean {
  if (pathname === "/api/health" || pathname === "/api/ready" || pathname === "/api/openapi.json") return true;
  return /^\/api\/(?:trpc|auth|dashboard)\/[^/]/.test(pathname) && !pathname.includes("//") && !hasDotSegment(pathname);
}

/**
 * The REST family a path belongs to, judged on its normalised form (case, percent-encoding and
 * doubled slashes folded), so `/V1/…`, `/%761/…` and `//v1/…` are answered by the door in its
 * envelope instead of falling through to the pages.
 */
export function restKindOf(pathname: string): EnvelopeKind | null {
  const p = decodeSafely(pathname)
    .replace(/\/{2,}/g, "/")
    .toLowerCase();
  if (p === "/v1" || p.startsWith("/v1/")) return "v1";
  if (!p.startsWith("/api/") && p !== "/api") return null;
  return isOwnEndpoint(pathname) ? null : "api";
}

/** Paths served by the REST door: `/v1/*` and `/api/*` except the app's own endpoints. */
export function isRestPath(pathname: string): boolean {
  return restKindOf(pathname) !== null;
}

/** `.` and `..` segments, in any encoding, which URL parsers would fold into another route. */
function hasDotSegment(pathname: string): boolean {
  return pathname.split("/").some((seg) => {
    const d = decodeSafely(seg);
    return d === "." || d === "..";
  });
}

/** No operation's body nests this deep; deeper JSON only serves to exhaust the stack downstream. */
const MAX_JSON_DEPTH = 32;

function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(v as object)) stack.push([child, depth + 1]);
  }
  return false;
}

class BodyError extends Error {
  constructor(
    readonly code: ErrorCode,
    message?: string,
  ) {
    super(message);
  }
}

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const media = header.split(";", 1)[0]!.trim().toLowerCase();
  return media === "application/json";
}

function hasBody(req: IncomingMessage): boolean {
  const length = Number(req.headers["content-length"] ?? 0);
  return req.headers["transfer-encoding"] !== undefined || (Number.isFinite(length) && length > 0);
}

/**
 * Before refusing a request whose body was never read: a body up to `limit` is read and dropped
 * first, so the client, still sending, gets to read the answer (closing under a sender makes its
 * kernel reset the connection, and the answer can be lost with it). Nothing is kept. A larger body,
 * or one still arriving after LINGER_MS, is answered at once and the connection closed.
 */
function afterUnreadBody(req: IncomingMessage, res: ServerResponse, limit: number, answer: () => void) {
  const declared = Number(req.headers["content-length"]);
  let answered = false;
  const answerOnce = (close: boolean) => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    if (close) res.setHeader("Connection", "close");
    answer();
  };
  const timer = setTimeout(() => answerOnce(true), LINGER_MS).unref();
  if (Number.isFinite(declared) && declared > limit) return answerOnce(true);
  let seen = 0;
  req.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limit) answerOnce(true);
  });
  req.once("end", () => answerOnce(false));
  req.once("close", () => answerOnce(true));
  req.resume();
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
    // The client went away or sent broken framing (bad chunk sizes): its fault, not ours.
    const incomplete = () => reject(new BodyError("INVALID_JSON", "The request body ended early or was malformed."));
    req.on("aborted", incomplete);
    req.on("error", incomplete);
  });
}

/** trpc-to-openapi's own refusals (outside our procedure chain), in the registry's words. */
function codeForHandlerError(err: unknown): ErrorCode {
  const cause = err instanceof TRPCError ? err.cause : undefined;
  if (cause instanceof AppError) return cause.code;
  if (!(err instanceof TRPCError)) return "INTERNAL_ERROR";
  switch (err.code) {
    case "NOT_FOUND":
      return "NOT_FOUND";
    case "PARSE_ERROR":
      return "INVALID_JSON";
    case "PAYLOAD_TOO_LARGE":
      return "PAYLOAD_TOO_LARGE";
    case "UNSUPPORTED_MEDIA_TYPE":
      return "UNSUPPORTED_MEDIA_TYPE";
    case "BAD_REQUEST":
      return "VALIDATION_ERROR";
    default:
      return "INTERNAL_ERROR";
  }
}

/**
 * The REST door: envelopes, request ids, credentials before bodies, body rules, route errors and
 * the durable audit record around trpc-to-openapi's node:http handler. Runs outside Next.
 */
export function createRestDoor(services: AppServices, router: AnyRouter) {
  const routes = buildRouteTable(router);
  lockInputTypes(router);
  const handler = createOpenApiNodeHttpHandler({
    router,
    createContext: ({ req, res }): Context => ({ services, rest: restStateOf(req) ?? null, req, res: res as ServerResponse }),
    responseMeta: ({ ctx, errors }) => {
      const rest = (ctx as Context | undefined)?.rest;
      if (errors.length > 0) {
        // Our procedure chain turns every failure into an envelope, so an error here is the
        // adapter's own; answer it in the contract's envelope all the same.
        const state = rest ?? null;
        const code = codeForHandlerError(errors[0]);
        if (code === "INTERNAL_ERROR") log.error("REST handler failure", { requestId: state?.requestId, err: errors[0] });
        if (state) {
          state.errorCode = code;
          state.replacementBody = JSON.stringify(errorBody(state.kind, state.requestId, { code }));
        }
        return { status: ERROR_CODES[code].status, headers: {} };
      }
      return { status: rest?.status ?? 500, headers: rest?.headers ?? {} };
    },
  });

  /** Holds the response until its audit record is committed. */
  function auditThenEnd(state: RestState, res: ServerResponse) {
    const realEnd = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
    res.end = ((chunk?: unknown) => {
      if (state.replacementBody !== undefined) chunk = state.replacementBody;
      // Past its limit a stranger's refusals are counted, not stored: one record a minute says it began.
      if (state.unrecorded) return realEnd(chunk);
      const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : "";
      const latencyMs = Math.round((performance.now() - state.startedAt) * 100) / 100;
      const known = state.auth !== null;
      const pathChars = known ? AUDIT_PATH_CHARS : STRANGER_PATH_CHARS;
      services.auditWriter
        .write({
          requestId: state.requestId,
          merchantId: state.auth?.merchantId ?? null,
          apiKeyId: state.auth?.apiKeyId ?? null,
          mode: state.auth?.mode ?? null,
          method: state.method,
          path: state.path.length > pathChars ? state.path.slice(0, pathChars) : state.path,
          status: res.statusCode,
          latencyMs,
          clientIp: state.clientIp,
          userAgent: known || state.userAgent === null ? state.userAgent : state.userAgent.slice(0, STRANGER_AGENT_CHARS),
          requestBody: redactedBodyText(state.rawBody, res.statusCode >= 400 ? REFUSED_BODY_BYTES : undefined),
          responseBody: redactedBodyText(text),
          errorCode: state.errorCode,
          createdAt: new Date(),
          verification: state.verification,
        })
        .then(
          () => {
            log.debug("request", {
              requestId: state.requestId,
              method: state.method,
              path: state.path,
              status: res.statusCode,
              latencyMs,
              merchantId: state.auth?.merchantId,
              errorCode: state.errorCode,
            });
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

  function sendError(
    state: RestState,
    req: IncomingMessage,
    res: ServerResponse,
    err: AppError | ErrorCode,
    message?: string,
    headers: Record<string, string> = {},
  ) {
    const e = typeof err === "string" ? new AppError(err, message) : err;
    state.errorCode = e.code;
    res.statusCode = e.status;
    res.setHeader("Content-Type", "application/json");
    if (e.retryAfterSeconds) res.setHeader("Retry-After", String(e.retryAfterSeconds));
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    const answer = () =>
      res.end(JSON.stringify(errorBody(state.kind, state.requestId, { code: e.code, message: e.message, details: e.details, field: e.field, extra: e.extra })));
    // A body we did not read is dropped as it arrives, never kept.
    if (state.rawBody === null && hasBody(req) && !req.readableEnded && !req.destroyed) return afterUnreadBody(req, res, SINGLE_BODY_LIMIT, answer);
    answer();
  }

  async function handle(req: IncomingMessage, res: ServerResponse, pathname: string, clientIp: string) {
    // As sent: methods are case-sensitive, and `get` (which only reaches us unparsed) is not GET.
    const method = req.method ?? "GET";
    const state: RestState = {
      requestId: requestIdFrom(req.headers["x-request-id"]),
      kind: restKindOf(pathname) ?? (pathname.toLowerCase().includes("v1") ? "v1" : "api"),
      method,
      // A query string may carry anything (an Aadhaar or card number): redacted before any record or log sees it.
      path: redactString(req.url ?? pathname),
      clientIp,
      // Redacted like a body (whole, before the cut): a header may carry a card number or a secret key.
      userAgent: typeof req.headers["user-agent"] === "string" ? redactString(req.headers["user-agent"]).slice(0, 512) : null,
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
      /** A refusal before any credentials were accepted: counted per address, 429 past the limit. */
      const refuse = (err: AppError, headers: Record<string, string> = {}) => {
        const verdict = services.failedAuthLimiter.fail(clientIp);
        if (verdict.wait === 0) return sendError(state, req, res, err, undefined, headers);
        if (verdict.firstOver) log.warn("address over its limit of refused requests", { clientIp, retryAfterSeconds: verdict.wait });
        else state.unrecorded = true;
        return sendError(
          state,
          req,
          res,
          new AppError("RATE_LIMITED", "Too many refused requests from this address; retry after the time in Retry-After.", {
            retryAfterSeconds: verdict.wait,
          }),
        );
      };

      const shown = pathname.slice(0, 200);
      const match = hasDotSegment(pathname) ? ({ kind: "none" } as const) : matchRoute(routes, method, pathname);
      if (match.kind === "none") return refuse(new AppError("NOT_FOUND", `No route ${method} ${shown}.`));
      if (match.kind === "wrong-method") {
        const allow = match.allow.join(", ");
        return refuse(new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${shown}; use ${allow}.`), { Allow: allow });
      }
      const scheme = match.route.rest.auth;
      state.pathParams = match.params;
      // The adapter behind matches the path again, with its own rules (one trailing slash, `\` read as
      // `/`): it gets the route's own form, so it finds the same route and never answers in its own shape.
      const q = req.url?.indexOf("?") ?? -1;
      req.url = q === -1 ? match.canonicalPath : match.canonicalPath + req.url!.slice(q);

      // Credentials first: a caller without a valid key gets no body read, parsed or stored.
      let key;
      try {
        key = await identifyKey(services, scheme, req.headers);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return refuse(err);
      }
      // Known from here on, so refused calls (suspended, IP, rate limit) still show in the merchant's log.
      state.auth = restAuthOf(key);
      try {
        admitKey(services, key, scheme, clientIp);
      } catch (err) {
        if (err instanceof AppError) return sendError(state, req, res, err);
        throw err;
      }

      if (method === "POST" || method === "PUT" || method === "PATCH") {
        if (!isJsonContentType(req.headers["content-type"])) return sendError(state, req, res, "UNSUPPORTED_MEDIA_TYPE");
        // Media types are case-insensitive; the adapter behind compares them as written.
        req.headers["content-type"] = "application/json";
        const raw = await readBody(req, match.route.rest.bodyLimit ?? SINGLE_BODY_LIMIT);
        state.rawBody = raw;
        let body: unknown;
        try {
          body = raw.length === 0 ? undefined : JSON.parse(raw.toString("utf8"));
        } catch {
          return sendError(state, req, res, "INVALID_JSON");
        }
        if (body === null || typeof body !== "object" || Array.isArray(body)) {
          return sendError(state, req, res, "VALIDATION_ERROR", "The request body must be a JSON object.");
        }
        if (nestedDeeperThan(body, MAX_JSON_DEPTH)) {
          return sendError(state, req, res, "VALIDATION_ERROR", `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
        }
        (req as IncomingMessage & { body?: unknown }).body = body;
      }
      attachRestState(req, state);
      await handler(req, res);
    } catch (err) {
      if (err instanceof BodyError) {
        res.setHeader("Connection", "close");
        log.info("request body refused", { requestId: state.requestId, code: err.code, reason: err.message });
        if (res.headersSent || res.writableEnded) return;
        return sendError(state, req, res, err.code, err.message);
      }
      log.error("REST door failure", { requestId: state.requestId, err });
      if (!res.headersSent) sendError(state, req, res, "INTERNAL_ERROR");
    }
  }

  return { handle, routes };
}
