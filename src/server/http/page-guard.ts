import type { IncomingMessage } from "node:http";
import { AppError } from "@/server/errors";

/** Largest body the dashboard's endpoints (tRPC, sign-in) accept: their forms are small. */
export const APP_BODY_LIMIT = 64 * 1024;

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
  const method = (req.method ?? "GET").toUpperCase();
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
  if (length > APP_BODY_LIMIT) return new AppError("PAYLOAD_TOO_LARGE", `The request body must be at most ${APP_BODY_LIMIT} bytes.`);
  return null;
}
