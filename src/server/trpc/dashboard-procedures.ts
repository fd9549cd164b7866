import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { AppError, ERROR_CODES } from "@/server/errors";
import { currentAdmin, currentMerchant } from "@/server/auth/session-state";
import { log } from "@/server/lib/logger";
import { t } from "@/server/trpc/init";

/** Services throw AppError; the dashboard sees a tRPC error with the registry's code and message. */
const appErrors = t.middleware(async ({ next, path }) => {
  const result = await next();
  if (result.ok) return result;
  const cause = result.error.cause;
  if (cause instanceof AppError) {
    throw new TRPCError({ code: ERROR_CODES[cause.code].trpc, message: cause.message, cause });
  }
  if (result.error.code === "INTERNAL_SERVER_ERROR") log.error("dashboard procedure failed", { path, err: cause ?? result.error });
  return result;
});

/** Mutations must come from our own pages: a custom header (forces a CORS preflight) and a same-origin Origin. */
const sameOriginMutations = t.middleware(({ ctx, type, next }) => {
  if (type === "mutation" && !ctx.sameOrigin) {
    throw new TRPCError({ code: "FORBIDDEN", message: "Cross-site request refused." });
  }
  return next();
});

export const publicDashboardProcedure = t.procedure.use(appErrors).use(sameOriginMutations);

/**
 * Mutations a suspended merchant may still make: securing the account. Everything else is refused,
 * so a new mutation is read-only-safe by default. Paths, as the router names them.
 */
export const ALLOWED_WHILE_SUSPENDED: ReadonlySet<string> = new Set(["security.signOutEverywhere", "security.changePassword"]);

const SESSION_ENDED = "Your session has ended. Please sign in again.";

/**
 * A signed-in merchant; `ctx.merchantId` is theirs and every query is scoped by it. One read checks
 * the session is still current (not revoked) and loads the status that makes a suspended account
 * read-only.
 */
export const merchantSessionProcedure = publicDashboardProcedure.use(async ({ ctx, type, path, next }) => {
  if (!ctx.session || ctx.session.role !== "merchant") throw new TRPCError({ code: "UNAUTHORIZED", message: "Please sign in." });
  const merchant = await currentMerchant(ctx.services.db, ctx.session.id, ctx.session.sessionVersion);
  if (!merchant) throw new TRPCError({ code: "UNAUTHORIZED", message: SESSION_ENDED });
  if (merchant.status === "SUSPENDED" && type === "mutation" && !ALLOWED_WHILE_SUSPENDED.has(path)) {
    throw new AppError("MERCHANT_SUSPENDED", "This account is suspended, so the dashboard is read-only. Contact support to have it reinstated.");
  }
  return next({ ctx: { merchantId: ctx.session.id, user: ctx.session, merchant } });
});

export const modeSchema = z.enum(["sandbox", "live"]);

/** Mode-scoped reads and writes; live only after go-live approval. */
export const modeProcedure = merchantSessionProcedure.input(z.object({ mode: modeSchema })).use(async ({ ctx, input, next }) => {
  const mode = (input as { mode: "sandbox" | "live" }).mode;
  if (mode === "live" && !ctx.merchant.liveEnabled) throw new AppError("LIVE_MODE_NOT_ENABLED");
  return next({ ctx: { mode } });
});

/** An operator (admin role) whose session is still current. */
export const adminSessionProcedure = publicDashboardProcedure.use(async ({ ctx, next }) => {
  if (!ctx.session || ctx.session.role !== "admin") throw new TRPCError({ code: "UNAUTHORIZED", message: "Operators only." });
  if (!(await currentAdmin(ctx.services.db, ctx.session.id, ctx.session.sessionVersion))) throw new TRPCError({ code: "UNAUTHORIZED", message: SESSION_ENDED });
  return next({ ctx: { admin: ctx.session } });
});
