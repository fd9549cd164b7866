import type { TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { BATCH_MAX_ITEMS, MAX_PAYMENT_AMOUNT_PAISE, MIN_PAYMENT_AMOUNT_PAISE, REFUND_WINDOW_DAYS, countText } from "@/lib/limits";
import { formatPaise } from "@/lib/money";

/**
 * The one error-code registry (every code is listed in /docs per operation). Services throw `AppError(code)`; the REST door turns it
 * into the API's envelope with this status, the dashboard into a tRPC error with `trpc`.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, trpc: "BAD_REQUEST", message: "The request is invalid." },
  INVALID_JSON: { status: 400, trpc: "PARSE_ERROR", message: "The request body is not valid JSON." },
  INVALID_PAN: {
    status: 400,
    trpc: "BAD_REQUEST",
    message: "The PAN is not valid: expected 5 letters, 4 digits and a letter, with a real category (4th letter) and a serial other than 0000.",
  },
  INVALID_UAN: { status: 400, trpc: "BAD_REQUEST", message: "The UAN must be 12 digits." },
  INVALID_PF_NUMBER: {
    status: 400,
    trpc: "BAD_REQUEST",
    message:
      "The PF number must be region (2 letters), office (3 letters), establishment (7 digits), extension (3 digits) and member (7 digits), e.g. MH/BAN/0000064/000/0000123.",
  },
  INVALID_AADHAAR: { status: 400, trpc: "BAD_REQUEST", message: "The Aadhaar number is not valid." },
  INVALID_IFSC: { status: 400, trpc: "BAD_REQUEST", message: "The IFSC is not valid." },
  INVALID_ACCOUNT_NUMBER: { status: 400, trpc: "BAD_REQUEST", message: "The account number must be 9 to 18 digits." },
  INVALID_ORDER_ID: { status: 400, trpc: "BAD_REQUEST", message: "The orderId must start with ORDER_ and be at most 64 characters of A-Z, a-z, 0-9, _ and -." },
  INVALID_AMOUNT: {
    status: 400,
    trpc: "BAD_REQUEST",
    message: `The amount must be a number of at least ${formatPaise(MIN_PAYMENT_AMOUNT_PAISE)} with at most two fraction digits.`,
  },
  AMOUNT_LIMIT_EXCEEDED: { status: 400, trpc: "BAD_REQUEST", message: `The amount must not exceed ${formatPaise(MAX_PAYMENT_AMOUNT_PAISE)}.` },
  INVALID_REDIRECT_URL: { status: 400, trpc: "BAD_REQUEST", message: "The redirectUrl must be an absolute http or https URL." },
  BATCH_TOO_LARGE: { status: 400, trpc: "BAD_REQUEST", message: `A batch holds at most ${countText(BATCH_MAX_ITEMS)} items.` },
  SIGNATURE_INVALID: { status: 400, trpc: "BAD_REQUEST", message: "The signature does not match." },
  ORDER_MISMATCH: { status: 400, trpc: "BAD_REQUEST", message: "The orderId does not belong to this payment." },
  REFUND_EXCEEDS_AMOUNT: { status: 400, trpc: "BAD_REQUEST", message: "The refund is more than what is still refundable on this payment." },
  UNAUTHORIZED: { status: 401, trpc: "UNAUTHORIZED", message: "Missing or invalid API credentials." },
  INSUFFICIENT_BALANCE: { status: 402, trpc: "PRECONDITION_FAILED", message: "The wallet balance is below the fee for this call." },
  IP_NOT_WHITELISTED: { status: 403, trpc: "FORBIDDEN", message: "This IP address is not on the merchant's whitelist." },
  LIVE_MODE_NOT_ENABLED: { status: 403, trpc: "FORBIDDEN", message: "Live mode is not enabled for this merchant yet; request go-live in the dashboard." },
  MERCHANT_MISMATCH: { status: 403, trpc: "FORBIDDEN", message: "The merchantId does not match the API key." },
  MERCHANT_SUSPENDED: { status: 403, trpc: "FORBIDDEN", message: "This merchant account is suspended." },
  BROWSER_REQUEST_FORBIDDEN: { status: 403, trpc: "FORBIDDEN", message: "This API is server-to-server only; browser requests are refused." },
  FORBIDDEN: { status: 403, trpc: "FORBIDDEN", message: "You do not have access to this resource." },
  /** Dashboard only: a sensitive act (revealing a secret, live keys, two-factor) wants the password confirmed again. */
  REAUTH_REQUIRED: { status: 403, trpc: "FORBIDDEN", message: "Confirm your password to continue." },
  NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "No such route." },
  PAYMENT_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "No payment with this id." },
  UAN_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "No EPFO member account with this UAN." },
  PF_NUMBER_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "No EPFO member account with this PF number." },
  BATCH_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "No batch with this id." },
  OTP_REQUEST_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "No open OTP request for this Aadhaar number." },
  REFUND_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "No refund with this id." },
  ATTEMPT_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "This payment has no attempt with this id." },
  METHOD_NOT_ALLOWED: { status: 405, trpc: "METHOD_NOT_SUPPORTED", message: "This method is not allowed on this route." },
  DUPLICATE_ORDER_ID: { status: 409, trpc: "CONFLICT", message: "An open payment with this orderId has a different amount." },
  ORDER_ALREADY_PAID: { status: 409, trpc: "CONFLICT", message: "This orderId has already been paid." },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, trpc: "CONFLICT", message: "A request with this Idempotency-Key is still being processed." },
  OTP_ALREADY_USED: { status: 409, trpc: "CONFLICT", message: "This OTP has already been used." },
  OTP_VERIFICATION_IN_PROGRESS: {
    status: 409,
    trpc: "CONFLICT",
    message: "Another verification of this OTP request is running; retry after the time in Retry-After.",
  },
  PAYMENT_NOT_REFUNDABLE: {
    status: 409,
    trpc: "CONFLICT",
    message: `Only a successful payment can be refunded, within ${REFUND_WINDOW_DAYS} days of payment.`,
  },
  DUPLICATE_REFUND_ID: { status: 409, trpc: "CONFLICT", message: "This merchantRefundId was used for another refund request." },
  PAYMENT_NOT_PAYABLE: { status: 409, trpc: "CONFLICT", message: "This payment cannot take a new attempt now." },
  CONFLICT: { status: 409, trpc: "CONFLICT", message: "The request conflicts with the current state." },
  OTP_EXPIRED: { status: 410, trpc: "BAD_REQUEST", message: "The OTP has expired; generate a new one." },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: "PAYLOAD_TOO_LARGE", message: "The request body is too large." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: "UNSUPPORTED_MEDIA_TYPE", message: "The request body must be JSON sent with Content-Type: application/json." },
  IDEMPOTENCY_KEY_MISMATCH: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "This Idempotency-Key was used with a different request body." },
  INVALID_OTP: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "The OTP is incorrect." },
  AADHAAR_MOBILE_NOT_LINKED: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "No mobile number is linked to this Aadhaar number." },
  AADHAAR_LOCKED: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "This Aadhaar number is locked by its holder." },
  LOOKUP_NOT_SUPPORTED: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "The live source cannot look this up; live EPFO lookups need a UAN." },
  CONSENT_REQUIRED: {
    status: 422,
    trpc: "UNPROCESSABLE_CONTENT",
    message:
      "Live checks need the person's consent and a purpose: send consent: true and a purpose (20-200 characters), or set a standing attestation and a default purpose in the dashboard.",
  },
  RATE_LIMITED: { status: 429, trpc: "TOO_MANY_REQUESTS", message: "Too many requests; retry after the time in Retry-After." },
  OTP_RESEND_TOO_SOON: { status: 429, trpc: "TOO_MANY_REQUESTS", message: "An OTP was sent less than 60 seconds ago." },
  OTP_GENERATION_LIMIT: { status: 429, trpc: "TOO_MANY_REQUESTS", message: "Too many OTPs for this Aadhaar number; try again later." },
  OTP_ATTEMPTS_EXCEEDED: { status: 429, trpc: "TOO_MANY_REQUESTS", message: "Too many wrong OTPs; this request is locked. Generate a new OTP." },
  REQUEST_HEADERS_TOO_LARGE: {
    status: 431,
    trpc: "BAD_REQUEST",
    message: "The request line and headers must be at most 16 KiB together (a long URL counts).",
  },
  INTERNAL_ERROR: { status: 500, trpc: "INTERNAL_SERVER_ERROR", message: "Something went wrong on our side. The request id identifies it to support." },
  UPSTREAM_ERROR: {
    status: 502,
    trpc: "BAD_GATEWAY",
    message: "The verification source answered something that could not be read, or refused input that was valid; retry later.",
  },
  SOURCE_UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE", message: "The verification source is unavailable; retry later." },
  SERVICE_UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE", message: "The service is unavailable; retry later." },
  SOURCE_TIMEOUT: { status: 504, trpc: "GATEWAY_TIMEOUT", message: "The verification source did not answer in time; retry later." },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  field: string;
  message: string;
}

