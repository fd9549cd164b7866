import { initTRPC } from "@trpc/server";
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

/**
 * A REST operation's procedure, built from its meta: the credentials it takes are the ones its
 * `rest.auth` names, which the door checks (headers, before any body is read) before it calls the
 * procedure, so they are stated once. `/v1/*` takes the secret key as a bearer token; `/api/checkout`,
 * `/api/payments/*`, `/api/refunds/*` and `/api/sandbox/*` the merchant id and key pair headers from
 * a whitelisted IP; `/api/kyc/*` a server-only key pair, and a body's `merchantId` must be the key's
 * merchant (`refuseOtherMerchant`, below, also checked by the door).
 */
export function restProcedure(meta: RestOperationMeta) {
  return t.procedure.meta(meta);
}

/** A KYC body's `merchantId`, when it has one, must be its key's merchant. */
export function refuseOtherMerchant(rawInput: unknown, keyMerchantId: string) {
  const merchantId = (rawInput as { merchantId?: unknown } | undefined)?.merchantId;
  if (typeof merchantId === "string" && merchantId !== keyMerchantId) throw new AppError("MERCHANT_MISMATCH");
}
