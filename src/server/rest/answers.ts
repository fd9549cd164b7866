import type { IncomingMessage, ServerResponse } from "node:http";
import { SINGLE_BODY_MAX_BYTES } from "@/lib/limits";
import { AppError } from "@/server/errors";
import { log } from "@/server/lib/logger";
import { afterUnreadBody, hasUnreadBody } from "@/server/rest/body";
import { errorResponse } from "@/server/rest/errors";
import { auditRecord, type Answer, type RequestRecord } from "@/server/rest/request-record";
import type { RestRoute } from "@/server/rest/routes";
import type { AppServices } from "@/server/services";
import { reverseKycCharge } from "@/server/services/kyc/charge";

/** Any failure as the request's answer: the envelope of its family, with the operation's field codes. */
export function errorAnswer(err: unknown, record: RequestRecord, rawInput?: unknown, route?: RestRoute): Answer {
  const e = errorResponse(err, record, rawInput, route?.rest);
  return { status: e.status, headers: e.headers, body: e.body, code: e.code };
}

export function withHeaders(answer: Answer, headers: Record<string, string>): Answer {
  return { ...answer, headers: { ...answer.headers, ...headers } };
}

/**
 * Commits the answer's audit record; the answer it gives is the one to send. Without a record the
 * answer is never sent: a 503 goes instead, and a KYC charge the answer carried is given back (the
 * merchant never saw it, and a retry runs again).
 */
export async function recordAnswer(services: AppServices, record: RequestRecord, answer: Answer): Promise<Answer> {
  const text = answer.text ?? JSON.stringify(answer.body);
  const latencyMs = Math.round((performance.now() - record.startedAt) * 100) / 100;
  record.recorded = true;
  try {
    await services.auditWriter.write(auditRecord(record, answer, text, latencyMs));
    return { ...answer, text };
  } catch {
    const charged = record.audit.kycTransactionId;
    if (charged && record.auth) {
      await reverseKycCharge(services.db, record.auth.merchantId, record.auth.mode, charged).catch((err: unknown) =>
        log.error("KYC charge of an unrecorded answer could not be given back", { requestId: record.requestId, kycTransactionId: charged, err }),
      );
    }
    const unrecorded = errorResponse(new AppError("SERVICE_UNAVAILABLE"), record);
    return { status: unrecorded.status, headers: unrecorded.headers, body: unrecorded.body, code: unrecorded.code };
  }
}

/** Sends the answer once its audit record is committed (a stranger's past the address's limit is only counted). */
export async function send(services: AppServices, record: RequestRecord, res: ServerResponse, answer: Answer) {
  const sent = record.unrecorded || record.recorded ? answer : await recordAnswer(services, record, answer);
  res.statusCode = sent.status;
  res.setHeader("Content-Type", "application/json");
  for (const [k, v] of Object.entries(sent.headers)) res.setHeader(k, v);
  if (log.enabled("debug")) {
    log.debug("request", {
      requestId: record.requestId,
      method: record.method,
      path: record.path,
      status: sent.status,
      latencyMs: Math.round((performance.now() - record.startedAt) * 100) / 100,
      merchantId: record.auth?.merchantId,
      errorCode: sent.code,
    });
  }
  res.end(sent.text ?? JSON.stringify(sent.body));
}

/** Sends an answer given before the body was read: an unread body (up to `drainLimit`) is dropped as it arrives, never kept. */
export function refuse(
  services: AppServices,
  record: RequestRecord,
  req: IncomingMessage,
  res: ServerResponse,
  answer: Answer,
  drainLimit = SINGLE_BODY_MAX_BYTES,
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
