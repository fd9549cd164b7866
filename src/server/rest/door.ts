import type { IncomingMessage, ServerResponse } from "node:http";
import type { RestOperation } from "@/server/rest/operations";
import { AppError, type ErrorCode } from "@/server/errors";
import { requestIdFrom } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { afterUnreadBody, BodyError, hasUnreadBody, isJsonContentType, parseJsonObject, queryInput, readBody } from "@/server/rest/body";
import type { AuditNote, RestAuth } from "@/server/rest/context";
import { admitKey, identifyKey, restAuthOf } from "@/server/rest/credentials";
import { errorBody, type EnvelopeKind } from "@/server/rest/envelope";
import { errorResponse } from "@/server/rest/errors";
import { withIdempotency } from "@/server/rest/idempotency";
import { hasDotSegment, restKindOf } from "@/server/rest/paths";
import { matchRoute, routeTable, SINGLE_BODY_LIMIT, type RestRoute } from "@/server/rest/routes";
import type { AppServices } from "@/server/services";
import { redactedBodyText, redactString } from "@/server/services/audit/redact";

export { isRestPath, restKindOf } from "@/server/rest/paths";

/**
 * What an audit record keeps of a request. A caller without valid credentials gets a short record;
 * a refused call (4xx) an excerpt of its body; a served call its body up to the redaction cap.
 */
const AUDIT_PATH_CHARS = 1024;
const STRANGER_PATH_CHARS = 256;
const STRANGER_AGENT_CHARS = 256;
const REFUSED_BODY_BYTES = 8 * 1024;

/** Everything the door knows about one request, for its answer and its audit record. */
export interface RequestRecord {
  requestId: string;
  kind: EnvelopeKind;
  method: string;
  /** As sent, query included, redacted: it may carry anything (an Aadhaar or card number). */
  path: string;
  clientIp: string;
  userAgent: string | null;
  startedAt: number;
  rawBody: Buffer | null;
  auth: RestAuth | null;
  audit: AuditNote;
  /** A stranger's refusal past the address's limit: answered, counted, not stored. */
  unrecorded: boolean;
}

/** One answer of the door: status, extra headers and the JSON body; `code` names an error answer. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  code: ErrorCode | null;
}

function newRecord(req: IncomingMessage, pathname: string, clientIp: string): RequestRecord {
  return {
    requestId: requestIdFrom(req.headers["x-request-id"]),
    kind: restKindOf(pathname) ?? (pathname.toLowerCase().includes("v1") ? "v1" : "api"),
    // As sent: methods are case-sensitive, and `get` (which only reaches us unparsed) is not GET.
    method: req.method ?? "GET",
    path: redactString(req.url ?? pathname),
    clientIp,
    // Redacted like a body (whole, before the cut): a header may carry a card number or a secret key.
    userAgent: typeof req.headers["user-agent"] === "string" ? redactString(req.headers["user-agent"]).slice(0, 512) : null,
    startedAt: performance.now(),
    rawBody: null,
    auth: null,
    audit: { verification: null },
    unrecorded: false,
  };
}

/** Any failure as the request's answer: the envelope of its family, with the operation's field codes. */
export function errorAnswer(err: unknown, record: RequestRecord, rawInput?: unknown, route?: RestRoute): Answer {
  const e = errorResponse(err, record, rawInput, route?.rest);
  return { status: e.status, headers: e.headers, body: e.body, code: e.code };
}

/**
 * The REST door (`/v1`, public `/api`): request ids, route matching, credentials before bodies,
 * body rules, idempotency, the operation's procedure, the API's envelopes and a durable audit
 * record committed before the answer leaves. Runs outside Next.
 */
