import type { IncomingMessage } from "node:http";
import { BATCH_BODY_MAX_BYTES } from "@/lib/limits";
import { AppError } from "@/server/errors";

/** Largest body the dashboard's endpoints (tRPC, sign-in) accept: their forms are small. */
export const APP_BODY_LIMIT = 64 * 1024;

/**
 * The dashboard's uploads: a batch file's rows (up to 10,000) travel in one call, as they do to
 * POST /v1/{kind}/batch, whose limit this is. Only these procedures, called alone or together, and
 * only with a session cookie and the dashboard's CSRF header: nobody else gets to send megabytes.
 */
export const UPLOAD_BODY_LIMIT = BATCH_BODY_MAX_BYTES;
const UPLOAD_PROCEDURES: ReadonlySet<string> = new Set(["batches.preview", "batches.create"]);
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?next-auth\.session-token(?:\.\d+)?=/;

function bodyLimit(req: IncomingMessage, pathname: string): number {
  if (!pathname.startsWith("/api/trpc/")) return APP_BODY_LIMIT;
  const procedures = pathname.slice("/api/trpc/".length).split(",");
  const upload =
    procedures.every((p) => UPLOAD_PROCEDURES.has(p)) && req.headers["x-parakh-csrf"] !== undefined && SESSION_COOKIE.test(req.headers.cookie ?? "");
  return upload ? UPLOAD_BODY_LIMIT : APP_BODY_LIMIT;
}

const PAGE_METHODS = new Set(["GET", "HEAD", "POST", "OPTIONS"]);

function decodable(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

/**
 * What the server refuses before a request reaches the pages: requests Next would answer with a
 * plain-text 500 (broken percent-encoding, odd methods, absolute-form targets) and bodies the
 * dashboard never needs (unbounded uploads to tRPC or sign-in, which Next would buffer whole).
 */
export function pageRequestProblem(req: IncomingMessage, pathname: string): AppError | null {
  // As sent: methods are case-sensitive, and `get` (which only reaches us unparsed) is not GET.
  const method = req.method ?? "GET";
  if (!pathname.startsWith("/")) return new AppError("VALIDATION_ERROR", "The request target must be a path.");
  if (!decodable(pathname)) return new AppError("VALIDATION_ERROR", "The request path is not validly encoded.");
  if (!PAGE_METHODS.has(method)) return new AppError("METHOD_NOT_ALLOWED");
  if (method !== "POST") return null;
  const app = pathname.startsWith("/api/trpc") ? "trpc" : pathname.startsWith("/api/auth") ? "auth" : null;
  if (!app) return null;
  const type = (req.headers["content-type"] ?? "").split(";", 1)[0]!.trim().toLowerCase();
  const expected = app === "trpc" ? "application/json" : "application/x-www-form-urlencoded";
  if (type !== expected) return new AppError("UNSUPPORTED_MEDIA_TYPE", `Send ${expected}.`);
  const length = Number(req.headers["content-length"]);
  // Browsers always send a length for these forms; a chunked upload of unknown size is refused.
  if (req.headers["content-length"] === undefined || !Number.isFinite(length)) return new AppError("VALIDATION_ERROR", "Content-Length is required.");
  const limit = bodyLimit(req, pathname);
  if (length > limit) return new AppError("PAYLOAD_TOO_LARGE", `The request body must be at most ${limit} bytes.`);
  return null;
}
