import { changePasswordInput, checkResetLinkInput, confirmPasswordInput, requestResetInput, resetPasswordInput } from "@/lib/schemas/security";
import { changeMerchantPassword, checkResetLink, requestPasswordReset, resetPassword, signOutMerchantEverywhere } from "@/server/services/accounts/passwords";
import { confirmMerchantPassword } from "@/server/services/accounts/reauth";
import { merchantSessionProcedure, publicDashboardProcedure, reauthSessionOf } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

/** Passwords and sessions: forgot/reset (merchants and operators), change password, sign out everywhere. */
export const securityRouter = router({
  /** Same answer whatever the email, so it cannot tell which accounts exist; limited per client IP. */
  requestPasswordReset: publicDashboardProcedure.input(requestResetInput).mutation(async ({ ctx, input }) => {
    await requestPasswordReset(ctx.services, { email: input.email, role: input.as }, ctx.clientIp ?? "unknown");
    return { ok: true as const };
  }),

  /** Whether the link still works, asked when the reset page opens; a mutation so the token stays out of URLs. */
  checkResetLink: publicDashboardProcedure.input(checkResetLinkInput).mutation(({ ctx, input }) => checkResetLink(ctx.services.db, input.token)),

  /** Sets the new password from a reset link; every session of the account ends. */
  resetPassword: publicDashboardProcedure.input(resetPasswordInput).mutation(({ ctx, input }) => resetPassword(ctx.services.db, input)),

  /** Needs the current password; ends every session, this one too (the page signs in again). */
  changePassword: merchantSessionProcedure.input(changePasswordInput).mutation(async ({ ctx, input }) => {
    await changeMerchantPassword(ctx.services.db, ctx.merchantId, input, ctx.clientIp ?? "unknown");
    return { ok: true as const };
  }),

  /**
   * "Confirm your password" before a sensitive act: throttled as sign-in is; answers a proof of this
   * session that those acts take for 10 minutes.
   */
  confirmPassword: merchantSessionProcedure.input(confirmPasswordInput).mutation(async ({ ctx, input }) => {
    const { proof, expiresAt } = await confirmMerchantPassword(ctx.services.db, reauthSessionOf(ctx), input.password, ctx.clientIp ?? "unknown");
    return { proof, expiresAt: expiresAt.toISOString() };
  }),

  signOutEverywhere: merchantSessionProcedure.mutation(async ({ ctx }) => {
    await signOutMerchantEverywhere(ctx.services.db, ctx.merchantId);
    return { ok: true as const };
  }),
});
