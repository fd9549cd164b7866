import { TRPCError, type AnyProcedure } from "@trpc/server";
import type { RestContext } from "@/server/rest/context";
import type { RestOperationMeta } from "@/server/rest/meta";

/** One REST operation as the door serves it: its route and REST facts, and the procedure that answers. */
export interface RestOperation {
  /** The same object the procedure declares with `.meta()`. */
  meta: RestOperationMeta;
  /** Runs the procedure with the door's context; the procedure validates the input against its schema. */
  run: (ctx: RestContext, input: unknown) => Promise<unknown>;
}

interface Schema {
  parseAsync(value: unknown): Promise<unknown>;
}

/** What tRPC keeps of a built procedure: its schemas, its middleware chain (tagged by kind) and its resolver. */
interface ProcedureParts {
  type: string;
  meta: unknown;
  inputs: unknown[];
  output?: unknown;
  middlewares: { _type?: string }[];
  resolver: (opts: Record<string, unknown>) => Promise<unknown>;
}

/** What tRPC makes of an error its resolver threw (its getTRPCErrorFromUnknown): the error itself, or an INTERNAL_SERVER_ERROR caused by it. */
function asTrpcError(cause: unknown): TRPCError {
  if (cause instanceof TRPCError) return cause;
  const error = new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause });
  if (cause instanceof Error && cause.stack) error.stack = cause.stack;
  return error;
}

function schemaOf(parser: unknown, what: string): Schema {
  if (parser && typeof (parser as Schema).parseAsync === "function") return parser as Schema;
  throw new Error(`a REST operation's ${what} must be a zod schema`);
}

/**
 * An operation from its meta and the procedure that serves it. A REST procedure is `.input()`,
 * `.output()` and a resolver, nothing else (checked here, when the route table is built), and is run
 * as tRPC's caller runs it (the input parsed, a failure a BAD_REQUEST TRPCError with the ZodError as
 * its cause; the resolver, whose errors come out as TRPCErrors caused by them; the output parsed, a
 * failure "Output validation failed") without the
 * caller's proxy and its middleware chain: those copied the call's options at each level and kept
 * about eight more suspended async frames per call, which a live call holds for the vendor's whole
 * latency (garbage collection grew with the calls in flight).
 */
export function restOperation(meta: RestOperationMeta, procedure: AnyProcedure): RestOperation {
  const def = (procedure as unknown as { _def: ProcedureParts })._def;
  const chain = def.middlewares.map((m) => m._type ?? "resolver").join(",");
  if (chain !== "input,output,resolver" || def.inputs.length !== 1) {
    throw new Error(
      `${meta.openapi.method} ${meta.openapi.path}: a REST procedure is .input(), .output() and its resolver, without other middleware (it has ${chain})`,
    );
  }
  const input = schemaOf(def.inputs[0], "input");
  const output = schemaOf(def.output, "output");
  const { type } = def;
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
        data = await def.resolver({
          ctx,
          input: parsed,
          meta: def.meta,
          type,
          path: meta.openapi.path,
          signal: undefined,
          batchIndex: 0,
          getRawInput: async () => rawInput,
        });
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
