import type { AnyRouter } from "@trpc/server";
import type { Meta, RestMeta } from "@/server/trpc/init";

export interface RestRoute {
  method: string;
  path: string;
  /** `{param}` segments become named groups of one non-empty segment; literal segments match as written. */
  pattern: RegExp;
  rest: RestMeta;
}

export const SINGLE_BODY_LIMIT = 1024 * 1024;
export const BATCH_BODY_LIMIT = 8 * 1024 * 1024;

/** One route of the table: `path` is the OpenAPI path, e.g. `/api/payments/{paymentId}/status`. */
export function restRoute(method: string, path: string, rest: RestMeta): RestRoute {
  const source = path
    .split("/")
    .map((seg) => {
      const param = /^\{(.+)\}$/.exec(seg)?.[1];
      return param ? `(?<${param}>[^/]+)` : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return { method, path, pattern: new RegExp(`^${source}$`), rest };
}

/** The REST routes of a router, from each procedure's OpenAPI meta; used for 404/405 and body limits. */
export function buildRouteTable(router: AnyRouter): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const procedure of Object.values(router._def.procedures) as { _def: { meta?: Meta } }[]) {
    const meta = procedure._def.meta;
    if (!meta?.openapi || !meta.rest) continue;
    routes.push(restRoute(meta.openapi.method, meta.openapi.path, meta.rest));
  }
  return routes;
}

export type RouteMatch =
  | {
      kind: "found";
      route: RestRoute;
      /** The route's path with its parameters encoded again, in one form every URL parser leaves as it is. */
      canonicalPath: string;
      /** Path parameters, percent-decoded exactly once. */
      params: Record<string, string>;
    }
  | { kind: "wrong-method"; allow: string[] }
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
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    const params = decodeParams(m.groups);
    if (!params) continue;
    if (r.method === method) {
      const canonicalPath = r.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name]!));
      return { kind: "found", route: r, canonicalPath, params };
    }
    allow.push(r.method);
  }
  return allow.length ? { kind: "wrong-method", allow } : { kind: "none" };
}
