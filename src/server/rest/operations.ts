import type { RestContext } from "@/server/rest/context";
import type { RestOperationMeta } from "@/server/rest/meta";

/** One REST operation as the door serves it: its route and REST facts, and the procedure that answers. */
export interface RestOperation {
  /** The same object the procedure declares with `.meta()`. */
  meta: RestOperationMeta;
  /** Runs the procedure with the door's context; the procedure validates the input against its schema. */
  run: (ctx: RestContext, input: unknown) => Promise<unknown>;
}

/** An operation from its meta and the procedure that serves it, picked from a router's caller. */
export function restOperation<C, I>(
  meta: RestOperationMeta,
  createCaller: (ctx: RestContext) => C,
  pick: (caller: C) => (input: I) => Promise<unknown>,
): RestOperation {
  // The raw JSON goes in as it came: the procedure's input schema is what checks it.
  return { meta, run: (ctx, input) => pick(createCaller(ctx))(input as I) };
}
