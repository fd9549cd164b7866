import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isSameOriginRequest } from "@/server/http/same-origin";
import { lockInputTypes } from "@/server/rest/strict-input";
import { router } from "@/server/trpc/init";
import { publicProcedure } from "@/server/trpc/procedures";

describe("lockInputTypes", () => {
  it("keeps number and boolean fields strict when a library switches coercion on", () => {
    const input = z.object({ n: z.number().optional(), b: z.boolean().nullable(), nested: z.object({ m: z.number().default(1) }) });
    lockInputTypes(router({ p: publicProcedure.input(input).query(() => 1) }));
    // What trpc-to-openapi's coerceSchema does to every coercible field of an input object.
    const defs = [input.shape.n.unwrap(), input.shape.b.unwrap(), input.shape.nested.shape.m.unwrap()].map(
      (s) => (s as unknown as { _def: { coerce?: boolean } })._def,
    );
    for (const def of defs) def.coerce = true;
    expect(input.safeParse({ n: "0x10" }).success).toBe(false);
    expect(input.safeParse({ b: "true" }).success).toBe(false);
    expect(input.safeParse({ nested: { m: "2" } }).success).toBe(false);
    expect(input.parse({ n: 16, b: true, nested: { m: 2 } })).toEqual({ n: 16, b: true, nested: { m: 2 } });
  });

  it("is what coercion would otherwise do (the lock is needed)", () => {
    const loose = z.object({ n: z.number() });
    (loose.shape.n as unknown as { _def: { coerce?: boolean } })._def.coerce = true;
    expect(loose.parse({ n: "0x10" })).toEqual({ n: 16 });
  });
});

describe("isSameOriginRequest", () => {
  const host = "parakh.example:3000";
  it.each([
    ["1", null, true],
    ["1", "http://parakh.example:3000", true],
    ["1", "https://PARAKH.example:3000", true],
    [null, "http://parakh.example:3000", false],
    ["1", "null", false],
    ["1", "http://parakh.example:3000.evil.test", false],
    ["1", "http://evil.test", false],
    ["1", "not a url", false],
    ["1", "file://parakh.example:3000", false],
  ])("csrf=%s origin=%s → %s", (csrf, origin, expected) => {
    expect(isSameOriginRequest(csrf, origin, host)).toBe(expected);
  });
});
