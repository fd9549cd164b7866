/** One `{field, message}` per bad field of a validation error. */
export interface FieldError {
  field: string;
  message: string;
}

export interface ParakhErrorInit {
  code: string;
  message: string;
  /** The HTTP status; undefined when no answer came (connection errors, timeouts) or none was involved (signatures). */
  status?: number;
  requestId?: string | null;
  details?: FieldError[];
  field?: string;
  /** Seconds the answer's `Retry-After` asked to wait. */
  retryAfter?: number;
  /** The error object's other fields, as sent (e.g. `attemptsRemaining`). */
  extra?: Record<string, unknown>;
  /** The whole answer body as parsed (or its text when it was not JSON). */
  raw?: unknown;
  cause?: unknown;
}

/**
 * Every error this library raises. `code` is the API's code (`INVALID_PAN`, `IP_NOT_WHITELISTED`…)
 * or, for failures without an answer, this library's (`CONNECTION_ERROR`, `TIMEOUT`,
 * `WEBHOOK_SIGNATURE_INVALID`…). Subclasses name the family; catch the one you handle.
 */
export class ParakhError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  readonly requestId: string | null;
  readonly details: FieldError[];
  readonly field: string | undefined;
  readonly retryAfter: number | undefined;
  /** `INVALID_OTP`: wrong tries left before the OTP request locks. */
  readonly attemptsRemaining: number | undefined;
  readonly extra: Record<string, unknown>;
  readonly raw: unknown;

  constructor(init: ParakhErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId ?? null;
    this.details = init.details ?? [];
    this.field = init.field;
    this.retryAfter = init.retryAfter;
    this.extra = init.extra ?? {};
    this.attemptsRemaining = typeof this.extra.attemptsRemaining === "number" ? this.extra.attemptsRemaining : undefined;
    this.raw = init.raw;
  }
}

/** 401: the keys are missing, wrong, revoked, or of another merchant. */
export class AuthenticationError extends ParakhError {}
/** 403: IP not whitelisted, live mode not enabled, merchant mismatch or suspended, a browser request to KYC. */
export class PermissionError extends ParakhError {}
/** 400, 405, 410, 413, 415, 422, 431: the request cannot be served as sent (`details` names the fields). */
export class InvalidRequestError extends ParakhError {}
/** 404: no such payment, refund, batch, OTP request, UAN… for these keys (or no such route). */
export class NotFoundError extends ParakhError {}
/** 409: the request conflicts with the resource's state (order already paid, refund id reused…). */
export class ConflictError extends ParakhError {}
/** `IDEMPOTENCY_KEY_IN_USE` (409, retried by the client) and `IDEMPOTENCY_KEY_MISMATCH` (422: the key was used with another body). */
export class IdempotencyError extends ConflictError {}
/** 429: a rate limit or an OTP limit; `retryAfter` says when to try again. */
export class RateLimitError extends ParakhError {}
/** 402: the wallet holds less than the KYC call's fee. */
export class InsufficientBalanceError extends ParakhError {}
/** 502, 503, 504: a verification source or the payment processor is unavailable or timed out; retry later. */
export class UpstreamError extends ParakhError {}
/** 500 and other server failures. */
export class ServerError extends ParakhError {}
/** No answer: the connection failed or was cut. */
export class ConnectionError extends ParakhError {}
/** No answer within `timeoutMs`. */
export class TimeoutError extends ConnectionError {}
/** `constructEvent` or `redirects.verify` refused what it was given (`code` says why). */
export class SignatureVerificationError extends ParakhError {}

const BY_STATUS: Record<number, typeof ParakhError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  402: InsufficientBalanceError,
  403: PermissionError,
  404: NotFoundError,
  405: InvalidRequestError,
  409: ConflictError,
  410: InvalidRequestError,
  413: InvalidRequestError,
  415: InvalidRequestError,
  422: InvalidRequestError,
  429: RateLimitError,
  431: InvalidRequestError,
  500: ServerError,
  502: UpstreamError,
  503: UpstreamError,
  504: UpstreamError,
};

/** The class for an answer's status and code. */
export function errorClassFor(status: number, code: string): typeof ParakhError {
  if (code === "IDEMPOTENCY_KEY_IN_USE" || code === "IDEMPOTENCY_KEY_MISMATCH") return IdempotencyError;
  const known = BY_STATUS[status];
  if (known) return known;
  if (status >= 500) return ServerError;
  if (status >= 400) return InvalidRequestError;
  return ParakhError;
}

/**
 * The error for a non-2xx answer, from either envelope: `/v1`'s `{status:"error", error, request_id}`
 * or `/api`'s `{success:false, error, requestId}`. An answer in neither (a proxy's HTML page) keeps its
 * text in `raw` and gets code `UNEXPECTED_RESPONSE`.
 */
export function errorFromAnswer(status: number, body: unknown, text: string, headerRequestId: string | null, retryAfter: number | undefined): ParakhError {
  const envelope = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const error = (envelope.error && typeof envelope.error === "object" ? envelope.error : null) as Record<string, unknown> | null;
  const requestId =
    (typeof envelope.request_id === "string" && envelope.request_id) || (typeof envelope.requestId === "string" && envelope.requestId) || headerRequestId;
  if (!error || typeof error.code !== "string") {
    const Class = errorClassFor(status, "");
    return new Class({ code: "UNEXPECTED_RESPONSE", message: `HTTP ${status} without an error envelope`, status, requestId, retryAfter, raw: body ?? text });
  }
  const { code, message, details, field, ...extra } = error;
  const Class = errorClassFor(status, code as string);
  return new Class({
    code: code as string,
    message: typeof message === "string" ? message : `HTTP ${status} ${String(code)}`,
    status,
    requestId,
    details: Array.isArray(details) ? (details as FieldError[]) : undefined,
    field: typeof field === "string" ? field : undefined,
    retryAfter,
    extra,
    raw: body,
  });
}
