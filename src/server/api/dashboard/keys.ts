import { z } from "zod";
import { createKeyInput, keyStatus, revokeKeyInput, rotateKeyInput } from "@/lib/schemas/keys";
import { apiBaseUrls } from "@/server/lib/api-base-urls";
import { createMerchantKey, listApiKeys, revokeMerchantKey, rotateModeKey, type CreatedKey } from "@/server/services/auth/api-keys";
import { revealSigningSecret, rotateSigningSecret, SIGNING_SECRET_GRACE_MS, signingSecretStatus } from "@/server/services/merchants/signing-secrets";
import { reauthField } from "@/lib/schemas/security";
import { requireReauth } from "@/server/services/accounts/reauth";
import { modeProcedure, reauthSessionOf } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";
import { isoOrNull } from "@/server/lib/dates";

/** The one place a secret key leaves the server: right after create or rotate. */
function shownOnce(k: CreatedKey) {
  return { id: k.id, label: k.label, publicKey: k.publicKey, secretKey: k.secretKey, secretHint: k.secretHint, createdAt: k.createdAt.toISOString() };
}

export const keysRouter = router({
  /** The mode's keys (never a secret or its hash), when its signing secret last changed, and the API addresses. */
  list: modeProcedure.query(async ({ ctx }) => {
    const [keys, secret] = await Promise.all([
      listApiKeys(ctx.services.db, ctx.merchantId, ctx.mode),
      signingSecretStatus(ctx.services.db, ctx.merchantId, ctx.mode),
    ]);
    const now = Date.now();
    return {
      keys: keys.map((k) => ({
        id: k.id,
        label: k.label,
        publicKey: k.publicKey,
        secretHint: k.secretHint,
        createdAt: k.createdAt.toISOString(),
        lastUsedAt: isoOrNull(k.lastUsedAt),
        expiresAt: isoOrNull(k.expiresAt),
        revokedAt: isoOrNull(k.revokedAt),
        status: keyStatus(k, now),
      })),
      signingSecret: { createdAt: isoOrNull(secret.createdAt), previousValidUntil: isoOrNull(secret.previousValidUntil) },
      // For the page's example calls: the x-merchant-id / merchantId value and where each API lives.
      merchantId: ctx.merchantId,
      apiBaseUrls: apiBaseUrls(ctx.services.config),
    };
  }),

  /** A live key (a secret that moves real money) wants the password confirmed; a sandbox key does not. */
  create: modeProcedure.input(createKeyInput).mutation(async ({ ctx, input }) => {
    if (ctx.mode === "live") requireReauth(reauthSessionOf(ctx), input.reauth);
    return shownOnce(await createMerchantKey(ctx.services.db, ctx.merchantId, ctx.mode, input.label));
  }),

  /** Replaces a key; the old one keeps working for `graceSeconds` (0 = stops now). A live one shows a new live secret, so as create. */
  rotate: modeProcedure.input(rotateKeyInput).mutation(async ({ ctx, input }) => {
    if (ctx.mode === "live") requireReauth(reauthSessionOf(ctx), input.reauth);
    const { created, old } = await rotateModeKey(ctx.services.db, ctx.merchantId, ctx.mode, input.keyId, input.graceSeconds);
    return { key: shownOnce(created), oldKey: { id: old.id, expiresAt: old.expiresAt.toISOString(), revoked: old.revoked } };
  }),

  revoke: modeProcedure.input(revokeKeyInput).mutation(({ ctx, input }) => revokeMerchantKey(ctx.services.db, ctx.merchantId, ctx.mode, input.keyId)),

  /** A mutation, not a query: an explicit, CSRF-checked act whose answer is never cached. Wants the password confirmed. */
  revealSigningSecret: modeProcedure.input(z.object(reauthField)).mutation(async ({ ctx, input }) => {
    requireReauth(reauthSessionOf(ctx), input.reauth);
    return { secret: await revealSigningSecret(ctx.services.db, ctx.merchantId, ctx.mode) };
  }),

  /** Answers the new secret, so it wants the password confirmed as revealing does. */
  rotateSigningSecret: modeProcedure.input(z.object(reauthField)).mutation(async ({ ctx, input }) => {
    requireReauth(reauthSessionOf(ctx), input.reauth);
    const secret = await rotateSigningSecret(ctx.services.db, ctx.merchantId, ctx.mode);
    return { secret, previousValidUntil: new Date(Date.now() + SIGNING_SECRET_GRACE_MS).toISOString() };
  }),
});
