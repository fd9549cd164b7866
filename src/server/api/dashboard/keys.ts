import { createKeyInput, keyStatus, revokeKeyInput, rotateKeyInput } from "@/lib/schemas/keys";
import { AppError } from "@/server/errors";
import { apiBaseUrls } from "@/server/lib/api-base-urls";
import {
  createApiKey,
  findMerchantKey,
  listApiKeys,
  MAX_USABLE_KEYS_PER_MODE,
  revokeApiKey,
  rotateModeKey,
  type CreatedKey,
} from "@/server/services/auth/api-keys";
import { createSigningSecret, currentSigningSecret, rotateSigningSecret, SIGNING_SECRET_GRACE_MS } from "@/server/services/merchants/signing-secrets";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

/** The one place a secret key leaves the server: right after create or rotate. */
function shownOnce(k: CreatedKey) {
  return { id: k.id, label: k.label, publicKey: k.publicKey, secretKey: k.secretKey, secretHint: k.secretHint, createdAt: k.createdAt.toISOString() };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const keysRouter = router({
  /** The mode's keys (never a secret or its hash), when its signing secret last changed, and the API addresses. */
  list: modeProcedure.query(async ({ ctx }) => {
    const db = ctx.services.db;
    const [keys, secrets] = await Promise.all([
      listApiKeys(db, ctx.merchantId, ctx.mode),
      db.signingSecret.findMany({
        where: { merchantId: ctx.merchantId, mode: ctx.mode, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
        orderBy: { createdAt: "desc" },
        select: { createdAt: true, expiresAt: true },
      }),
    ]);
    const now = Date.now();
    const current = secrets.find((s) => s.expiresAt === null);
    const previous = secrets.find((s) => s.expiresAt !== null);
    return {
      keys: keys.map((k) => ({
        id: k.id,
        label: k.label,
        publicKey: k.publicKey,
        secretHint: k.secretHint,
        createdAt: k.createdAt.toISOString(),
        lastUsedAt: iso(k.lastUsedAt),
        expiresAt: iso(k.expiresAt),
        revokedAt: iso(k.revokedAt),
        status: keyStatus(k, now),
      })),
      signingSecret: { createdAt: iso(current?.createdAt ?? null), previousValidUntil: iso(previous?.expiresAt ?? null) },
      // For the page's example calls: the x-merchant-id / merchantId value and where each API lives.
      merchantId: ctx.merchantId,
      apiBaseUrls: apiBaseUrls(ctx.services.config),
    };
  }),

  create: modeProcedure.input(createKeyInput).mutation(async ({ ctx, input }) => {
    const db = ctx.services.db;
    const usable = await db.apiKey.count({
      where: { merchantId: ctx.merchantId, mode: ctx.mode, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
    });
    if (usable >= MAX_USABLE_KEYS_PER_MODE) {
      throw new AppError("CONFLICT", `You already have ${MAX_USABLE_KEYS_PER_MODE} working keys in this mode; revoke one you no longer use first.`);
    }
    return shownOnce(await createApiKey(db, ctx.merchantId, ctx.mode, input.label));
  }),

  /** Replaces a key; the old one keeps working for `graceSeconds` (0 = stops now). */
  rotate: modeProcedure.input(rotateKeyInput).mutation(async ({ ctx, input }) => {
    const { created, old } = await rotateModeKey(ctx.services.db, ctx.merchantId, ctx.mode, input.keyId, input.graceSeconds);
    return { key: shownOnce(created), oldKey: { id: old.id, expiresAt: old.expiresAt.toISOString(), revoked: old.revoked } };
  }),

  revoke: modeProcedure.input(revokeKeyInput).mutation(async ({ ctx, input }) => {
    const key = await findMerchantKey(ctx.services.db, ctx.merchantId, ctx.mode, input.keyId);
    if (key.revokedAt) throw new AppError("CONFLICT", "This key is already revoked.");
    await revokeApiKey(ctx.services.db, ctx.merchantId, key.id);
    return { id: key.id, revoked: true };
  }),

  /** A mutation, not a query: an explicit, CSRF-checked act whose answer is never cached. */
  revealSigningSecret: modeProcedure.mutation(async ({ ctx }) => {
    const db = ctx.services.db;
    const secret = (await currentSigningSecret(db, ctx.merchantId, ctx.mode)) ?? (await createSigningSecret(db, ctx.merchantId, ctx.mode));
    return { secret };
  }),

  rotateSigningSecret: modeProcedure.mutation(async ({ ctx }) => {
    const secret = await rotateSigningSecret(ctx.services.db, ctx.merchantId, ctx.mode);
    return { secret, previousValidUntil: new Date(Date.now() + SIGNING_SECRET_GRACE_MS).toISOString() };
  }),
});
