import { z } from "zod";

// Browser-safe: the request-log filters, shared by the filter form (client validation) and logs.list.

export const STATUS_CLASSES = ["2xx", "4xx", "5xx"] as const;
export const statusClassSchema = z.enum(STATUS_CLASSES);
export type StatusClass = z.infer<typeof statusClassSchema>;

/** Page size of the dashboard's lists. */
export const PAGE_SIZE = 50;

/** Opaque "load more" cursor from a previous page. */
export const cursorSchema = z.string().max(200);
export const limitSchema = z.number().int().min(1).max(100).default(PAGE_SIZE);

/** A calendar day (YYYY-MM-DD), read as an IST day. */
export const istDateSchema = z.iso.date("Use a date like 2025-01-31");

/** Request ids are ours (`req_…`) or a client's echoed X-Request-Id: at most 64 of [A-Za-z0-9_-]. */
export const requestIdSchema = z
  .string()
  .trim()
  .min(1, "Enter a request id")
  .max(64, "Request ids are at most 64 characters")
  .regex(/^[A-Za-z0-9_-]+$/, "Request ids use only letters, digits, _ and -");

const logFilterFields = {
  /** Text found anywhere in the path or its query string, e.g. /v1/identity. */
  path: z.string().trim().min(1).max(200, "At most 200 characters").optional(),
  statusClass: statusClassSchema.optional(),
  from: istDateSchema.optional(),
  to: istDateSchema.optional(),
  requestId: requestIdSchema.optional(),
};

const datesInOrder = (f: { from?: string; to?: string }) => !f.from || !f.to || f.from <= f.to;
const datesOutOfOrder = { path: ["to"], message: "The end date is before the start date" };

export const logFiltersSchema = z.object(logFilterFields).refine(datesInOrder, datesOutOfOrder);
export type LogFilters = z.infer<typeof logFiltersSchema>;

export const logsListInput = z.object({ ...logFilterFields, cursor: cursorSchema.optional(), limit: limitSchema }).refine(datesInOrder, datesOutOfOrder);

export const logsGetInput = z.object({
  requestId: requestIdSchema,
  /** One record when several requests carried the same client-chosen id. */
  id: z.string().max(64).optional(),
});

/** Filters as they appear in the page's URL query; unknown or empty values are dropped. */
export function logFiltersFromQuery(q: { get(name: string): string | null }): { filters: LogFilters; errors: Record<string, string> } {
  const raw = {
    path: q.get("path") || undefined,
    statusClass: q.get("status") || undefined,
    from: q.get("from") || undefined,
    to: q.get("to") || undefined,
    requestId: q.get("requestId") || undefined,
  };
  const parsed = logFiltersSchema.safeParse(raw);
  if (parsed.success) return { filters: parsed.data, errors: {} };
  const errors = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? "form"), i.message]));
  // Keep the valid filters so one bad parameter in a shared link does not hide everything else.
  const filters: LogFilters = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined || k in errors) continue;
    const one = logFiltersSchema.safeParse({ [k]: v });
    if (one.success) Object.assign(filters, one.data);
  }
  return { filters, errors };
}

/** The URL query for a set of filters (the same names logFiltersFromQuery reads). */
export function logFiltersToQuery(f: LogFilters): string {
  const q = new URLSearchParams();
  if (f.path) q.set("path", f.path);
  if (f.statusClass) q.set("status", f.statusClass);
  if (f.from) q.set("from", f.from);
  if (f.to) q.set("to", f.to);
  if (f.requestId) q.set("requestId", f.requestId);
  const s = q.toString();
  return s ? `?${s}` : "";
}
