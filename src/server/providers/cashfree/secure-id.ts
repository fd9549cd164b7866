/**
 * What the four Cashfree Secure ID adapters share: one upstream client per family, and readers for
 * the vendor's loose wire (numbers sent as strings and strings as numbers, nulls for absent values,
 * dates in three spellings). The wire follows the vendor's OpenAPI description, kept with its
 * source in tests/fixtures/cashfree-verification.
 */
import { randomBytes } from "node:crypto";
import { AppError, type ErrorCode } from "@/server/errors";
import { UpstreamClient, UpstreamFailure, vendorErrorCode, type UpstreamAnswer, type UpstreamLogger } from "@/server/providers/upstream/client";

export type SecureIdFamily = "pan" | "epfo" | "aadhaar" | "bank";

export interface SecureIdSettings {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  maxConcurrency: number;
  /** Calls started a second per family (UPSTREAM_MAX_RPS); 0 or absent: no limit. */
  maxRps?: number;
}

/**
 * Tests shorten the breaker's pause and the retry pauses; an operator's check keeps its clients
 * unlisted; the server passes where every thread's gates are kept.
 */
export type SecureIdClientTuning = Pick<
  ConstructorParameters<typeof UpstreamClient>[0],
  "openMs" | "breaker" | "retryDelayMs" | "maxBodyBytes" | "connectTimeoutMs" | "listed" | "gates"
>;

export function secureIdClients(settings: SecureIdSettings, logger: UpstreamLogger, tuning: SecureIdClientTuning = {}): Record<SecureIdFamily, UpstreamClient> {
  const client = (family: SecureIdFamily) =>
    new UpstreamClient({
      family,
      baseUrl: settings.baseUrl.replace(/\/$/, ""),
      headers: { "x-client-id": settings.clientId, "x-client-secret": settings.clientSecret },
      timeoutMs: settings.timeoutMs,
      maxConcurrency: settings.maxConcurrency,
      maxRps: settings.maxRps,
      logger,
      ...tuning,
    });
  return { pan: client("pan"), epfo: client("epfo"), aadhaar: client("aadhaar"), bank: client("bank") };
}

/** A fresh id for calls the vendor wants one for: at most 50 characters of letters, digits, `.`, `-` and `_`. */
export function newVerificationId(prefix: string): string {
  return `parakh_${prefix}_${randomBytes(12).toString("hex")}`;
}

/** The vendor's error codes that mean Parakh's own account is wrong, not the caller's input. */
export function isAccountProblem(code: string | null): boolean {
  return code !== null && (code.startsWith("x-client-") || code === "insufficient_balance" || code === "invalid_request");
}

/**
 * The common reading of a 4xx the adapter did not recognise: Parakh's account problems mark the
 * family misconfigured; anything else is an answer Parakh cannot use (not counted as an outage).
 */
export function unexpectedRefusal(client: UpstreamClient, answer: UpstreamAnswer): UpstreamFailure {
  const code = vendorErrorCode(answer.body);
  if (isAccountProblem(code)) return client.refuseMisconfigured(`HTTP ${answer.status}, ${code}`);
  return new UpstreamFailure("UPSTREAM_ERROR", `The upstream source refused the call (HTTP ${answer.status}${code ? `, ${code}` : ""}).`, {
    countsAsFailure: false,
  });
}

/** A source-side refusal that is not an outage of the vendor (a bank offline, a call still in progress): retry later. */
export function sourceBusy(code: ErrorCode, message: string, retryAfterSeconds: number): AppError {
  return new AppError(code, message, { retryAfterSeconds });
}

export function objectBody(answer: UpstreamAnswer): Record<string, unknown> {
  const body = answer.body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return {};
  return body as Record<string, unknown>;
}

/** A string, or a number sent where a string was documented; null for absent, null and blank. */
export function text(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") return null;
  const t = value.trim();
  return t === "" ? null : t;
}

/** A score sent as a number or as a string of digits ("90.00"). */
export function score(value: unknown): number | null {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
}

/** A date as YYYY-MM-DD from YYYY-MM-DD, DD-MM-YYYY or DD/MM/YYYY (the vendor uses all three); null when it is none of them. */
export function isoDate(value: unknown): string | null {
  const t = text(value)?.replace(/\.$/, "");
  if (!t) return null;
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  const [y, mo, d] = m ? [m[1]!, m[2]!, m[3]!] : (m = /^(\d{2})[-/](\d{2})[-/](\d{4})$/.exec(t)) ? [m[3]!, m[2]!, m[1]!] : [null, null, null];
  if (!y) return null;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  return date.getUTCMonth() === Number(mo) - 1 && date.getUTCDate() === Number(d) ? `${y}-${mo}-${d}` : null;
}

export function upper(value: unknown): string | null {
  return text(value)?.replace(/\s+/g, " ").toUpperCase() ?? null;
}
