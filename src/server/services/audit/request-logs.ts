import type { LogFilters, StatusClass } from "@/lib/schemas/logs";
import type { Mode } from "@/lib/mode";
import type { Db } from "@/server/db/client";
import { containsIgnoringAsciiCase } from "@/server/db/text-search";
import { AppError } from "@/server/errors";
import { istDayRange } from "@/server/lib/ist";
import { afterCursor, encodeCursor, newestFirst, toPage } from "@/server/lib/pagination";

const STATUS_RANGES: Record<StatusClass, { gte: number; lt: number }> = {
  "2xx": { gte: 200, lt: 300 },
  "4xx": { gte: 400, lt: 500 },
  "5xx": { gte: 500, lt: 600 },
};

/**
 * The path search ignores the case of ASCII letters (`/V1/IDENTITY` finds `/v1/identity/pan`) and
 * matches every other character literally. LIKE treats % and _ as wildcards (and a backslash as an
 * escape on PostgreSQL), so the database only narrows by the longest plain run of the text, without
 * case (containsIgnoringAsciiCase), and the match is checked here: the same answers on both databases.
 */
function pathPrefilter(text: string): string | null {
  const runs = text.split(/[%_\\]/).sort((a, b) => b.length - a.length);
  return runs[0] ? runs[0] : null;
}

/** Lower-cases A–Z only, as SQLite's LIKE compares: other letters must match exactly on both databases. */
function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function pathMatches(path: string, text: string): boolean {
  return foldAscii(path).includes(foldAscii(text));
}

function logFilterWhere(db: Db, f: LogFilters) {
  const pathRun = f.path ? pathPrefilter(f.path) : null;
  return {
    ...(pathRun ? { path: containsIgnoringAsciiCase(db, pathRun) } : {}),
    ...(f.statusClass ? { status: STATUS_RANGES[f.statusClass] } : {}),
    ...istDayRange(f.from, f.to),
    ...(f.requestId ? { requestId: f.requestId } : {}),
  };
}

/** Rows scanned for one page of a path search before handing back a shorter page and a cursor. */
const PATH_SCAN_LIMIT = 5000;

const listColumns = {
  id: true,
  requestId: true,
  createdAt: true,
  method: true,
  path: true,
  status: true,
  latencyMs: true,
  clientIp: true,
  errorCode: true,
} as const;

/** A merchant's REST calls in one mode, newest first. */
export async function listRequestLogs(db: Db, merchantId: string, mode: Mode, input: LogFilters & { cursor?: string; limit: number }) {
  const where = { merchantId, mode, ...logFilterWhere(db, input) };
  const fetch = (after: string | undefined, take: number) =>
    db.auditLog.findMany({ where: { ...where, AND: [afterCursor(after)] }, orderBy: newestFirst, take, select: listColumns });
  const { limit, path: text } = input;
  if (!text) {
    const { rows: items, nextCursor } = toPage(await fetch(input.cursor, limit + 1), limit);
    return { items, nextCursor };
  }
  // Path search: walk the prefiltered rows (nearly always exact already) until a page of exact matches.
  const batch = Math.max(200, limit + 1);
  const matches: Awaited<ReturnType<typeof fetch>> = [];
  let after = input.cursor;
  for (let scanned = 0; ;) {
    const rows = await fetch(after, batch);
    for (const r of rows) {
      if (pathMatches(r.path, text)) matches.push(r);
      if (matches.length > limit) return { items: matches.slice(0, limit), nextCursor: encodeCursor(matches[limit - 1]!) };
    }
    if (rows.length < batch) return { items: matches, nextCursor: null };
    after = encodeCursor(rows[rows.length - 1]!);
    scanned += rows.length;
    if (scanned >= PATH_SCAN_LIMIT) return { items: matches, nextCursor: after };
  }
}

/** Stored bodies are redacted JSON text; shown indented, or as stored when not JSON. */
function pretty(body: string | null): string | null {
  if (body === null) return null;
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** One call in full (redacted bodies); NOT_FOUND for another merchant's or mode's record. */
export async function getRequestLog(db: Db, merchantId: string, mode: Mode, requestId: string, id?: string) {
  // A client may reuse its own X-Request-Id, so one id can name several records; newest first.
  const records = await db.auditLog.findMany({
    where: { requestId, merchantId, mode },
    orderBy: newestFirst,
    take: 20,
  });
  const record = (id && records.find((r) => r.id === id)) || records[0];
  if (!record) throw new AppError("NOT_FOUND", `No request ${requestId} in ${mode} mode.`);
  const key = record.apiKeyId
    ? await db.apiKey.findFirst({ where: { id: record.apiKeyId, merchantId }, select: { label: true, publicKey: true, mode: true, revokedAt: true } })
    : null;
  return {
    id: record.id,
    requestId: record.requestId,
    createdAt: record.createdAt,
    method: record.method,
    path: record.path,
    status: record.status,
    errorCode: record.errorCode,
    latencyMs: record.latencyMs,
    clientIp: record.clientIp,
    userAgent: record.userAgent,
    apiKey: key ? { label: key.label, publicKeyPrefix: `${key.publicKey.slice(0, 16)}…`, revoked: key.revokedAt !== null } : null,
    requestBody: pretty(record.requestBody),
    responseBody: pretty(record.responseBody),
    sameRequestId: records
      .filter((r) => r.id !== record.id)
      .map((r) => ({ id: r.id, createdAt: r.createdAt, method: r.method, path: r.path, status: r.status })),
  };
}
