import type { Db, DbTx } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { newId, randomToken } from "@/server/lib/ids";
import { safeEqual, sha256Hex } from "@/server/lib/crypto";
import type { Mode } from "@/server/rest/state";
import { bumpAuthEpoch } from "@/server/services/auth/auth-epoch";

export const MODES = ["sandbox", "live"] as const;

export function modeTag(mode: Mode): "test" | "live" {
  return mode === "sandbox" ? "test" : "live";
}

/** `sk_test_…` → sandbox, `sk_live_…` → live; null when the prefix is neither. */
export function modeOfKey(key: string, kind: "pk" | "sk"): Mode | null {
  if (key.startsWith(`${kind}_test_`)) return "sandbox";
  if (key.startsWith(`${kind}_live_`)) return "live";
  return null;
}

export function hashSecretKey(secret: string): string {
  return sha256Hex(secret);
}

export interface CreatedKey {
  id: string;
  mode: Mode;
  publicKey: string;
  /** Shown once; only its hash is stored. */
  secretKey: string;
  secretHint: string;
  label: string;
  createdAt: Date;
}

export async function createApiKey(
  db: DbTx,
  merchantId: string,
  mode: Mode,
  label = "Default",
): Promise<CreatedKey> {
  if (mode === "live") {
    const merchant = await db.merchant.findUnique({ where: { id: merchantId }, select: { liveEnabled: true } });
    if (!merchant?.liveEnabled) throw new AppError("LIVE_MODE_NOT_ENABLED");
  }
  const tag = modeTag(mode);
  const publicKey = `pk_${tag}_${randomToken(24)}`;
  const secretKey = `sk_${tag}_${randomToken(32)}`;
  const secretHint = `${secretKey.slice(0, 12)}…${secretKey.slice(-4)}`;
  const row = await db.apiKey.create({
    data: { id: newId("key"), merchantId, mode, publicKey, secretHash: hashSecretKey(secretKey), secretHint, label },
  });
  return { id: row.id, mode, publicKey, secretKey, secretHint, label: row.label, createdAt: row.createdAt };
}

/**
 * Replaces a key with a new pair. The old key keeps working for `graceSeconds` (0 = stops now).
 */
export async function rotateApiKey(
  db: Db,
  merchantId: string,
  keyId: string,
  graceSeconds: number,
): Promise<CreatedKey> {
  const old = await db.apiKey.findFirst({ where: { id: keyId, merchantId, revokedAt: null } });
  if (!old) throw new AppError("NOT_FOUND", "No active API key with this id.");
  const created = await createApiKey(db, merchantId, old.mode as Mode, old.label);
  const until = new Date(Date.now() + Math.max(0, graceSeconds) * 1000);
  await db.apiKey.update({
    where: { id: old.id },
    data: graceSeconds > 0 ? { expiresAt: until } : { revokedAt: new Date(), expiresAt: until },
  });
  await bumpAuthEpoch(db);
  return created;
}

export async function revokeApiKey(db: Db, merchantId: string, keyId: string): Promise<void> {
  const res = await db.apiKey.updateMany({
    where: { id: keyId, merchantId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (res.count === 0) throw new AppError("NOT_FOUND", "No active API key with this id.");
  await bumpAuthEpoch(db);
}

export function isKeyUsable(key: { revokedAt: Date | null; expiresAt: Date | null }, now = Date.now()): boolean {
  if (key.revokedAt) return false;
  if (key.expiresAt && key.expiresAt.getTime() <= now) return false;
  return true;
}

export { safeEqual };
