// Pure pieces of the job queue: retry delays and what of an error may be stored.
import type { z } from "zod";

export interface BackoffOptions {
  /** Delay after the first failure, before jitter (default 1 s). */
  baseMs?: number;
  /** Upper bound for any delay (default 1 h). */
  maxMs?: number;
}

/** Returns the delay in ms before the next try, given how many attempts have been made (≥ 1). */
export type Backoff = (attempt: number) => number;

/**
 * Exponential backoff with "equal jitter": the delay doubles per attempt up to `maxMs`; half of it
 * is fixed and half random, so retries from many jobs that failed together spread out while the
 * delay still grows.
 */
export function exponentialBackoff(options: BackoffOptions = {}, random: () => number = Math.random): Backoff {
  return (attempt) => {
    const ceiling = backoffCeiling(attempt, options);
    return Math.round(ceiling / 2 + random() * (ceiling / 2));
  };
}

/** The delay before jitter: `baseMs` after the first attempt, doubling with each one, at most `maxMs`. */
export function backoffCeiling(attempt: number, options: BackoffOptions = {}): number {
  const baseMs = options.baseMs ?? 1_000;
  const maxMs = options.maxMs ?? 3_600_000;
  const n = Math.max(1, Math.floor(attempt));
  // 2^(n-1) overflows to Infinity long before it matters; min() caps it.
  return Math.min(maxMs, baseMs * 2 ** (n - 1));
}

export const defaultBackoff: Backoff = exponentialBackoff();

export const MAX_LAST_ERROR_CHARS = 1_000;

// Things that must not end up in the Job table even if a handler's error message carries them.
const SECRET_PATTERNS: [RegExp, string][] = [
  [/\b(sk|pk)_(test|live)_[A-Za-z0-9]+/g, "$1_$2_[REDACTED]"],
  [/\bwhsec_[A-Za-z0-9]+/g, "whsec_[REDACTED]"],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, "$1 [REDACTED]"],
  // user:password@ in URLs
  [/([a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi, "$1[REDACTED]@"],
  [/([?&](?:token|secret|key|api_key|apikey|signature|sig|password|access_token)=)[^&\s"']+/gi, "$1[REDACTED]"],
  // card, Aadhaar and similar long numbers
  [/\b\d{12,19}\b/g, "[NUMBER]"],
];

/**
 * The text stored in `Job.lastError`: name and message only (no stack, no `cause`), known secret
 * shapes masked, truncated to {@link MAX_LAST_ERROR_CHARS}.
 */
export function jobErrorText(err: unknown): string {
  let text: string;
  if (err instanceof Error) {
    text = err.name && err.name !== "Error" ? `${err.name}: ${err.message}` : err.message || err.name;
  } else if (typeof err === "string") {
    text = err;
  } else {
    try {
      text = JSON.stringify(err) ?? String(err);
    } catch {
      text = String(err);
    }
  }
  for (const [pattern, replacement] of SECRET_PATTERNS) text = text.replace(pattern, replacement);
  if (text.length > MAX_LAST_ERROR_CHARS) text = `${text.slice(0, MAX_LAST_ERROR_CHARS - 1)}…`;
  return text || "unknown error";
}

/** Why a payload does not fit its job's schema, field by field, as `Job.lastError` stores it. */
export function payloadErrorText(error: z.ZodError): string {
  const issues = error.issues.map((issue) => `${issue.path.join(".") || "(payload)"}: ${issue.message}`);
  return jobErrorText(`payload does not fit the job's schema: ${issues.join("; ")}`);
}
