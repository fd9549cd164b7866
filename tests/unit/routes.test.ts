import { describe, expect, it } from "vitest";
import { isRestPath } from "@/server/http/rest-door";
import type { RestMeta } from "@/server/rest/meta";
import type { RestOperation } from "@/server/rest/operations";
import { matchRoute, routeTable } from "@/server/rest/routes";

const rest: RestMeta = { auth: "bearer", errors: [] };

const operation = (method: "GET" | "POST" | "DELETE", path: `/${string}`): RestOperation => ({
  meta: { openapi: { method, path }, rest },
  run: async () => null,
});

const routes = routeTable([
  operation("POST", "/v1/identity/pan/verify"),
  operation("POST", "/v1/identity/pan/batch"),
  operation("GET", "/v1/identity/pan/batch/{batch_id}"),
  operation("GET", "/v1/identity/pan/batch/{batch_id}/results"),
  operation("POST", "/api/checkout"),
  operation("GET", "/api/payments/{paymentId}/status"),
  operation("GET", "/api/things"),
  operation("DELETE", "/api/things"),
]);

describe("matchRoute", () => {
  it("finds a route by method and path", () => {
    const m = matchRoute(routes, "POST", "/v1/identity/pan/verify");
    expect(m.kind).toBe("found");
    expect(m.kind === "found" && m.route.path).toBe("/v1/identity/pan/verify");
  });

  it("answers wrong-method with the allowed methods", () => {
    expect(matchRoute(routes, "GET", "/v1/identity/pan/verify")).toEqual({ kind: "wrong-method", allow: ["POST"], path: "/v1/identity/pan/verify" });
    expect(matchRoute(routes, "PUT", "/api/things")).toEqual({ kind: "wrong-method", allow: ["GET", "DELETE"], path: "/api/things" });
  });

  it("answers none for an unknown path", () => {
    expect(matchRoute(routes, "GET", "/v1/identity/pan")).toEqual({ kind: "none" });
    expect(matchRoute(routes, "POST", "/v1/identity/pan/verify/extra")).toEqual({ kind: "none" });
    expect(matchRoute(routes, "POST", "/api/checkouts")).toEqual({ kind: "none" });
    expect(matchRoute(routes, "GET", "/")).toEqual({ kind: "none" });
    expect(matchRoute([], "GET", "/api/things")).toEqual({ kind: "none" });
  });

  it("ignores trailing slashes", () => {
    expect(matchRoute(routes, "POST", "/v1/identity/pan/verify/").kind).toBe("found");
    expect(matchRoute(routes, "POST", "/api/checkout//").kind).toBe("found");
    expect(matchRoute(routes, "GET", "/api/checkout/")).toEqual({ kind: "wrong-method", allow: ["POST"], path: "/api/checkout" });
  });

  it("matches {param} segments as exactly one non-empty segment", () => {
    const found = matchRoute(routes, "GET", "/api/payments/pay_1700000000000_abc123/status");
    expect(found.kind === "found" && found.route.path).toBe("/api/payments/{paymentId}/status");
    expect(matchRoute(routes, "GET", "/api/payments//status").kind).toBe("none");
    expect(matchRoute(routes, "GET", "/api/payments/a/b/status").kind).toBe("none");
  });

  it("tells apart a path with a param from its longer sibling", () => {
    const batch = matchRoute(routes, "GET", "/v1/identity/pan/batch/batch_1");
    const results = matchRoute(routes, "GET", "/v1/identity/pan/batch/batch_1/results");
    expect(batch.kind === "found" && batch.route.path).toBe("/v1/identity/pan/batch/{batch_id}");
    expect(results.kind === "found" && results.route.path).toBe("/v1/identity/pan/batch/{batch_id}/results");
  });

  it("is case-sensitive on paths", () => {
    expect(matchRoute(routes, "POST", "/V1/identity/pan/verify").kind).toBe("none");
  });

  it("decodes path parameters exactly once", () => {
    const m = matchRoute(routes, "GET", "/v1/identity/pan/batch/batch%5Fabc/results/");
    expect(m).toMatchObject({ kind: "found", params: { batch_id: "batch_abc" } });
    // Once: %25 is a percent sign, not the start of another escape.
    expect(matchRoute(routes, "GET", "/api/payments/pay%255F1/status")).toMatchObject({ params: { paymentId: "pay%5F1" } });
    expect(matchRoute(routes, "GET", "/api/payments/a%2Fb/status")).toMatchObject({ params: { paymentId: "a/b" } });
    expect(matchRoute(routes, "GET", "/api/payments/a\\b/status")).toMatchObject({ params: { paymentId: "a\\b" } });
    expect(matchRoute(routes, "GET", "/api/payments/%E0%A4%B9/status")).toMatchObject({ params: { paymentId: "ह" } });
  });

  it("matches no route when a path parameter is not valid percent-encoded UTF-8", () => {
    for (const bad of ["%E0%A4%A", "%", "%zz", "%C0%AF", "ok%"]) {
      expect(matchRoute(routes, "GET", `/v1/identity/pan/batch/${bad}`), bad).toEqual({ kind: "none" });
      expect(matchRoute(routes, "POST", `/api/payments/${bad}/status`), bad).toEqual({ kind: "none" });
    }
  });
});

