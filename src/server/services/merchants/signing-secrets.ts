import type { Db, DbTx } from "@/server/db/client";
import { getConfig } from "@/server/config";
import { decrypt, encrypt } from "@/server/lib/crypto";
import { newId, randomToken } from "@/server/lib/ids";
import type { Mode } from "@/lib/mode";

/** Old secrets stay valid this long after a rotation, so receivers can switch without missing events. */
export const SIGNING_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

export async function createSigningSecret(db: DbTx, merchantId: string, mode: Mode): Promise<string> {
  const secret = `whsec_${randomToken(32)}`;
  await db.signingSecret.create({
    data: { id: newId("sig"), merchantId, mode, secretEnc: encrypt(secret, getConfig().secrets.encryptionKey) },
  });
  return secret;
}

/** Valid secrets for a mode, newest first: the current one, plus the previous one during its grace period. */
export async function activeSigningSecrets(db: Db, merchantId: string, mode: Mode, now = new Date()): Promise<string[]> {
  const rows = await db.signingSecret.findMany({
    where: { merchantId, mode, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    orderBy: { createdAt: "desc" },
  });
  const key = getConfig().secrets.encryptionKey;
  return rows.map((r) => decrypt(r.secretEnc, key));
}

/** The secret that signs new redirects and webhooks. */
export async function currentSigningSecret(db: Db, merchantId: string, mode: Mode): Promise<string | null> {
  const row = await db.signingSecret.findFirst({ where: { merchantId, mode, expiresAt: null }, orderBy: { createdAt: "desc" } });
  return row ? decrypt(row.secretEnc, getConfig().secrets.encryptionKey) : null;
}

export async function rotateSigningSecret(db: Db, merchantId: string, mode: Mode): Promise<string> {
  const now = new Date();
  // At most two secrets are ever valid (two v1 values during a rotation): a secret still in
  // its grace period from an earlier rotation stops now.
  await db.signingSecret.updateMany({ where: { merchantId, mode, expiresAt: { gt: now } }, data: { expiresAt: now } });
  await db.signingSecret.updateMany({
    where: { merchantId, mode, expiresAt: null },
    data: { expiresAt: new Date(Date.now() + SIGNING_SECRET_GRACE_MS) },
  });
  return createSigningSecret(db, merchantId, mode);
}

/** When the mode's signing secret last changed, and until when the previous one still verifies. */
export async function signingSecretStatus(db: Db, merchantId: string, mode: Mode) {
  const secrets = await db.signingSecret.findMany({
    where: { merchantId, mode, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
    orderBy: { createdAt: "desc" },
    select: { createdAt: true, expiresAt: true },
  });
  const current = secrets.find((s) => s.expiresAt === null);
  const previous = secrets.find((s) => s.expiresAt !== null);
  return { createdAt: current?.createdAt ?? null, previousValidUntil: previous?.expiresAt ?? null };
}

/** The current secret, created on first use for a merchant that has none yet. */
export async function revealSigningSecret(db: Db, merchantId: string, mode: Mode): Promise<string> {
  return (await currentSigningSecret(db, merchantId, mode)) ?? (await createSigningSecret(db, merchantId, mode));
}
