import { AppError } from "@/server/errors";
import type { RestAuth, RestState } from "@/server/rest/state";
import { t } from "@/server/trpc/init";

/**
 * The REST door checks credentials from the headers before it reads a body (see
 * `src/server/rest/credentials.ts`); these middlewares hand the result to procedures as `ctx.auth`.
 */
function authOf(rest: RestState | null): RestAuth {
  if (!rest?.auth) throw new AppError("UNAUTHORIZED");
  return rest.auth;
}

/** `/v1`: `Authorization: Bearer sk_…`. */
export const bearerAuth = t.middleware(({ ctx, next }) => next({ ctx: { auth: authOf(ctx.rest) } }));

/** Payments: `x-merchant-id`, `x-api-key` (pk), `x-secret-key` (sk) of one key pair, from a whitelisted IP. */
export const merchantAuth = t.middleware(({ ctx, next }) => next({ ctx: { auth: authOf(ctx.rest) } }));

/** KYC: server-only key pair, and the body's `merchantId` must be the key's merchant. */
export const kycAuth = t.middleware(async ({ ctx, next, getRawInput }) => {
  const auth = authOf(ctx.rest);
  const raw = (await getRawInput()) as { merchantId?: unknown } | undefined;
  if (typeof raw?.merchantId === "string" && raw.merchantId !== auth.merchantId) throw new AppError("MERCHANT_MISMATCH");
  return next({ ctx: { auth } });
});