describe("routeTable", () => {
  const table = routeTable([operation("GET", "/api/payments/{paymentId}/status"), operation("GET", "/api/spec.json")]);

  it("takes each operation's method, path and REST facts from its meta", () => {
    expect(table.map((r) => `${r.method} ${r.path} ${r.rest.auth}`)).toEqual(["GET /api/payments/{paymentId}/status bearer", "GET /api/spec.json bearer"]);
  });

  it("builds patterns that match params and escape literal dots", () => {
    expect(matchRoute(table, "GET", "/api/payments/pay_1/status").kind).toBe("found");
    expect(matchRoute(table, "GET", "/api/spec.json").kind).toBe("found");
    expect(matchRoute(table, "GET", "/api/specXjson").kind).toBe("none");
  });
});

describe("isRestPath: which paths are the REST API", () => {
  it.each([
    "/v1",
    "/v1/identity/pan/verify",
    "/v1/employment/epfo/verify",
    "/v1/unknown",
    "/api/checkout",
    "/api/payments/verify",
    "/api/payments/pay_1/status",
    "/api/kyc/aadhaar/generate-otp",
    "/api/kyc/bank/verify",
    "/api/foo",
    // Look-alikes of the app's own endpoints, which Next would answer with an HTML page or a redirect.
    "/api/trpc",
    "/api/trpc/",
    "/api/trpcx",
    "/api/Trpc/merchant.list",
    "/api/%74rpc/merchant.list",
    "//api/trpc/merchant.list",
    "/api//trpc/merchant.list",
    "/api/trpc//merchant.list",
    "/api/trpc/%2e%2e/checkout",
    "/api/trpc/x/../../checkout",
    "/api/auth",
    "/api/authx",
    "/api/auth/",
    "/api/Auth/session",
    "/api/dashboard/",
    "/api/Health",
    "/api/health/",
    "/api/openapi.json/",
    "/api/%2e%2e/checkout",
    // Dot segments a client would resolve into the API: the door answers them (404 in the envelope).
    "/%2e%2e/v1/identity/pan/verify",
    "/%2E%2E/api/checkout",
    "/x/../v1/identity/pan/verify",
    "/./api/kyc/pan/verify",
  ])("%s is REST", (p) => {
    expect(isRestPath(p)).toBe(true);
  });

  it.each([
    "/api/trpc/merchant.list",
    "/api/trpc/batches.preview,batches.create",
    "/api/auth/session",
    "/api/auth/callback/credentials",
    "/api/health",
    "/api/ready",
    "/api/openapi.json",
    "/api/dashboard/payments/export",
    "/",
    "/dashboard",
    "/checkout/pay_1",
    "/v10/identity",
    "/v1identity",
    "/apix/checkout",
    "/%2e%2e/checkout/pay_1",
    "/v1x/../dashboard",
  ])("%s is not REST", (p) => {
    expect(isRestPath(p)).toBe(false);
  });
});

describe("hasDotSegment", () => {
  it("finds . and .. segments as sent or percent-encoded, and nothing else", async () => {
    const { hasDotSegment } = await import("@/server/rest/paths");
    for (const p of ["/v1/./identity", "/v1/identity/..", "/v1/%2e/identity", "/v1/%2E%2e/identity", "/api/.%2E/checkout"])
      expect(hasDotSegment(p), p).toBe(true);
    for (const p of ["/v1/identity/pan/verify", "/v1/a.b/x", "/v1/.../x", "/v1/%41/x", "/v1/%zz/x", "/v1//x", "/"]) expect(hasDotSegment(p), p).toBe(false);
  });
});
