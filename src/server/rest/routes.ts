import type { RestOperation } from "@/server/rest/operations";
import type { RestMeta } from "@/server/rest/meta";
import { routeSeries, type RouteSeries } from "@/server/metrics/http";

export interface RestRoute {
  method: string;
  path: string;
  /** `{param}` segments become named groups of one non-empty segment; literal segments match as written. */
  pattern: RegExp;
  rest: RestMeta;
  operation: RestOperation;
  /** Its request metrics, labelled with its method and OpenAPI path. */
  series: RouteSeries;
}

/** One route of the table: its OpenAPI path (e.g. `/api/payments/{paymentId}/status`) as a pattern. */
function restRoute(operation: RestOperation): RestRoute {
  const { method, path } = operation.meta.openapi;
  const source = path
    .split("/")
    .map((seg) => {
      const param = /^\{(.+)\}$/.exec(seg)?.[1];
      return param ? `(?<${param}>[^/]+)` : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return { method, path, pattern: new RegExp(`^${source}$`), rest: operation.meta.rest, operation, series: routeSeries(method, path) };
}

/** The door's routes, from the REST operation table; used for matching, 404/405 and body limits. */
export function routeTable(operations: RestOperation[]): RestRoute[] {
  return operations.map(restRoute);
}

export type RouteMatch =
  | {
      kind: "found";
      route: RestRoute;
      /** Path parameters, percent-decoded exactly once. */
      params: Record<string, string>;
    }
  | { kind: "wrong-method"; allow: string[]; /** The path's template. */ path: string }
  | { kind: "none" };

/** Each value decoded once, or null when one is not valid percent-encoded UTF-8. */
function decodeParams(groups: Record<string, string> | undefined): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (const [name, raw] of Object.entries(groups ?? {})) {
    try {
      params[name] = decodeURIComponent(raw);
    } catch {
      return null;
    }
  }
  return params;
}

/**
 * The route for a request path. Path parameters are decoded once here, before anything reads or
 * measures them (`batch%5Fabc` is the id `batch_abc`); a path whose parameter cannot be decoded
 * names no resource and matches no route.
 */
export function matchRoute(routes: RestRoute[], method: string, pathname: string): RouteMatch {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  const allow: string[] = [];
  let template = "";
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    const params = decodeParams(m.groups);
    if (!params) continue;
    if (r.method === method) return { kind: "found", route: r, params };
    allow.push(r.method);
    template = r.path;
  }
  return allow.length ? { kind: "wrong-method", allow, path: template } : { kind: "none" };
}
