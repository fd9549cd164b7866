import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REST_OPERATIONS } from "@/server/api/rest-router";
import { methodLabel, nameRoute, routeSeries, statusClass, timeRequest } from "@/server/metrics/http";
import { processMetrics } from "@/server/metrics/registry";
import { PAGE_ROUTES, pageRouteTemplate, templateLabel, UNMATCHED } from "@/server/metrics/route-templates";
import { buildOpenApiDocument } from "@/server/openapi";
import { routeTable } from "@/server/rest/routes";
import { parseScrape, valueOf } from "../helpers/prometheus";

const root = path.resolve(__dirname, "../..");

/** Every page and route handler under src/app, as the URL path Next serves it at (route groups left out). */
function appRoutes(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "page.tsx" || entry.name === "route.ts") {
        const segments = path.relative(path.join(root, "src/app"), dir).split(path.sep).filter(Boolean);
        found.push("/" + segments.filter((s) => !/^\(.*\)$/.test(s)).join("/"));
      }
    }
  };
  walk(path.join(root, "src/app"));
  return found.sort();
}

describe("route templates of the requests outside the REST door", () => {
  it("list every page and route handler under src/app, and nothing else", () => {
    expect([...PAGE_ROUTES].sort()).toEqual(appRoutes());
  });

  it.each([
    ["/", "/"],
    ["/login", "/login"],
    ["/dashboard/", "/dashboard"],
    ["/dashboard/batches", "/dashboard/batches"],
    ["/dashboard/batches/batch_8fK2mQ7xLp3Rt9Za", "/dashboard/batches/{batchId}"],
    ["/dashboard/payments/pay_1763806530123_Xk2P", "/dashboard/payments/{paymentId}"],
    ["/dashboard/logs/req_abc", "/dashboard/logs/{requestId}"],
    ["/admin/merchants/mer_9x8y7z", "/admin/merchants/{id}"],
    ["/checkout/pay_1763806530123_Xk2P", "/checkout/{paymentId}"],
    ["/checkout/pay_1763806530123_Xk2P/bank", "/checkout/{paymentId}/bank"],
    ["/api/trpc/payments.list", "/api/trpc/{trpc}"],
    ["/api/trpc/batches.preview,batches.create", "/api/trpc/{trpc}"],
    ["/api/auth/session", "/api/auth/{nextauth}"],
    ["/api/auth/callback/credentials", "/api/auth/{nextauth}"],
    ["/api/dashboard/batches/batch_1/export", "/api/dashboard/batches/{batchId}/export"],
    ["/api/dashboard/payments/export", "/api/dashboard/payments/export"],
    ["/api/health", "/api/health"],
    ["/api/ready", "/api/ready"],
    ["/api/openapi.json", "/api/openapi.json"],
    ["/api/providers/cashfree/webhook", "/api/providers/cashfree/webhook"],
    ["/metrics", "/metrics"],
    ["/docs", "/docs"],
    ["/docs/assets/swagger-ui.css", "/docs/assets/{file}"],
    ["/_next/static/chunks/app/page-1a2b3c.js", "/_next/{asset}"],
    ["/_next/image", "/_next/{asset}"],
    ["/favicon.ico", "/favicon.ico"],
  ])("%s is %s", (pathname, template) => {
    expect(pageRouteTemplate(pathname)).toBe(template);
  });

  it.each([
    "/wp-login.php",
    "/dashboard//payments",
    "/dashboard/payments/pay_1/extra",
    "/checkout/pay_1/card",
    "/checkout",
    "/_next",
    "/docs/assets",
    "/api/trpc",
    "/Dashboard",
    "",
    "dashboard",
    "//",
    "/dashboard//",
  ])("%s is unmatched", (pathname) => {
    expect(pageRouteTemplate(pathname)).toBe(UNMATCHED);
  });

  it("never makes a label of an id: a thousand different ids give one template", () => {
    const labels = new Set(Array.from({ length: 1000 }, (_, i) => pageRouteTemplate(`/checkout/pay_${Date.now()}_${i.toString(36)}/bank`)));
    expect([...labels]).toEqual(["/checkout/{paymentId}/bank"]);
  });

  it("writes Next's folder names as the API's path templates", () => {
    expect(templateLabel("/checkout/[paymentId]/bank")).toBe("/checkout/{paymentId}/bank");
    expect(templateLabel("/api/auth/[...nextauth]")).toBe("/api/auth/{nextauth}");
  });
});

describe("route templates of the REST door", () => {
  it("are the API document's paths, with each operation's method", async () => {
    const doc = JSON.parse(JSON.stringify(await buildOpenApiDocument("https://api.parakh.in"))) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    const labelled = routeTable(REST_OPERATIONS).map((r) => `${r.series.method} ${r.series.route}`);
    expect(labelled.sort()).toEqual(documented.sort());
  });
});

describe("labels", () => {
  it("keep the usual methods and fold every other spelling into OTHER", () => {
    expect(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].map(methodLabel)).toEqual(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
    expect(["get", "FOO", "CONNECT", "", undefined].map(methodLabel)).toEqual(["OTHER", "OTHER", "OTHER", "OTHER", "OTHER"]);
  });

  it("class statuses by their first digit", () => {
    expect([101, 200, 204, 302, 404, 429, 500, 503].map(statusClass)).toEqual(["1xx", "2xx", "2xx", "3xx", "4xx", "4xx", "5xx", "5xx"]);
  });
});

describe("request timing over HTTP", () => {
  let server: http.Server;
  let base: string;
  const ROUTE = "/unit/{thing}";

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const named = req.url!.startsWith("/named/");
      timeRequest(res, named ? routeSeries("GET", ROUTE) : null);
      if (req.url === "/late") nameRoute(res, routeSeries("POST", ROUTE));
      res.statusCode = req.url!.endsWith("/missing") ? 404 : 200;
      setTimeout(() => res.end("ok"), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("counts each answered request once under its route and status class, its time in the histogram", async () => {
    for (const p of ["/named/a", "/named/b", "/named/missing", "/late", "/somewhere/else"]) await fetch(base + p).then((r) => r.text());
    const text = await processMetrics().registry.metrics();
    const f = parseScrape(text);
    const count = (method: string, route: string, cls: string) => valueOf(f, "parakh_http_requests_total", { method, route, status_class: cls });
    expect(count("GET", ROUTE, "2xx")).toBe(2);
    expect(count("GET", ROUTE, "4xx")).toBe(1);
    expect(count("POST", ROUTE, "2xx")).toBe(1);
    expect(count("GET", UNMATCHED, "2xx")).toBeGreaterThanOrEqual(1);
    // Each took at least the 20 ms the handler waited: none in the buckets below 10 ms... and 2 by 10 s.
    expect(text).toContain(`parakh_http_request_duration_seconds_bucket{le="0.01",method="GET",route="${ROUTE}",status_class="2xx"} 0\n`);
    expect(text).toContain(`parakh_http_request_duration_seconds_bucket{le="10",method="GET",route="${ROUTE}",status_class="2xx"} 2\n`);
  });
});
