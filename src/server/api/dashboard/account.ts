import { z } from "zod";
import { passwordSchema, profileInput, signupInput, totpCodeSchema } from "@/lib/schemas/account";
import { formatPaise } from "@/lib/money";
import { AppError } from "@/server/errors";
import { apiBaseUrls } from "@/server/lib/api-base-urls";
import { bumpAuthEpoch } from "@/server/services/auth/auth-epoch";
import { beginTotpSetup, disableTotp, enableTotp } from "@/server/services/accounts/two-factor";
import { createMerchant } from "@/server/services/merchants/merchants";
import { merchantSessionProcedure, publicDashboardProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export const accountRouter = router({
  /**
   * Sign-up: the merchant, a sandbox key pair, signing secret and ₹10,000.00 of sandbox credit.
   * The answer is the only place the new secret key ever appears (only its hash is stored), so the
   * first API call needs no second key.
   */
  signup: publicDashboardProcedure.input(signupInput).mutation(async ({ ctx, input }) => {
    const m = await createMerchant(ctx.services.db, input);
    const { key } = m.sandbox;
    return {
      merchantId: m.merchantId,
      sandboxKey: { label: key.label, publicKey: key.publicKey, secretKey: key.secretKey },
      apiBaseUrls: apiBaseUrls(ctx.services.config),
    };
  }),

  me: merchantSessionProcedure.query(async ({ ctx }) => {
    const m = await ctx.services.db.merchant.findUnique({ where: { id: ctx.merchantId }, include: { wallets: true } });
    if (!m) throw new AppError("NOT_FOUND", "This account no longer exists.");
    return {
      id: m.id,
      name: m.name,
      email: m.email,
      status: m.status as "ACTIVE" | "SUSPENDED",
      liveEnabled: m.liveEnabled,
      goLiveRequestedAt: m.goLiveRequestedAt,
      goLiveApprovedAt: m.goLiveApprovedAt,
      totpEnabled: m.totpEnabled,
      enforceWhitelistAll: m.enforceWhitelistAll,
      profile: {
        name: m.name,
        displayName: m.displayName ?? "",
        supportEmail: m.supportEmail ?? "",
        brandColor: m.brandColor ?? "",
        logoUrl: m.logoUrl ?? "",
        checkoutExpiryMinutes: m.checkoutExpiryMinutes,
        checkoutFrameOrigins: m.checkoutFrameOrigins ?? "",
      },
      wallets: m.wallets.map((w) => ({ mode: w.mode, balancePaise: w.balancePaise, balance: formatPaise(w.balancePaise) })),
    };
  }),

  updateProfile: merchantSessionProcedure.input(profileInput).mutation(async ({ ctx, input }) => {
    await ctx.services.db.merchant.update({
      where: { id: ctx.merchantId },
      data: {
        name: input.name,
        displayName: input.displayName,
        supportEmail: input.supportEmail,
        brandColor: input.brandColor,
        logoUrl: input.logoUrl,
        checkoutExpiryMinutes: input.checkoutExpiryMinutes,
        checkoutFrameOrigins: input.checkoutFrameOrigins,
      },
    });
    // The REST door caches merchant settings with the keys; the default expiry is one of them.
    await bumpAuthEpoch(ctx.services.db);
    return { ok: true };
  }),

  requestGoLive: merchantSessionProcedure.mutation(async ({ ctx }) => {
    const m = await ctx.services.db.merchant.findUniqueOrThrow({ where: { id: ctx.merchantId }, select: { liveEnabled: true, goLiveRequestedAt: true } });
    if (m.liveEnabled) return { requestedAt: m.goLiveRequestedAt, alreadyLive: true };
    const requestedAt = m.goLiveRequestedAt ?? new Date();
    await ctx.services.db.merchant.update({ where: { id: ctx.merchantId }, data: { goLiveRequestedAt: requestedAt } });
    return { requestedAt, alreadyLive: false };
  }),

  totpSetup: merchantSessionProcedure.mutation(({ ctx }) => beginTotpSetup(ctx.services.db, ctx.merchantId)),
  totpEnable: merchantSessionProcedure.input(z.object({ code: totpCodeSchema })).mutation(({ ctx, input }) => enableTotp(ctx.services.db, ctx.merchantId, input.code)),
  totpDisable: merchantSessionProcedure
    .input(z.object({ password: passwordSchema.or(z.string().min(1)) }))
    .mutation(async ({ ctx, input }) => {
      await disableTotp(ctx.services.db, ctx.merchantId, input.password);
      return { ok: true };
    }),
});
