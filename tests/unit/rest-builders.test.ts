import { describe, expect, it } from "vitest";
import { z } from "zod";
import { bearerProcedure, kycProcedure, merchantProcedure, restRouterOf } from "@/server/rest/trpc";
import type { RestOperationMeta } from "@/server/rest/meta";

const meta = (auth: "bearer" | "merchant" | "kyc"): RestOperationMeta => ({ openapi: { method: "POST", path: "/v1/x" }, rest: { auth, errors: [] } });
const builders = { bearer: bearerProcedure, merchant: merchantProcedure, kyc: kycProcedure };
const procedureOf = (builder: keyof typeof builders, declared: keyof typeof builders) =>
  builders[builder]
    .meta(meta(declared))
    .input(z.object({}))
    .output(z.object({}))
    .mutation(() => ({}));

describe("REST procedure builders", () => {
  it("build a router when every procedure declares its builder's credentials", () => {
    expect(() => restRouterOf({ a: procedureOf("bearer", "bearer"), b: procedureOf("merchant", "merchant"), c: procedureOf("kyc", "kyc") })).not.toThrow();
  });

  it("refuse to build a router with a procedure that declares other credentials than its builder's", () => {
    expect(() => restRouterOf({ a: procedureOf("bearer", "merchant") })).toThrow(/a declares merchant credentials but was built for bearer/);
    expect(() => restRouterOf({ nested: restRouterOf({}), b: procedureOf("kyc", "bearer") })).toThrow(/b declares bearer/);
  });

  it("hold for the product's own REST router", async () => {
    const { restRouter } = await import("@/server/api/rest-router");
    expect(Object.keys(restRouter._def.procedures).length).toBeGreaterThan(10);
  });
});
