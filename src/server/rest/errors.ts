import { TRPCError } from "@trpc/server";
import type { ZodError } from "zod";
import { isAppError, ERROR_CODES, type ErrorCode, type FieldError } from "@/server/errors";
import { log } from "@/server/lib/logger";
import { errorBody, type EnvelopeKind } from "@/server/rest/envelope";
import type { RestMeta } from "@/server/rest/meta";

interface MappedError {
  code: ErrorCode;
  message?: string;
  details?: FieldError[];
  field?: string;
  retryAfterSeconds?: number;
  extra?: Record<string, unknown>;
}

function describeIssue(issue: ZodError["issues"][number], value: unknown): string {
  if (value === undefined) return "is required";
  if (issue.code === "invalid_type") return `must be ${article(issue.expected)}`;
  return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const seg of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

/** Input validation → VALIDATION_ERROR, or the field's own code when a present field is bad. */
export function mapValidationError(zerr: ZodError, rawInput: unknown, meta: RestMeta | undefined): MappedError {
  if (rawInput === undefined || rawInput === null || typeof rawInput !== "object" || Array.isArray(rawInput)) {
    return { code: "VALIDATION_ERROR", message: "The request body must be a JSON object.", details: [{ field: "body", message: "must be a JSON object" }] };
  }
  const details: FieldError[] = [];
  const seen = new Set<string>();
  let specific: { code: ErrorCode; field: string; message?: string } | undefined;
  // A whole-body rule that names its code (e.g. "exactly one of uan or pf_number") decides first.
  const bodyRule = zerr.issues.find((i) => i.path.length === 0 && i.code === "custom" && typeof i.params?.code === "string");
  if (bodyRule && bodyRule.code === "custom") {
    return { code: bodyRule.params!.code as ErrorCode, field: "body", message: bodyRule.message, details: [{ field: "body", message: bodyRule.message }] };
  }
  for (const issue of zerr.issues) {
    const field = issue.path.map(String).join(".") || "body";
    if (seen.has(field)) continue;
    seen.add(field);
    const value = valueAt(rawInput, issue.path);
    const typeMessage = value !== undefined && issue.code !== "custom" ? meta?.fieldMessages?.[field] : undefined;
    details.push({ field, message: `${field} ${typeMessage ?? describeIssue(issue, value)}` });
    if (specific || value === undefined) continue;
    // The first bad field (in schema order) with a code of its own names the error.
    const own =
      issue.code === "custom" && typeof issue.params?.code === "string" ? (issue.params.code as ErrorCode) : meta?.fieldCodes?.[String(issue.path[0] ?? "")];
    const message = issue.code === "custom" ? issue.message : typeMessage;
    if (own) specific = { code: own, field: String(issue.path[0]), message: message ? `${field} ${message}` : undefined };
  }
  if (specific) {
    // An id that cannot exist (see pathIdField) answers exactly like an unknown one: no field details.
    if (ERROR_CODES[specific.code].status === 404) return { code: specific.code, message: ERROR_CODES[specific.code].message };
    const own = details.filter((d) => d.field === specific.field || d.field.startsWith(`${specific.field}.`));
    return { code: specific.code, field: specific.field, details: own.length ? own : details, message: specific.message ?? ERROR_CODES[specific.code].message };
  }
  return { code: "VALIDATION_ERROR", details, field: details[0]?.field, message: details.map((d) => d.message).join("; ") };
}

export function mapError(error: unknown, rawInput: unknown, meta: RestMeta | undefined, requestId: string): MappedError {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (isAppError(cause)) {
    return {
      code: cause.code,
      message: cause.message,
      details: cause.details,
      field: cause.field,
      retryAfterSeconds: cause.retryAfterSeconds,
      extra: cause.extra,
    };
  }
  if (error instanceof TRPCError && error.code === "BAD_REQUEST" && cause && (cause as Error).name === "ZodError") {
    return mapValidationError(cause as ZodError, rawInput, meta);
  }
  log.error("unexpected error", { requestId, err: cause instanceof Error ? cause : error });
  return { code: "INTERNAL_ERROR" };
}

export interface ErrorResponse {
  status: number;
  code: ErrorCode;
  headers: Record<string, string>;
  body: ReturnType<typeof errorBody>;
}

/**
 * The one place a failure becomes an answer: the API's envelope for the request's family, its
 * status, and Retry-After when the error names one. Input validation failures are mapped with the
 * operation's field codes; anything unexpected is INTERNAL_ERROR (logged, never shown).
 */
export function errorResponse(error: unknown, request: { kind: EnvelopeKind; requestId: string }, rawInput?: unknown, meta?: RestMeta): ErrorResponse {
  const mapped = mapError(error, rawInput, meta, request.requestId);
  const headers: Record<string, string> = mapped.retryAfterSeconds ? { "Retry-After": String(mapped.retryAfterSeconds) } : {};
  return { status: ERROR_CODES[mapped.code].status, code: mapped.code, headers, body: errorBody(request.kind, request.requestId, mapped) };
}
