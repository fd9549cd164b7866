import { randomUUID } from "node:crypto";
import { ConnectionError, ParakhError, TimeoutError, errorFromAnswer } from "./errors.js";
import type { AuthScheme, OperationSpec } from "./operations.js";
import { isRetryableAnswer, parseRetryAfter, retryDelayMs } from "./retry.js";
import { VERSION } from "./version.js";

/** What every answer carries beside its data. */
export interface ResponseMeta {
  /** `X-Request-Id`: quote it to support; the same id is in the merchant's request log. */
  requestId: string | null;
  /** The HTTP status of the answer the data came from. */
  status: number;
  /** True when the server replayed the stored answer of an earlier request with this `Idempotency-Key`. */
  idempotentReplayed: boolean;
  /** The `Idempotency-Key` every try of this call carried (POST only). */
  idempotencyKey: string | null;
  /** How many requests this call took (1 without retries). */
  attempts: number;
  /** `/v1` envelopes' `timestamp`; KYC envelopes' `message`. */
  timestamp?: string;
  message?: string;
  /** The answer's headers, names lower case. */
  headers: Record<string, string>;
}

/** Per-call options. */
export interface RequestOptions {
  /** Your own `Idempotency-Key` for a POST (1–255 characters); by default one is made per call and reused on its retries. */
  idempotencyKey?: string;
  /** An `X-Request-Id` to send (up to 64 of `A-Z a-z 0-9 _ -`); the server echoes it. */
  requestId?: string;
  timeoutMs?: number;
  maxRetries?: number;
}

export interface Settings {
  baseUrl: string;
  merchantId?: string;
  publicKey?: string;
  secretKey: string;
  timeoutMs: number;
  maxRetries: number;
  maxRetryAfterMs: number;
}

export interface Call {
  spec: OperationSpec;
  pathParams?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: object;
}

/** The URL of a call: path parameters percent-encoded, undefined query values left out. */
export function callUrl(baseUrl: string, call: Call): string {
  const path = call.spec.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = call.pathParams?.[name];
    if (typeof value !== "string" || value === "") throw new TypeError(`${name} must be a non-empty string`);
    return encodeURIComponent(value);
  });
  const url = new URL(baseUrl.replace(/\/+$/, "") + path);
  for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

function need(settings: Settings, key: "merchantId" | "publicKey", auth: AuthScheme): string {
  const value = settings[key];
  if (!value) throw new TypeError(`${key} is needed for ${auth === "kyc" ? "KYC" : "payments"} calls: pass it to new Parakh({ ${key} })`);
  return value;
}

/** The credentials an operation's scheme sends (contract B2). */
export function authHeaders(settings: Settings, auth: AuthScheme): Record<string, string> {
  if (auth === "bearer") return { Authorization: `Bearer ${settings.secretKey}` };
  if (auth === "merchant") {
    return { "x-merchant-id": need(settings, "merchantId", auth), "x-api-key": need(settings, "publicKey", auth), "x-secret-key": settings.secretKey };
  }
  return { "x-api-key": need(settings, "publicKey", auth), "x-api-secret": settings.secretKey };
}

/** The body as sent: KYC bodies carry the client's `merchantId`. */
function bodyOf(settings: Settings, call: Call): string | undefined {
  if (call.spec.method !== "POST") return undefined;
  const body = call.body ?? {};
  return JSON.stringify(call.spec.auth === "kyc" ? { ...body, merchantId: need(settings, "merchantId", "kyc") } : body);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** One try within the deadline; the body is read under the same deadline. */
async function attempt(url: string, init: { method: string; headers: Record<string, string>; body?: string }, timeoutMs: number): Promise<Answer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(url, { ...init, signal: controller.signal, redirect: "manual" });
    const text = await res.text();
    return { status: res.status, headers: Object.fromEntries(res.headers), text };
  } catch (err) {
    if (controller.signal.aborted) throw new TimeoutError({ code: "TIMEOUT", message: `No answer within ${timeoutMs} ms`, cause: err });
    throw new ConnectionError({ code: "CONNECTION_ERROR", message: `Could not reach ${new URL(url).origin}: ${errorText(err)}`, cause: err });
  } finally {
    clearTimeout(timer);
  }
}

function errorText(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends a call and returns its `data` with the answer's metadata. Connection errors, timeouts and the
 * answers `isRetryableAnswer` names are retried up to `maxRetries` times, after `retryDelayMs`; a POST
 * carries one `Idempotency-Key` on every try, so a retried payment or charge happens once.
 */
export async function send<T>(settings: Settings, call: Call, opts: RequestOptions = {}): Promise<{ data: T; response: ResponseMeta }> {
  const url = callUrl(settings.baseUrl, call);
  const isPost = call.spec.method === "POST";
  const idempotencyKey = isPost ? (opts.idempotencyKey ?? randomUUID()) : null;
  const headers: Record<string, string> = {
    ...authHeaders(settings, call.spec.auth),
    Accept: "application/json",
    "User-Agent": `parakh-node/${VERSION} node/${process.versions.node}`,
    ...(isPost ? { "Content-Type": "application/json" } : {}),
    ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}),
    ...(opts.requestId ? { "X-Request-Id": opts.requestId } : {}),
  };
  const body = bodyOf(settings, call);
  const maxRetries = opts.maxRetries ?? settings.maxRetries;
  const timeoutMs = opts.timeoutMs ?? settings.timeoutMs;
  for (let tries = 1; ; tries++) {
    let error: ParakhError;
    let retryAfterMs: number | undefined;
    try {
      const answer = await attempt(url, { method: call.spec.method, headers, body }, timeoutMs);
      const json = parseJson(answer.text) as Record<string, unknown> | undefined;
      if (answer.status >= 200 && answer.status < 300 && json && "data" in json) {
        return { data: json.data as T, response: meta(answer, json, idempotencyKey, tries) };
      }
      retryAfterMs = parseRetryAfter(answer.headers["retry-after"]);
      const retryAfter = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
      error = errorFromAnswer(answer.status, json, answer.text, answer.headers["x-request-id"] ?? null, retryAfter);
      if (!isRetryableAnswer(answer.status, error.code)) throw error;
    } catch (err) {
      if (!(err instanceof ConnectionError)) throw err;
      error = err;
    }
    const delay = tries > maxRetries ? null : retryDelayMs(tries - 1, retryAfterMs, settings.maxRetryAfterMs);
    if (delay === null) throw error;
    await sleep(delay);
  }
}

function meta(answer: Answer, json: Record<string, unknown>, idempotencyKey: string | null, attempts: number): ResponseMeta {
  return {
    requestId: answer.headers["x-request-id"] ?? null,
    status: answer.status,
    idempotentReplayed: answer.headers["idempotent-replayed"] === "true",
    idempotencyKey,
    attempts,
    ...(typeof json.timestamp === "string" ? { timestamp: json.timestamp } : {}),
    ...(typeof json.message === "string" ? { message: json.message } : {}),
    headers: answer.headers,
  };
}
