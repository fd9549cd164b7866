import { initTRPC } from "@trpc/server";
import { AppError } from "@/server/errors";
import type { RestContext } from "@/server/rest/context";
import type { AuthScheme, RestProcedureMeta } from "@/server/rest/meta";

/**
 * The REST operations' tRPC instance, apart from the dashboard's: its context is the door's. The
 * door authenticates (headers, before any body is read), validates bodies and turns every error
 * into the API's envelopes; procedures see an accepted key in `ctx.auth`.
 */
const t = initTRPC.context<RestContext>().meta<RestProcedureMeta>().create();

export const restRouterOf = t.router;

/** The builder's promise about its callers holds: the route's declared scheme is the builder's. */
const scheme = (expected: AuthScheme) =>
  t.middleware(({ ctx, next }) => {
    if (ctx.auth.scheme !== expected) throw new AppError("INTERNAL_ERROR", `A ${expected} operation was reached with ${ctx.auth.scheme} credentials.`);
    return next();
  });

/** `/v1/*`: the secret key as a bearer token. */
export const bearerProcedure = t.procedure.use(scheme("bearer"));

/** `/api/checkout`, `/api/payments/*`, `/api/refunds/*`, `/api/sandbox/*`: merchant id and key pair headers, from a whitelisted IP. */
export const merchantProcedure = t.procedure.use(scheme("merchant"));

/** `/api/kyc/*`: a server-only key pair, and the body's `merchantId` must be the key's merchant. */
export const kycProcedure = t.procedure.use(scheme("kyc")).use(async ({ ctx, next, getRawInput }) => {
  const raw = (await getRawInput()) as { merchantId?: unknown } | undefined;
  if (typeof raw?.merchantId === "string" && raw.merchantId !== ctx.auth.merchantId) throw new AppError("MERCHANT_MISMATCH");
  return next();
});

export const restCallerFactory = t.createCallerFactory;
