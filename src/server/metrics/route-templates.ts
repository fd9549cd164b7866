/**
 * Route templates for the requests the REST door does not route: the pages, their API routes
 * (tRPC, sign-in, CSV exports), Next's own assets and this server's own endpoints. Metrics label a
 * request with its template, never its raw path, so ids never become label values and the number
 * of series stays fixed; a path that fits no template is `unmatched`.
 *
 * Written in Next's folder syntax (`[param]`, `[...rest]`, route groups left out), so the list can
 * be held to the pages under src/app by a test.
 */
export const PAGE_ROUTES = [
  "/",
  "/login",
  "/signup",
  "/forgot-password",
  "/reset-password",
  "/docs",
  "/dashboard",
  "/dashboard/batches",
  "/dashboard/batches/[batchId]",
  "/dashboard/keys",
  "/dashboard/kyc",
  "/dashboard/kyc/[id]",
  "/dashboard/logs",
  "/dashboard/logs/[requestId]",
  "/dashboard/payments",
  "/dashboard/payments/[paymentId]",
  "/dashboard/refunds",
  "/dashboard/settings",
  "/dashboard/verifications",
  "/dashboard/wallet",
  "/dashboard/webhooks",
  "/dashboard/whitelist",
  "/admin",
  "/admin/activity",
  "/admin/merchants/[id]",
  "/admin/outbox",
  "/checkout/[paymentId]",
  "/checkout/[paymentId]/bank",
  "/api/auth/[...nextauth]",
  "/api/dashboard/batches/[batchId]/export",
  "/api/dashboard/kyc/export",
  "/api/dashboard/payments/export",
  "/api/dashboard/refunds/export",
  "/api/dashboard/verifications/export",
  "/api/dashboard/wallet/export",
  "/api/trpc/[trpc]",
] as const;

/** Served by this server or by Next outside src/app's pages. */
export const OWN_ROUTES = [
  "/api/health",
  "/api/ready",
  "/api/openapi.json",
  "/api/providers/cashfree/webhook",
  "/metrics",
  "/docs/assets/[...file]",
  "/_next/[...asset]",
  "/favicon.ico",
  "/icon.svg",
] as const;

export const UNMATCHED = "unmatched";

interface Node {
  literal: Map<string, Node>;
  param: Node | null;
  /** The template of a path that ends here. */
  template: string | null;
  /** The template of a catch-all segment here: any non-empty rest of the path. */
  rest: string | null;
}

const node = (): Node => ({ literal: new Map(), param: null, template: null, rest: null });

/** `/checkout/[paymentId]/bank` → `/checkout/{paymentId}/bank`, the form the API's own paths use. */
export function templateLabel(route: string): string {
  return route.replace(/\[\.\.\.([^\]]+)\]/g, "{$1}").replace(/\[([^\]]+)\]/g, "{$1}");
}

function buildTree(routes: readonly string[]): Node {
  const root = node();
  for (const route of routes) {
    const label = templateLabel(route);
    let at = root;
    const segments = route === "/" ? [] : route.slice(1).split("/");
    for (const seg of segments) {
      if (seg.startsWith("[...")) {
        at.rest = label;
        break;
      }
      if (seg.startsWith("[")) at = at.param ??= node();
      else {
        let next = at.literal.get(seg);
        if (!next) at.literal.set(seg, (next = node()));
        at = next;
      }
    }
    if (!segments.at(-1)?.startsWith("[...")) at.template = label;
  }
  return root;
}

const TREE = buildTree([...PAGE_ROUTES, ...OWN_ROUTES]);

/**
 * The template a path (no query) belongs to, or `unmatched`. Literal segments win over parameters,
 * a trailing slash is ignored, and an empty segment (`//`) names no route.
 */
export function pageRouteTemplate(pathname: string): string {
  if (pathname[0] !== "/" || pathname.endsWith("//")) return UNMATCHED;
  let at: Node = TREE;
  let start = 1;
  const end = pathname.length > 1 && pathname.endsWith("/") ? pathname.length - 1 : pathname.length;
  while (start < end) {
    const slash = pathname.indexOf("/", start);
    const stop = slash === -1 || slash > end ? end : slash;
    if (stop === start) return UNMATCHED;
    const seg = pathname.slice(start, stop);
    const next = at.literal.get(seg) ?? at.param;
    if (!next) return at.rest ?? UNMATCHED;
    at = next;
    start = stop + 1;
  }
  return at.template ?? UNMATCHED;
}
