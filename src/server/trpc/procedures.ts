import { kycAuth, bearerAuth, merchantAuth } from "@/server/trpc/middlewares/api-auth";
import { idempotency } from "@/server/trpc/middlewares/idempotency";
import { decodedPathParams } from "@/server/trpc/middlewares/path-params";
import { restEnvelope } from "@/server/trpc/middlewares/rest-envelope";
import { t } from "@/server/trpc/init";

/**
 * Procedure builders: the name says who may call. REST builders wrap everything in the contract's
 * envelopes; pick one and add `.meta({ openapi, rest })`, `.input()`, `.output()`.
 */
const restProcedure = t.procedure.use(restEnvelope).use(decodedPathParams);

/** `/v1/*`: the secret key as a bearer token. */
export const bearerProcedure = restProcedure.use(bearerAuth).use(idempotency);

/** `/api/checkout`, `/api/payments/*`: merchant id, public and secret key headers, from a whitelisted IP. */
export const merchantProcedure = restProcedure.use(merchantAuth).use(idempotency);

/** `/api/kyc/*`: public and secret key headers, server to server only. */
export const kycProcedure = restProcedure.use(kycAuth).use(idempotency);

export const publicProcedure = t.procedure;
