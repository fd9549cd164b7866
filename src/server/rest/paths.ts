import type { EnvelopeKind } from "@/server/rest/envelope";

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** `.` and `..` segments, in any encoding, which URL parsers would fold into another route. */
export function hasDotSegment(pathname: string): boolean {
  // Without a dot or a percent sign no segment can be, or decode to, one.
  if (!pathname.includes(".") && !pathname.includes("%")) return false;
  return pathname.split("/").some((seg) => {
    const d = decodeSafely(seg);
    return d === "." || d === "..";
  });
}

/**
 * The app's own endpoints under /api (dashboard tRPC, sign-in, CSV exports, health, readiness,
 * this document), recognised only in the exact form their handlers are routed by: a variant in
 * another case, encoding or with doubled slashes or dot segments would be folded or refused by
 * Next (an HTML page, a redirect), so it is the door's to answer.
 */
function isOwnEndpoint(pathname: string): boolean {
  if (pathname === "/api/health" || pathname === "/api/ready" || pathname === "/api/openapi.json") return true;
  return /^\/api\/(?:trpc|auth|dashboard)\/[^/]/.test(pathname) && !pathname.includes("//") && !hasDotSegment(pathname);
}

/**
 * The REST family a path belongs to, judged on its normalised form (case, percent-encoding and
 * doubled slashes folded), so `/V1/…`, `/%761/…` and `//v1/…` are answered by the door in its
 * envelope instead of falling through to the pages.
 */
export function restKindOf(pathname: string): EnvelopeKind | null {
  const p = decodeSafely(pathname)
    .replace(/\/{2,}/g, "/")
    .toLowerCase();
  // As written, and as a client or proxy would resolve its dot segments (`/%2e%2e/v1/…` is `/v1/…`).
  for (const form of p.includes("/.") ? [p, withoutDotSegments(p)] : [p]) {
    if (form === "/v1" || form.startsWith("/v1/")) return "v1";
    if (form.startsWith("/api/") || form === "/api") return isOwnEndpoint(pathname) ? null : "api";
  }
  return null;
}

/** The path with `.` and `..` segments resolved, as RFC 3986 removes them. */
function withoutDotSegments(path: string): string {
  const out: string[] = [];
  for (const seg of path.split("/").slice(1)) {
    if (seg === "..") out.pop();
    else if (seg !== ".") out.push(seg);
  }
  return `/${out.join("/")}`;
}

/** Paths served by the REST door: `/v1/*` and `/api/*` except the app's own endpoints. */
export function isRestPath(pathname: string): boolean {
  return restKindOf(pathname) !== null;
}
