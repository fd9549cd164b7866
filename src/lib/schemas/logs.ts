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

/**
 * An id typed into a filter box and matched exactly: at most `max` of [A-Za-z0-9_-]. The messages
 * name it (`idFilterSchema("batch id", 64)`: "Enter a batch id", "Batch ids are at most 64 characters").
 */
export function idFilterSchema(noun: string, max: number) {
  const plural = `${noun.charAt(0).toUpperCase()}${noun.slice(1)}s`;
  return z
    .string()
    .trim()
    .min(1, `Enter ${/^[aeiou]/i.test(noun) ? "an" : "a"} ${noun}`)
    .max(max, `${plural} are at most ${max} characters`)
    .regex(/^[A-Za-z0-9_-]+$/, `${plural} use only letters, digits, _ and -`);
}

/** Request ids are ours (`req_…`) or a client's echoed X-Request-Id: at most 64 of [A-Za-z0-9_-]. */
export const requestIdSchema = idFilterSchema("request id", 64);

/** A filter's IST day range must not end before it starts; the error sits on `to`. */
const datesInOrder = (f: unknown) => {
  const { from, to } = f as { from?: string; to?: string };
  return !from || !to || from <= to;
};
const DATES_OUT_OF_ORDER = { path: ["to"], message: "The end date is before the start date" };

/** A list's filters plus its page: the procedure's input. */
export const withPage = <T extends z.ZodRawShape>(fields: T) => z.object({ ...fields, cursor: cursorSchema.optional(), limit: limitSchema });

/**
 * A list's filters with an IST day range (`from` and `to`: whole IST days, inclusive, in order): the
 * filters' schema, the list procedure's input (the filters and a page), and the filters as a URL
 * query both ways. `names` maps every filter, dates included, to its query parameter, in the order
 * the query lists them.
 */
export function datedListFilters<S extends z.ZodRawShape>(fields: S, names: Record<keyof S | "from" | "to", string>) {
  const shape = { ...fields, from: istDateSchema.optional(), to: istDateSchema.optional() };
  const schema = z.object(shape).refine(datesInOrder, DATES_OUT_OF_ORDER);
  type Filters = z.infer<typeof schema>;
  const queryNames = names as { [K in keyof Filters]-?: string };
  return {
    schema,
    listInput: withPage(shape).refine(datesInOrder, DATES_OUT_OF_ORDER),
    /** Filters as they appear in a URL query; values that are not valid are dropped and reported. */
    fromQuery: (q: { get(name: string): string | null }) => filtersFromQuery<Filters>(schema, queryNames, q),
    /** The URL query of a set of filters (the names fromQuery reads), after any `extra` parameters. */
    toQuery: (f: Filters, extra: Record<string, string> = {}) => filtersToQuery(f, queryNames, extra),
  };
}

const logList = datedListFilters(
  {
    /** Text found anywhere in the path or its query string, e.g. /v1/identity. */
    path: z.string().trim().min(1).max(200, "At most 200 characters").optional(),
    statusClass: statusClassSchema.optional(),
    requestId: requestIdSchema.optional(),
  },
  // The status class is `status` in the URL.
  { path: "path", statusClass: "status", from: "from", to: "to", requestId: "requestId" },
);

export const logFiltersSchema = logList.schema;
export type LogFilters = z.infer<typeof logFiltersSchema>;
export const logsListInput = logList.listInput;
export const logFiltersFromQuery = logList.fromQuery;
export const logFiltersToQuery = logList.toQuery;

export const logsGetInput = z.object({
  requestId: requestIdSchema,
  /** One record when several requests carried the same client-chosen id. */
  id: z.string().max(64).optional(),
});
