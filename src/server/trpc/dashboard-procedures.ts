import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { AppError, ERROR_CODES } from "@/server/errors";
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

/** A signed-in merchant; `ctx.merchantId` is theirs and every query is scoped by it. */
export const merchantSessionProcedure = publicDashboardProcedure.use(({ ctx, next }) => {
  if (!ctx.session || ctx.session.role !== "merchant") throw new TRPCError({ code: "UNAUTHORIZED", message: "Please sign in." });
  return next({ ctx: { merchantId: ctx.session.id, user: ctx.session } });
});

export const modeSchema = z.enum(["sandbox", "live"]);

/** Mode-scoped reads and writes; live only after go-live approval. */
export const modeProcedure = merchantSessionProcedure.input(z.object({ mode: modeSchema })).use(async ({ ctx, input, next }) => {
  const mode = (input as { mode: "sandbox" | "live" }).mode;
  if (mode === "live") {
    const m = await ctx.services.db.merchant.findUnique({ where: { id: ctx.merchantId }, select: { liveEnabled: true } });
    if (!m?.liveEnabled) throw new AppError("LIVE_MODE_NOT_ENABLED");
  }
  return next({ ctx: { mode } });
});

/** An operator (admin role). */
export const adminSessionProcedure = publicDashboardProcedure.use(({ ctx, next }) => {
  if (!ctx.session || ctx.session.role !== "admin") throw new TRPCError({ code: "UNAUTHORIZED", message: "Operators only." });
  return next({ ctx: { admin: ctx.session } });
});