export function createRestDoor(services: AppServices, operations: RestOperation[]) {
  const routes = routeTable(operations);

  /** Commits the audit record, then sends the answer; without a record, a 503 instead (never an unrecorded result). */
  async function send(record: RequestRecord, res: ServerResponse, answer: Answer) {
    const text = JSON.stringify(answer.body);
    res.statusCode = answer.status;
    res.setHeader("Content-Type", "application/json");
    for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
    // Past its limit a stranger's refusals are counted, not stored: one record a minute says it began.
    if (record.unrecorded) return void res.end(text);
    const latencyMs = Math.round((performance.now() - record.startedAt) * 100) / 100;
    try {
      await services.auditWriter.write(auditRecord(record, answer, text, latencyMs));
    } catch {
      res.statusCode = 503;
      res.removeHeader("Idempotent-Replayed");
      return void res.end(JSON.stringify(errorBody(record.kind, record.requestId, { code: "SERVICE_UNAVAILABLE" })));
    }
    log.debug("request", {
      requestId: record.requestId,
      method: record.method,
      path: record.path,
      status: answer.status,
      latencyMs,
      merchantId: record.auth?.merchantId,
      errorCode: answer.code,
    });
    res.end(text);
  }

  /** Sends an answer given before the body was read: an unread body is dropped as it arrives, never kept. */
  function refuse(record: RequestRecord, req: IncomingMessage, res: ServerResponse, answer: Answer) {
    if (record.rawBody === null && hasUnreadBody(req)) return afterUnreadBody(req, res, SINGLE_BODY_LIMIT, () => void send(record, res, answer));
    void send(record, res, answer);
  }

  /** A refusal before any credentials were accepted: counted per address, 429 past the limit. */
  function refuseStranger(record: RequestRecord, req: IncomingMessage, res: ServerResponse, err: AppError, headers: Record<string, string> = {}) {
    const verdict = services.failedAuthLimiter.fail(record.clientIp);
    if (verdict.wait === 0) return refuse(record, req, res, withHeaders(errorAnswer(err, record), headers));
    if (verdict.firstOver) log.warn("address over its limit of refused requests", { clientIp: record.clientIp, retryAfterSeconds: verdict.wait });
    else record.unrecorded = true;
    const limited = new AppError("RATE_LIMITED", "Too many refused requests from this address; retry after the time in Retry-After.", {
      retryAfterSeconds: verdict.wait,
    });
    refuse(record, req, res, errorAnswer(limited, record));
  }

  /** With a valid key: the body, then the operation (once per Idempotency-Key), as an answer. */
  async function serve(record: RequestRecord, req: IncomingMessage, route: RestRoute, params: Record<string, string>): Promise<Answer> {
    let input: Record<string, unknown> = queryInput(req.url);
    if (record.method === "POST") {
      if (!isJsonContentType(req.headers["content-type"])) throw new AppError("UNSUPPORTED_MEDIA_TYPE");
      record.rawBody = await readBody(req, route.rest.bodyLimit ?? SINGLE_BODY_LIMIT);
      input = parseJsonObject(record.rawBody);
    }
    // Path parameters, decoded once when the route matched, are the ones validated and used.
    input = { ...input, ...params };
    const ctx = { services, auth: record.auth!, requestId: record.requestId, audit: record.audit };
    return withIdempotency(services, record, route.rest, req.headers["idempotency-key"], async () => {
      try {
        const data = await route.operation.run(ctx, input);
        return { status: route.rest.successStatus ?? 200, headers: {}, body: data, code: null };
      } catch (err) {
        return errorAnswer(err, record, input, route);
      }
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, pathname: string, clientIp: string) {
    const record = newRecord(req, pathname, clientIp);
    res.setHeader("X-Request-Id", record.requestId);
    res.setHeader("Cache-Control", "no-store");
    try {
      const shown = pathname.slice(0, 200);
      const match = hasDotSegment(pathname) ? ({ kind: "none" } as const) : matchRoute(routes, record.method, pathname);
      if (match.kind === "none") return refuseStranger(record, req, res, new AppError("NOT_FOUND", `No route ${record.method} ${shown}.`));
      if (match.kind === "wrong-method") {
        const allow = match.allow.join(", ");
        return refuseStranger(record, req, res, new AppError("METHOD_NOT_ALLOWED", `${record.method} is not allowed on ${shown}; use ${allow}.`), {
          Allow: allow,
        });
      }
      // Credentials first: a caller without a valid key gets no body read, parsed or stored.
      const scheme = match.route.rest.auth;
      let key;
      try {
        key = await identifyKey(services, scheme, req.headers);
      } catch (err) {
        if (err instanceof AppError) return refuseStranger(record, req, res, err);
        throw err;
      }
      // Known from here on, so refused calls (suspended, IP, rate limit) still show in the merchant's log.
      record.auth = restAuthOf(key, scheme);
      try {
        admitKey(services, key, scheme, clientIp);
      } catch (err) {
        if (err instanceof AppError) return refuse(record, req, res, errorAnswer(err, record));
        throw err;
      }
      await send(record, res, await serve(record, req, match.route, match.params));
    } catch (err) {
      failed(record, req, res, err);
    }
  }

  /** A body that could not be read, or a failure of the door itself. */
  function failed(record: RequestRecord, req: IncomingMessage, res: ServerResponse, err: unknown) {
    if (res.headersSent || res.writableEnded) return;
    if (err instanceof BodyError) {
      res.setHeader("Connection", "close");
      log.info("request body refused", { requestId: record.requestId, code: err.code, reason: err.message });
      return refuse(record, req, res, errorAnswer(err, record));
    }
    if (err instanceof AppError) return refuse(record, req, res, errorAnswer(err, record));
    log.error("REST door failure", { requestId: record.requestId, err });
    refuse(record, req, res, errorAnswer(new AppError("INTERNAL_ERROR"), record));
  }

  return { handle, routes };
}

function withHeaders(answer: Answer, headers: Record<string, string>): Answer {
  return { ...answer, headers: { ...answer.headers, ...headers } };
}

/** The audit record of an answered request: short for a caller without valid credentials, bodies redacted. */
function auditRecord(record: RequestRecord, answer: Answer, responseText: string, latencyMs: number) {
  const known = record.auth !== null;
  const pathChars = known ? AUDIT_PATH_CHARS : STRANGER_PATH_CHARS;
  return {
    requestId: record.requestId,
    merchantId: record.auth?.merchantId ?? null,
    apiKeyId: record.auth?.apiKeyId ?? null,
    mode: record.auth?.mode ?? null,
    method: record.method,
    path: record.path.length > pathChars ? record.path.slice(0, pathChars) : record.path,
    status: answer.status,
    latencyMs,
    clientIp: record.clientIp,
    userAgent: known || record.userAgent === null ? record.userAgent : record.userAgent.slice(0, STRANGER_AGENT_CHARS),
    requestBody: redactedBodyText(record.rawBody, answer.status >= 400 ? REFUSED_BODY_BYTES : undefined),
    responseBody: redactedBodyText(responseText),
    errorCode: answer.code,
    createdAt: new Date(),
    verification: record.audit.verification,
  };
}
