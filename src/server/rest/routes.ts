import type { AnyRouter } from "@trpc/server";
import type { Meta, RestMeta } from "@/server/trpc/init";

export interface RestRoute {
  method: string;
  path: string;
  pattern: RegExp;
  rest: RestMeta;
}

export const SINGLE_BODY_LIMIT = 1024 * 1024;
export const BATCH_BODY_LIMIT = 8 * 1024 * 1024;

/** The REST routes of a router, from each procedure's OpenAPI meta; used for 404/405 and body limits. */
export function buildRouteTable(router: AnyRouter): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const procedure of Object.values(router._def.procedures) as { _def: { meta?: Meta } }[]) {
    const meta = procedure._def.meta;
    if (!meta?.openapi || !meta.rest) continue;
    const source = meta.openapi.path
      .split("/")
      .map((seg) => (/^\{.+\}$/.test(seg) ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    routes.push({ method: meta.openapi.method, path: meta.openapi.path, pattern: new RegExp(`^${source}$`), rest: meta.rest });
  }
  return routes;
}

export type RouteMatch = { kind: "found"; route: RestRoute } | { kind: "wrong-method"; allow: string[] } | { kind: "none" };

export function matchRoute(routes: RestRoute[], method: string, pathname: string): RouteMatch {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  const allow: string[] = [];
  for (const r of routes) {
    if (!r.pattern.test(path)) continue;
    if (r.method === method) return { kind: "found", route: r };
    allow.push(r.method);
  }
  return allow.length ? { kind: "wrong-method", allow } : { kind: "none" };
}
