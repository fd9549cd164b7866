/**
 * Per-request HTTP metrics at the cost of one histogram observation: each route's label children
 * are made once (per status class, on first use) and a request carries its route and start time on
 * the response itself, read by one shared `finish` listener, so answering makes no closures.
 */
import { ServerResponse, type IncomingMessage } from "node:http";
import type { Histogram } from "prom-client";
import { processMetrics, type HttpLabel } from "@/server/metrics/registry";
import { pageRouteTemplate, UNMATCHED } from "@/server/metrics/route-templates";

type Child = ReturnType<Histogram<HttpLabel>["labels"]>;

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The method as a label: the usual ones as they are, anything else (`FOO`, `get`) as `OTHER`. */
export function methodLabel(method: string | undefined): string {
  return method !== undefined && METHODS.has(method) ? method : "OTHER";
}

/** `200` → `2xx`; a status outside 100–599 (none is sent) would be `other`. */
export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : "other";
}

/** One method and route template: its histogram children, one per status class. */
export class RouteSeries {
  private readonly byClass: (Child | undefined)[] = [undefined, undefined, undefined, undefined, undefined, undefined, undefined];

  constructor(
    readonly method: string,
    readonly route: string,
  ) {}

  observe(status: number, seconds: number): void {
    const k = status >= 100 && status < 600 ? (status / 100) | 0 : 6;
    let child = this.byClass[k];
    if (child === undefined) child = this.byClass[k] = processMetrics().requestDuration.labels(this.method, this.route, statusClass(status));
    child.observe(seconds);
  }
}

const seriesByRoute = new Map<string, Map<string, RouteSeries>>();

/** The series of a method (as a label) and route template, made on first use and kept. */
export function routeSeries(method: string, route: string): RouteSeries {
  let byMethod = seriesByRoute.get(route);
  if (!byMethod) seriesByRoute.set(route, (byMethod = new Map()));
  let series = byMethod.get(method);
  if (!series) byMethod.set(method, (series = new RouteSeries(method, route)));
  return series;
}

const STARTED = Symbol("parakh.metrics.started");
const SERIES = Symbol("parakh.metrics.series");

interface Timed extends ServerResponse {
  [STARTED]: number;
  [SERIES]: RouteSeries | null;
}

/**
 * The server's response class (`http.createServer({ ServerResponse: TimedResponse })`): the timing
 * fields are part of every response's shape from the start, so setting them per request is a plain
 * store. Any other ServerResponse can be timed too, at the cost of adding the fields to it.
 */
export class TimedResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> implements Timed {
  [STARTED] = 0;
  [SERIES]: RouteSeries | null = null;
}

function answered(this: Timed) {
  const series = this[SERIES] ?? routeSeries(methodLabel(this.req.method), UNMATCHED);
  series.observe(this.statusCode, (performance.now() - this[STARTED]) / 1000);
}

/**
 * Starts timing a request; it is counted when its answer has been handed to the connection (a
 * request whose client left first is not). `series` null: the route is not known yet (the REST door
 * names it with `nameRoute`; left unnamed, the request is `unmatched`).
 */
export function timeRequest(res: ServerResponse, series: RouteSeries | null): void {
  const timed = res as Timed;
  timed[STARTED] = performance.now();
  timed[SERIES] = series;
  res.on("finish", answered);
}

export function nameRoute(res: ServerResponse, series: RouteSeries): void {
  (res as Timed)[SERIES] = series;
}

/** The series of a request outside the REST door: pages, their API routes, assets, the server's own endpoints. */
export function pageSeries(method: string | undefined, pathname: string): RouteSeries {
  return routeSeries(methodLabel(method), pageRouteTemplate(pathname));
}
