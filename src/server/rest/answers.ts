import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "@/server/errors";
import { log } from "@/server/lib/logger";
import { afterUnreadBody, hasUnreadBody } from "@/server/rest/body";
import { errorResponse } from "@/server/rest/errors";
import { auditRecord, type Answer, type RequestRecord } from "@/server/rest/request-record";
import { SINGLE_BODY_LIMIT, type RestRoute } from "@/server/rest/routes";
import type { AppServices } from "@/server/services";

/** Any failure as the request's answer: the envelope of its family, with the operation's field codes. */
export function errorAnswer(err: unknown, record: RequestRecord, rawInput?: unknown, route?: RestRoute): Answer {
  const e = errorResponse(err, record, rawInput, route?.rest);
  return { status: e.status, headers: e.headers, body: e.body, code: e.code };
}

export function withHeaders(answer: Answer, headers: Record<string, string>): Answer {
  return { ...answer, headers: { ...answer.headers, ...headers } };
}

/** Commits the audit record, then sends the answer; without a record, a 503 instead (never an unrecorded result). */
export async function send(services: AppServices, record: RequestRecord, res: ServerResponse, answer: Answer) {
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
    const unrecorded = errorResponse(new AppError("SERVICE_UNAVAILABLE"), record);
    res.statusCode = unrecorded.status;
    res.removeHeader("Idempotent-Replayed");
    return void res.end(JSON.stringify(unrecorded.body));
  }
  if (log.enabled("debug")) {
    log.debug("request", {
      requestId: record.requestId,
      method: record.method,
      path: record.path,
      status: answer.status,
      latencyMs,
      merchantId: record.auth?.merchantId,
      errorCode: answer.code,
    });
  }
  res.end(text);
}

/** Sends an answer given before the body was read: an unread body (up to `drainLimit`) is dropped as it arrives, never kept. */
export function refuse(
  services: AppServices,
  record: RequestRecord,
  req: IncomingMessage,
  res: ServerResponse,
  answer: Answer,
  drainLimit = SINGLE_BODY_LIMIT,
) {
  if (record.rawBody === null && hasUnreadBody(req)) return afterUnreadBody(req, res, drainLimit, () => void send(services, record, res, answer));
  void send(services, record, res, answer);
}

/** A refusal before any credentials were accepted: counted per address, 429 past the limit. */
export async function refuseStranger(
  services: AppServices,
  record: RequestRecord,
  req: IncomingMessage,
  res: ServerResponse,
  err: AppError,
  headers: Record<string, string> = {},
) {
  const verdict = await services.failedAuthLimiter.fail(record.clientIp);
  if (verdict.wait === 0) return refuse(services, record, req, res, withHeaders(errorAnswer(err, record), headers));
  if (verdict.firstOver) log.warn("address over its limit of refused requests", { clientIp: record.clientIp, retryAfterSeconds: verdict.wait });
  else record.unrecorded = true;
  const limited = new AppError("RATE_LIMITED", "Too many refused requests from this address; retry after the time in Retry-After.", {
    retryAfterSeconds: verdict.wait,
  });
  refuse(services, record, req, res, errorAnswer(limited, record));
}
