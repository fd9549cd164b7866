import { describe, expect, it } from "vitest";
import { initTRPC, TRPCError } from "@trpc/server";
import { z } from "zod";
import { AppError } from "@/server/errors";
import type { RestContext } from "@/server/rest/context";
import { mapError } from "@/server/rest/errors";
import type { RestOperationMeta } from "@/server/rest/meta";
import { restOperation } from "@/server/rest/operations";
import { restProcedure, restRouterOf } from "@/server/rest/trpc";

// The door runs a REST operation's parts without tRPC's caller (src/server/rest/operations.ts). What
// it must give is what tRPC's own caller gives for the procedure built from the same parts and the
// same input: the answer, and the error (its class, code, message and cause) that the door maps to
// the API's envelope.
const meta: RestOperationMeta = { openapi: { method: "POST", path: "/v1/test" }, rest: { auth: "bearer", errors: [] } };
const ctx = { auth: { merchantId: "m_1" } } as unknown as RestContext;

const declared = restProcedure(meta, {
  input: z.object({ n: z.number().int(), tag: z.string().trim().optional() }),
  output: z.object({ doubled: z.number().max(100), tag: z.string().nullable() }),
  resolve: async ({ ctx, input }) => {
    if (input.n === 7) throw new AppError("INVALID_PAN");
    if (input.n === 8) throw new TypeError("a bug");
    // Keys the output schema does not know are dropped by it; a too-big number fails it.
    return { doubled: input.n * 2, tag: input.tag ?? null, merchant: ctx.auth.merchantId };
  },
});
const caller = initTRPC
  .context<RestContext>()
  .create()
  .createCallerFactory(restRouterOf({ op: declared.procedure }))(ctx);
const op = restOperation(declared);

/** What a call settles with, comparable across the two paths. */
async function outcome(run: () => Promise<unknown>) {
  try {
    return { value: await run() };
  } catch (err) {
    const e = err as Error & { code?: string; cause?: unknown };
    const cause = e instanceof TRPCError ? e.cause : e;
    return {
      trpc: e instanceof TRPCError,
      code: e.code,
      message: e instanceof TRPCError ? e.message : undefined,
      cause: cause instanceof Error ? { name: cause.name, message: cause.message } : cause,
      mapped: mapError(err, {}, meta.rest, "req_1"),
    };
  }
}

describe("a REST operation runs its procedure as tRPC's caller does", () => {
  it.each([
    ["an answer, the output schema applied", { n: 3, tag: "  a " }],
    ["an input the schema refuses", { n: 1.5 }],
    ["an input of the wrong type", "not an object"],
    ["an output the schema refuses", { n: 60 }],
    ["the resolver's AppError", { n: 7 }],
    ["an unexpected error in the resolver", { n: 8 }],
  ])("%s", async (_name, input) => {
    const expected = await outcome(() => caller.op(input as never));
    expect(await outcome(() => op.run(ctx, input))).toEqual(expected);
  });

  it("gives the answer the output schema shaped", async () => {
    expect(await op.run(ctx, { n: 3, tag: "  a " })).toEqual({ doubled: 6, tag: "a" });
  });
});
