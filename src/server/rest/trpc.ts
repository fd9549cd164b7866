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

type AnyRouter = { _def: { procedures: Record<string, { _def: { meta?: unknown } }> } };

/**
 * The builder's promise about its callers holds: every procedure's declared scheme is its builder's.
 * Checked once, when the router is built (a mismatch stops the server from starting), rather than
 * by a middleware on every call: each tRPC middleware level costs microseconds of object copying.
 */
function checkSchemes(router: AnyRouter) {
  for (const [path, procedure] of Object.entries(router._def.procedures)) {
    const meta = procedure._def.meta as RestProcedureMeta | undefined;
    if (meta?.rest && meta.builtFor !== meta.rest.auth) {
      throw new Error(`The REST procedure ${path} declares ${meta.rest.auth} credentials but was built for ${meta.builtFor ?? "none"}.`);
    }
  }
}

export const restRouterOf: typeof t.router = (record) => {
  const router = t.router(record);
  checkSchemes(router as unknown as AnyRouter);
  return router;
};

/** A builder for one credential scheme: its procedures' meta says which (merged with their own `.meta()`). */
const builtFor = (scheme: AuthScheme) => t.procedure.meta({ builtFor: scheme });

/** `/v1/*`: the secret key as a bearer token. */
export const bearerProcedure = builtFor("bearer");

/** `/api/checkout`, `/api/payments/*`, `/api/refunds/*`, `/api/sandbox/*`: merchant id and key pair headers, from a whitelisted IP. */
export const merchantProcedure = builtFor("merchant");

/**
 * `/api/kyc/*`: a server-only key pair, and the body's `merchantId` must be the key's merchant. The
 * REST door checks the latter (`refuseOtherMerchant`) before it calls the procedure, as checkSchemes
 * does at start rather than a middleware on every call.
 */
export const kycProcedure = builtFor("kyc");

/** A KYC body's `merchantId`, when it has one, must be its key's merchant. */
export function refuseOtherMerchant(rawInput: unknown, keyMerchantId: string) {
  const merchantId = (rawInput as { merchantId?: unknown } | undefined)?.merchantId;
  if (typeof merchantId === "string" && merchantId !== keyMerchantId) throw new AppError("MERCHANT_MISMATCH");
}

export const restCallerFactory = t.createCallerFactory;
