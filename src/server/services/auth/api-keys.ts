import type { Db, DbTx } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { newId, randomToken } from "@/server/lib/ids";
import { safeEqual, sha256Hex } from "@/server/lib/crypto";
import type { Mode } from "@/lib/mode";
import { bumpAuthEpoch } from "@/server/services/auth/auth-epoch";
import { redactString } from "@/server/services/audit/redact";

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

export async function createApiKey(db: DbTx, merchantId: string, mode: Mode, label = "Default"): Promise<CreatedKey> {
  if (mode === "live") {
    const merchant = await db.merchant.findUnique({ where: { id: merchantId }, select: { liveEnabled: true } });
    if (!merchant?.liveEnabled) throw new AppError("LIVE_MODE_NOT_ENABLED");
  }
  const tag = modeTag(mode);
  const publicKey = `pk_${tag}_${randomToken(24)}`;
  const secretKey = `sk_${tag}_${randomToken(32)}`;
  const secretHint = `${secretKey.slice(0, 12)}…${secretKey.slice(-4)}`;
  const row = await db.apiKey.create({
    // A label is shown in lists for as long as the key lives: a secret pasted into it is not kept.
    data: { id: newId("key"), merchantId, mode, publicKey, secretHash: hashSecretKey(secretKey), secretHint, label: redactString(label) },
  });
  return { id: row.id, mode, publicKey, secretKey, secretHint, label: row.label, createdAt: row.createdAt };
}

/**
 * Replaces a key with a new pair. The old key keeps working for `graceSeconds` (0 = stops now).
 */
export async function rotateApiKey(db: Db, merchantId: string, keyId: string, graceSeconds: number): Promise<CreatedKey> {
  // Only an active key not already rotating: a second rotation must not stretch or revive a grace period.
  const old = await db.apiKey.findFirst({ where: { id: keyId, merchantId, revokedAt: null, expiresAt: null } });
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

/** A merchant's keys in one mode, newest first, without the secret hash. */
export async function listApiKeys(db: Db, merchantId: string, mode: Mode) {
  return db.apiKey.findMany({
    where: { merchantId, mode },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true, label: true, publicKey: true, secretHint: true, createdAt: true, lastUsedAt: true, expiresAt: true, revokedAt: true },
  });
}

/** One of the merchant's keys in `mode`; another merchant's or mode's key is NOT_FOUND, so ids reveal nothing. */
export async function findMerchantKey(db: Db, merchantId: string, mode: Mode, keyId: string) {
  const key = await db.apiKey.findFirst({
    where: { id: keyId, merchantId, mode },
    select: { id: true, label: true, expiresAt: true, revokedAt: true },
  });
  if (!key) throw new AppError("NOT_FOUND", "No API key with this id in this mode.");
  return key;
}

/** Most working keys one merchant may hold per mode (active or rotating). */
export const MAX_USABLE_KEYS_PER_MODE = 25;

/**
 * The dashboard's rotation: only a key that is active and not already rotating can be replaced
 * (so a second rotation can neither revive an expired key nor stretch a grace period), and the
 * old key's change and the new key land together.
 */
export async function rotateModeKey(db: Db, merchantId: string, mode: Mode, keyId: string, graceSeconds: number) {
  const key = await findMerchantKey(db, merchantId, mode, keyId);
  if (!isKeyUsable(key)) throw new AppError("CONFLICT", "This key no longer works, so there is nothing to rotate. Create a new key instead.");
  if (key.expiresAt) throw new AppError("CONFLICT", "This key has already been replaced and is in its grace period. Revoke it to stop it now.");
  const until = new Date(Date.now() + Math.max(0, graceSeconds) * 1000);
  const created = await db.$transaction(async (tx) => {
    const res = await tx.apiKey.updateMany({
      where: { id: key.id, merchantId, mode, revokedAt: null, expiresAt: null },
      data: graceSeconds > 0 ? { expiresAt: until } : { revokedAt: new Date(), expiresAt: until },
    });
    if (res.count === 0) throw new AppError("CONFLICT", "This key changed meanwhile; reload the page and try again.");
    return createApiKey(tx, merchantId, mode, key.label);
  });
  await bumpAuthEpoch(db);
  return { created, old: { id: key.id, expiresAt: until, revoked: graceSeconds <= 0 } };
}

/** A new key from the dashboard: at most MAX_USABLE_KEYS_PER_MODE working keys per mode. */
export async function createMerchantKey(db: Db, merchantId: string, mode: Mode, label: string) {
  const usable = await db.apiKey.count({
    where: { merchantId, mode, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
  });
  if (usable >= MAX_USABLE_KEYS_PER_MODE) {
    throw new AppError("CONFLICT", `You already have ${MAX_USABLE_KEYS_PER_MODE} working keys in this mode; revoke one you no longer use first.`);
  }
  return createApiKey(db, merchantId, mode, label);
}

/** Revokes one of the merchant's keys in `mode`; a key already revoked is a CONFLICT. */
export async function revokeMerchantKey(db: Db, merchantId: string, mode: Mode, keyId: string) {
  const key = await findMerchantKey(db, merchantId, mode, keyId);
  if (key.revokedAt) throw new AppError("CONFLICT", "This key is already revoked.");
  await revokeApiKey(db, merchantId, key.id);
  return { id: key.id, revoked: true as const };
}

/** A merchant's keys in both modes, oldest first, without the secret hash (for operator tools). */
export function listAllKeys(db: Db, merchantId: string) {
  return db.apiKey.findMany({
    where: { merchantId },
    orderBy: { createdAt: "asc" },
    select: { id: true, mode: true, label: true, publicKey: true, secretHint: true, createdAt: true, lastUsedAt: true, expiresAt: true, revokedAt: true },
  });
}
