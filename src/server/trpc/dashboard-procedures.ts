import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { AppError, isAppError, ERROR_CODES } from "@/server/errors";
import { MODES, type Mode } from "@/lib/mode";
import { resolveAdminContext, resolveMerchantContext, SESSION_ENDED_MESSAGE, type SessionRefusal } from "@/server/services/accounts/sessions";
import { requireLiveEnabled } from "@/server/services/merchants/live-mode";
import { log } from "@/server/lib/logger";
import { findUnstorableField } from "@/lib/stored-text";
import type { ReauthSession } from "@/server/services/accounts/reauth";
import { t, type SessionUser } from "@/server/trpc/init";

/** Services throw AppError; the dashboard sees a tRPC error with the registry's code and message. */
const appErrors = t.middleware(async ({ next, path }) => {
  const result = await next();
  if (result.ok) return result;
  const cause = result.error.cause;
  if (isAppError(cause)) {
    throw new TRPCError({ code: ERROR_CODES[cause.code].trpc, message: cause.message, cause });
  }
  if (result.error.code === "INTERNAL_SERVER_ERROR") log.error("dashboard procedure failed", { path, err: cause ?? result.error });
  return result;
});

/** Mutations must come from our own pages: a custom header (forces a CORS preflight) and a same-origin Origin. */
const sameOriginMutations = t.middleware(({ ctx, type, next }) => {
  if (type === "mutation" && !ctx.sameOrigin) throw new AppError("FORBIDDEN", "Cross-site request refused.");
  return next();
});

/** No session is UNAUTHORIZED (sign in); a session of the other role is FORBIDDEN (signing in again changes nothing). */
function refusalError(refusal: SessionRefusal, role: "merchant" | "admin") {
  switch (refusal) {
    case "SIGNED_OUT":
      return new AppError("UNAUTHORIZED", role === "admin" ? "Operators only: please sign in." : "Please sign in.");
    case "WRONG_ROLE":
      return new AppError("FORBIDDEN", role === "admin" ? "Operators only." : "Merchant accounts only.");
    case "SESSION_ENDED":
      return new AppError("UNAUTHORIZED", SESSION_ENDED_MESSAGE);
  }
}

/** Text no database stores as sent (U+0000, unpaired surrogates) is refused, field named, before any procedure reads it. */
const storableInput = t.middleware(async ({ getRawInput, next }) => {
  const unstorable = findUnstorableField(await getRawInput());
  if (unstorable) throw new AppError("VALIDATION_ERROR", `${unstorable.message}.`, { field: unstorable.field, details: [unstorable] });
  return next();
});

export const publicDashboardProcedure = t.procedure.use(appErrors).use(sameOriginMutations).use(storableInput);

/**
 * Mutations a suspended merchant may still make: securing the account. Everything else is refused,
 * so a new mutation is read-only-safe by default. Paths, as the router names them.
 */
export const ALLOWED_WHILE_SUSPENDED: ReadonlySet<string> = new Set(["security.signOutEverywhere", "security.changePassword"]);

/**
 * A signed-in merchant; `ctx.merchantId` is theirs and every query is scoped by it. One read checks
 * the session is still current (not revoked) and loads the status that makes a suspended account
 * read-only.
 */
export const merchantSessionProcedure = publicDashboardProcedure.use(async ({ ctx, type, path, next }) => {
  const resolved = await resolveMerchantContext(ctx.services.db, ctx.session);
  if (!resolved.ok) throw refusalError(resolved.refusal, "merchant");
  const merchant = resolved.context;
  if (merchant.status === "SUSPENDED" && type === "mutation" && !ALLOWED_WHILE_SUSPENDED.has(path)) {
    throw new AppError("MERCHANT_SUSPENDED", "This account is suspended, so the dashboard is read-only. Contact support to have it reinstated.");
  }
  return next({ ctx: { merchantId: merchant.merchantId, user: ctx.session!, merchant } });
});

/** The session a password confirmation belongs to (services/accounts/reauth.ts). */
export const reauthSessionOf = (ctx: { merchantId: string; user: SessionUser }): ReauthSession => ({
  merchantId: ctx.merchantId,
  sessionVersion: ctx.user.sessionVersion,
  sessionId: ctx.user.sessionId,
});

export const modeSchema = z.enum(MODES);

/** Mode-scoped reads and writes; live only after go-live approval. */
export const modeProcedure = merchantSessionProcedure.input(z.object({ mode: modeSchema })).use(async ({ ctx, input, next }) => {
  const mode = (input as { mode: Mode }).mode;
  requireLiveEnabled(mode, ctx.merchant.liveEnabled);
  return next({ ctx: { mode } });
});

/** An operator (admin role) whose session is still current. */
export const adminSessionProcedure = publicDashboardProcedure.use(async ({ ctx, next }) => {
  const resolved = await resolveAdminContext(ctx.services.db, ctx.session);
  if (!resolved.ok) throw refusalError(resolved.refusal, "admin");
  return next({ ctx: { admin: ctx.session! } });
});