export interface AppErrorOptions {
  details?: FieldError[];
  field?: string;
  retryAfterSeconds?: number;
  /** Extra top-level fields of the error object (e.g. attemptsRemaining). */
  extra?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * What marks an AppError. Next bundles its own copy of the server's modules for the pages, beside the
 * copy the process's services (and their providers) were built from, so an error thrown by one copy's
 * class is not `instanceof` the other's. `Symbol.for` is the same in both: recognise errors with
 * `isAppError`, never `instanceof AppError`.
 */
const APP_ERROR_BRAND = Symbol.for("parakh.AppError");

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: FieldError[];
  readonly field?: string;
  readonly retryAfterSeconds?: number;
  readonly extra?: Record<string, unknown>;

  constructor(code: ErrorCode, message?: string, opts: AppErrorOptions = {}) {
    super(message ?? ERROR_CODES[code].message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.details = opts.details;
    this.field = opts.field;
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.extra = opts.extra;
  }
}

Object.defineProperty(AppError.prototype, APP_ERROR_BRAND, { value: true });

/** An AppError from either copy of this module (see APP_ERROR_BRAND), with a code of the registry. */
export function isAppError(e: unknown): e is AppError {
  if (typeof e !== "object" || e === null || (e as { [APP_ERROR_BRAND]?: unknown })[APP_ERROR_BRAND] !== true) return false;
  const code = (e as { code?: unknown }).code;
  return typeof code === "string" && Object.hasOwn(ERROR_CODES, code);
}

export function errorStatus(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}
