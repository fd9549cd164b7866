import { initTRPC } from "@trpc/server";
import type { z } from "zod";
import { AppError } from "@/server/errors";
import type { RestContext } from "@/server/rest/context";
import type { RestOperationMeta, RestProcedureMeta } from "@/server/rest/meta";

/**
 * The REST operations' tRPC instance, apart from the dashboard's: its context is the door's. The
 * door authenticates (headers, before any body is read), validates bodies and turns every error
 * into the API's envelopes; procedures see an accepted key in `ctx.auth`.
 */
const t = initTRPC.context<RestContext>().meta<RestProcedureMeta>().create();

export const restRouterOf = t.router;

/** What a REST operation answers with: its input schema, its output schema and the resolver between them. */
export interface RestOperationParts<I extends z.ZodType, O extends z.ZodType> {
  input: I;
  output: O;
  /** Sees the door's context (an accepted key in `ctx.auth`) and the parsed input; its answer is parsed by `output`. */
  resolve(opts: { ctx: RestContext; input: z.output<I> }): Promise<z.input<O>> | z.input<O>;
}

/** A REST operation declared once: the parts the door runs and the tRPC procedure built from them, which the document is generated from. */
export interface RestProcedure<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> extends RestOperationParts<I, O> {
  meta: RestOperationMeta;
  procedure: ReturnType<typeof procedureOf>;
}

// Typed on any schemas: tRPC's builder types cannot follow generic ones, and the procedure's static
// type serves nothing (the document generator reads its meta and schemas at run time). `resolve` is
// a method, so an operation's narrower parts fit these.
function procedureOf(meta: RestOperationMeta, { input, output, resolve }: RestOperationParts<z.ZodType, z.ZodType>) {
  const builder = t.procedure.meta(meta).input(input).output(output);
  // Its kind follows the method (the generator reads the method from the meta and refuses only subscriptions).
  return meta.openapi.method === "GET" ? builder.query(resolve) : builder.mutation(resolve);
}

/**
 * A REST operation from its meta and its parts. The credentials it takes are the ones its
 * `rest.auth` names, which the door checks (headers, before any body is read) before it runs the
 * resolver, so they are stated once. `/v1/*` takes the secret key as a bearer token; `/api/checkout`,
 * `/api/payments/*`, `/api/refunds/*` and `/api/sandbox/*` the merchant id and key pair headers from
 * a whitelisted IP; `/api/kyc/*` a server-only key pair, and a body's `merchantId` must be the key's
 * merchant (`refuseOtherMerchant`, below, also checked by the door). The tRPC procedure is built from
 * the same parts, so what the document says and what the door runs cannot differ.
 */
export function restProcedure<I extends z.ZodType, O extends z.ZodType>(meta: RestOperationMeta, parts: RestOperationParts<I, O>): RestProcedure<I, O> {
  return { meta, ...parts, procedure: procedureOf(meta, parts) };
}

/** A KYC body's `merchantId`, when it has one, must be its key's merchant. */
export function refuseOtherMerchant(rawInput: unknown, keyMerchantId: string) {
  const merchantId = (rawInput as { merchantId?: unknown } | undefined)?.merchantId;
  if (typeof merchantId === "string" && merchantId !== keyMerchantId) throw new AppError("MERCHANT_MISMATCH");
}
