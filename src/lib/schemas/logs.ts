import { z } from "zod";
import { filtersFromQuery, filtersToQuery } from "@/lib/url-filters";

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

/** A filter's IST day range must not end before it starts; the error sits on `to`. */
export const withDatesInOrder = <S extends z.ZodType<{ from?: string; to?: string }>>(schema: S) =>
  schema.refine((f) => !f.from || !f.to || f.from <= f.to, { path: ["to"], message: "The end date is before the start date" });

/** A list's filters plus its page: the procedure's input. */
export const withPage = <T extends z.ZodRawShape>(fields: T) => z.object({ ...fields, cursor: cursorSchema.optional(), limit: limitSchema });

export const logFiltersSchema = withDatesInOrder(z.object(logFilterFields));
export type LogFilters = z.infer<typeof logFiltersSchema>;

export const logsListInput = withDatesInOrder(withPage(logFilterFields));

export const logsGetInput = z.object({
  requestId: requestIdSchema,
  /** One record when several requests carried the same client-chosen id. */
  id: z.string().max(64).optional(),
});

/** The filters' URL query names (the status class is `status`). */
const LOG_QUERY_NAMES = { path: "path", statusClass: "status", from: "from", to: "to", requestId: "requestId" } as const;

/** Filters as they appear in the page's URL query; unknown or empty values are dropped. */
export const logFiltersFromQuery = (q: { get(name: string): string | null }) => filtersFromQuery<LogFilters>(logFiltersSchema, LOG_QUERY_NAMES, q);

/** The URL query for a set of filters (the same names logFiltersFromQuery reads). */
export const logFiltersToQuery = (f: LogFilters) => filtersToQuery(f, LOG_QUERY_NAMES);
