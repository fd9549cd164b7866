import { z } from "zod";
import { passwordSchema, profileInput, signupInput, totpCodeSchema } from "@/lib/schemas/account";
import { consentSettingsInput } from "@/lib/consent";
import { apiBaseUrls } from "@/server/lib/api-base-urls";
import { consentSettings, updateConsentSettings } from "@/server/services/merchants/consent-settings";
import { merchantAccount, requestGoLive, updateMerchantProfile } from "@/server/services/merchants/account";
import { reauthField } from "@/lib/schemas/security";
import { requireReauth } from "@/server/services/accounts/reauth";
import { beginTotpSetup, disableTotp, enableTotp, recoveryCodesLeft, regenerateRecoveryCodes } from "@/server/services/accounts/two-factor";
import { signUpMerchant } from "@/server/services/accounts/signup";
import { merchantSessionProcedure, publicDashboardProcedure, reauthSessionOf } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export const accountRouter = router({
  /**
   * Sign-up: the merchant, a sandbox key pair, signing secret and ₹10,000.00 of sandbox credit.
   * The answer is the only place the new secret key ever appears (only its hash is stored), so the
   * first API call needs no second key.
   */
  signup: publicDashboardProcedure.input(signupInput).mutation(async ({ ctx, input }) => {
    const m = await signUpMerchant(ctx.services.db, input, ctx.clientIp ?? null, ctx.services.config.signupsPerAddressPerHour);
    const { key } = m.sandbox;
    return {
      merchantId: m.merchantId,
      sandboxKey: { label: key.label, publicKey: key.publicKey, secretKey: key.secretKey },
      apiBaseUrls: apiBaseUrls(ctx.services.config),
    };
  }),

  me: merchantSessionProcedure.query(async ({ ctx }) => {
    const account = await merchantAccount(ctx.services.db, ctx.merchantId);
    return { ...account, recoveryCodesLeft: await recoveryCodesLeft(ctx.services.db, ctx.merchantId, account.totpEnabled) };
  }),

  updateProfile: merchantSessionProcedure.input(profileInput).mutation(async ({ ctx, input }) => {
    await updateMerchantProfile(ctx.services.db, ctx.merchantId, input);
    return { ok: true };
  }),

  /** The default purpose and standing consent attestation of live checks (C6). */
  consentSettings: merchantSessionProcedure.query(({ ctx }) => consentSettings(ctx.services.db, ctx.merchantId)),
  updateConsentSettings: merchantSessionProcedure
    .input(consentSettingsInput)
    .mutation(({ ctx, input }) => updateConsentSettings(ctx.services.db, ctx.merchantId, input)),

  requestGoLive: merchantSessionProcedure.mutation(({ ctx }) => requestGoLive(ctx.services.db, ctx.merchantId)),

  /**
   * Turning two-factor sign-in on wants the password confirmed (at set-up and at the code that turns it
   * on): otherwise a session left open could tie the account to someone else's phone.
   */
  totpSetup: merchantSessionProcedure.input(z.object(reauthField)).mutation(({ ctx, input }) => {
    requireReauth(reauthSessionOf(ctx), input.reauth);
    return beginTotpSetup(ctx.services.db, ctx.merchantId);
  }),
  totpEnable: merchantSessionProcedure.input(z.object({ code: totpCodeSchema, ...reauthField })).mutation(({ ctx, input }) => {
    requireReauth(reauthSessionOf(ctx), input.reauth);
    return enableTotp(ctx.services.db, ctx.merchantId, input.code);
  }),
  totpDisable: merchantSessionProcedure.input(z.object({ password: passwordSchema.or(z.string().min(1)) })).mutation(async ({ ctx, input }) => {
    await disableTotp(ctx.services.db, ctx.merchantId, input.password, ctx.clientIp ?? "unknown");
    return { ok: true };
  }),
  /** Ten new recovery codes, shown once; the old ones stop working. Wants the password confirmed. */
  regenerateRecoveryCodes: merchantSessionProcedure.input(z.object(reauthField)).mutation(({ ctx, input }) => {
    requireReauth(reauthSessionOf(ctx), input.reauth);
    return regenerateRecoveryCodes(ctx.services.db, ctx.merchantId);
  }),
});
