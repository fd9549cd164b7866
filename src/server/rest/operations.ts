import { TRPCError } from "@trpc/server";
import type { RestContext } from "@/server/rest/context";
import type { RestOperationMeta } from "@/server/rest/meta";
import type { RestProcedure } from "@/server/rest/trpc";

/** One REST operation as the door serves it: its route and REST facts, and how it answers. */
export interface RestOperation {
  /** The same object its tRPC procedure is given with `.meta()`. */
  meta: RestOperationMeta;
  /** Runs the operation's resolver with the door's context, its input and its answer parsed by the operation's schemas. */
  run: (ctx: RestContext, input: unknown) => Promise<unknown>;
}

/** What tRPC makes of an error its resolver threw (its getTRPCErrorFromUnknown): the error itself, or an INTERNAL_SERVER_ERROR caused by it. */
function asTrpcError(cause: unknown): TRPCError {
  if (cause instanceof TRPCError) return cause;
  const error = new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause });
  if (cause instanceof Error && cause.stack) error.stack = cause.stack;
  return error;
}

/**
 * The door's operation from a REST procedure's parts (`restProcedure`), run as tRPC's caller runs the
 * procedure built from the same parts (the input parsed, a failure a BAD_REQUEST TRPCError with the
 * ZodError as its cause; the resolver, whose errors come out as TRPCErrors caused by them; the
 * output parsed, a failure "Output validation failed") without the caller's proxy and its middleware
 * chain: those copied the call's options at each level and kept about eight more suspended async
 * frames per call, which a live call holds for the vendor's whole latency (garbage collection grew
 * with the calls in flight).
 */
export function restOperation({ meta, input, output, resolve }: RestProcedure): RestOperation {
  return {
    meta,
    run: async (ctx, rawInput) => {
      let parsed: unknown;
      try {
        parsed = await input.parseAsync(rawInput);
      } catch (cause) {
        throw new TRPCError({ code: "BAD_REQUEST", cause });
      }
      let data: unknown;
      try {
        data = await resolve({ ctx, input: parsed });
      } catch (cause) {
        throw asTrpcError(cause);
      }
      try {
        return await output.parseAsync(data);
      } catch (cause) {
        throw new TRPCError({ message: "Output validation failed", code: "INTERNAL_SERVER_ERROR", cause });
      }
    },
  };
}
