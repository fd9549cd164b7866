/** The first retry waits about this long; each further one twice as long, up to MAX_BACKOFF_MS. */
export const INITIAL_BACKOFF_MS = 500;
export const MAX_BACKOFF_MS = 8_000;
/** A `Retry-After` longer than this is not slept through: the error is raised with its `retryAfter`. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/**
 * Whether an answer is worth the same request again: 503 and 504 (a source or the service is briefly
 * unavailable), 429 `RATE_LIMITED` (not the OTP limits, which only time lifts), and 409
 * `IDEMPOTENCY_KEY_IN_USE` (the first try of this very call is still running; the retry gets its answer).
 */
export function isRetryableAnswer(status: number, code: string | undefined): boolean {
  if (status === 503 || status === 504) return true;
  if (status === 429) return code === undefined || code === "RATE_LIMITED" || code === "UNEXPECTED_RESPONSE";
  if (status === 409) return code === "IDEMPOTENCY_KEY_IN_USE";
  return false;
}

/** `Retry-After` in milliseconds: delta seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null || value.trim() === "") return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * How long to wait before retry number `retry` (0 for the first): exponential backoff with jitter
 * (between half and all of the step), but never less than the answer's `Retry-After`. Null when
 * `Retry-After` asks for longer than `maxRetryAfterMs`: the caller should give up and raise.
 */
export function retryDelayMs(
  retry: number,
  retryAfterMs: number | undefined,
  maxRetryAfterMs = DEFAULT_MAX_RETRY_AFTER_MS,
  random = Math.random,
): number | null {
  const step = Math.min(INITIAL_BACKOFF_MS * 2 ** retry, MAX_BACKOFF_MS);
  const backoff = step * (0.5 + random() * 0.5);
  if (retryAfterMs === undefined) return backoff;
  if (retryAfterMs > maxRetryAfterMs) return null;
  return Math.max(retryAfterMs, backoff);
}
