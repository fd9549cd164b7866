/**
 * The payment processor's webhook door, `POST /api/providers/cashfree/webhook`, outside the REST
 * door (no merchant credentials: the vendor's signature is the credential). The raw body is read up
 * to a cap and its signature checked on those exact bytes before anything parses it; a bad, missing
 * or stale signature is answered 401 with nothing recorded. An accepted webhook is answered 200 once
 * its record and its job have committed, so the vendor retries anything Parakh did not keep.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "@/server/errors";
import { errorPayload } from "@/server/http/error-response";
import { log } from "@/server/lib/logger";
import { BodyError, readBody } from "@/server/rest/body";
import { CASHFREE_WEBHOOK_PATH } from "@/server/providers/payments/cashfree-pg";
import { verifyCashfreeWebhook } from "@/server/providers/payments/cashfree-webhook";
import type { AppServices } from "@/server/services";
import { recordCashfreeWebhook } from "@/server/services/payments/processor-webhooks";

/** The vendor's webhooks are a few KiB; anything past this is not one of them. */
export const PROCESSOR_WEBHOOK_MAX_BYTES = 64 * 1024;

export function isProcessorWebhookPath(pathname: string): boolean {
  return pathname === CASHFREE_WEBHOOK_PATH;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Cache-Control", "no-store");
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, err: AppError, requestId: string, headers: Record<string, string> = {}) {
  const answer = errorPayload(err, requestId);
  send(res, answer.status, answer.body, { ...answer.headers, ...headers });
}

export async function handleProcessorWebhook(req: IncomingMessage, res: ServerResponse, services: AppServices, requestId: string): Promise<void> {
  const live = services.config.livePayments;
  if (live.provider !== "cashfree") return sendError(res, new AppError("NOT_FOUND"), requestId);
  if (req.method !== "POST") return sendError(res, new AppError("METHOD_NOT_ALLOWED"), requestId, { Allow: "POST" });
  let rawBody: Buffer;
  try {
    rawBody = await readBody(req, PROCESSOR_WEBHOOK_MAX_BYTES);
  } catch (err) {
    if (!(err instanceof BodyError)) throw err;
    res.setHeader("Connection", "close");
    return sendError(res, err, requestId);
  }
  const verdict = verifyCashfreeWebhook(rawBody, req.headers, live.cashfree.clientSecret);
  if (!verdict.ok) {
    log.warn("processor webhook refused", { reason: verdict.reason, requestId });
    return sendError(res, new AppError("UNAUTHORIZED", "The webhook signature is missing, wrong or outside its time window."), requestId);
  }
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString("utf8"));
  } catch {
    return sendError(res, new AppError("INVALID_JSON"), requestId);
  }
  const recorded = await recordCashfreeWebhook(services.db, rawBody, body);
  log.info("processor webhook recorded", { webhookId: recorded.webhookId, duplicate: recorded.duplicate, requestId });
  send(res, 200, { success: true, data: { received: true } });
}

/** Runs the door, answering 500 (the vendor retries) when recording fails. */
export function serveProcessorWebhook(req: IncomingMessage, res: ServerResponse, services: AppServices, requestId: string): void {
  handleProcessorWebhook(req, res, services, requestId).catch((err) => {
    log.error("processor webhook failed", { err, requestId });
    if (!res.headersSent) sendError(res, new AppError("INTERNAL_ERROR"), requestId);
  });
}
