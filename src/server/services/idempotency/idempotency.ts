import type { Db } from "@/server/db/client";
import { isUniqueViolation } from "@/server/db/errors";
import { AppError } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { decrypt, encrypt, hmacSha256Hex, sha256Hex } from "@/server/lib/crypto";
import type { Mode } from "@/lib/mode";
import { getConfig } from "@/server/config";
import { redactString } from "@/server/services/audit/redact";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A key still IN_PROGRESS after this long belongs to a request that died with its process (every
 * request finishes well within it): the key may be taken again rather than answer 409 for a day.
 */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;
const MAX_KEY_LENGTH = 255;

export interface IdempotencyScope {
  merchantId: string;
  mode: Mode;
  key: string;
  method: string;
  path: string;
  body: Buffer | null;
  /** Set for answers holding personal data (KYC): the stored response is AES-256-GCM encrypted with it. */
  encryptionKey?: string;
}

export type IdempotencyStart = { kind: "new"; recordId: string } | { kind: "replay"; status: number; body: string };

export function validateIdempotencyKey(key: string) {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new AppError("VALIDATION_ERROR", `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters.`, {
      field: "Idempotency-Key",
      details: [{ field: "Idempotency-Key", message: `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters` }],
    });
  }
}

/**
 * The key as stored. One holding what the audit log would redact (a card or Aadhaar number, a secret
 * key) is kept as a keyed hash instead: still one record per key, and nothing in clear.
 */
export function storedIdempotencyKey(key: string): string {
  if (redactString(key) === key) return key;
  return `hmac:${hmacSha256Hex(Buffer.from(getConfig().secrets.hashKey, "base64"), `idempotency-key|${key}`)}`;
}

/**
 * Claims the key: a new record in IN_PROGRESS, a replay of a finished one, or an error for
 * a different body (422) or one still running (409). Expired records are replaced.
 */
export async function beginIdempotent(db: Db, scope: IdempotencyScope): Promise<IdempotencyStart> {
  validateIdempotencyKey(scope.key);
  const key = storedIdempotencyKey(scope.key);
  const request = `${scope.method} ${scope.path}\n${scope.body?.toString("utf8") ?? ""}`;
  // A plain hash of a small body (an Aadhaar number and a merchant id) could be reversed by trying every number.
  const requestHash = scope.encryptionKey ? hmacSha256Hex(Buffer.from(scope.encryptionKey, "base64"), request) : sha256Hex(request);
  for (let attempt = 0; attempt < 2; attempt++) {
    const id = newId("idem");
    try {
      await db.idempotencyRecord.create({
        data: {
          id,
          merchantId: scope.merchantId,
          mode: scope.mode,
          key,
          method: scope.method,
          path: scope.path,
          requestHash,
          state: "IN_PROGRESS",
          expiresAt: new Date(Date.now() + IDEMPOTENCY_TTL_MS),
        },
      });
      return { kind: "new", recordId: id };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    const existing = await db.idempotencyRecord.findUnique({
      where: { merchantId_mode_key: { merchantId: scope.merchantId, mode: scope.mode, key } },
    });
    if (!existing) continue;
    const stale = existing.state === "IN_PROGRESS" && existing.createdAt.getTime() <= Date.now() - IDEMPOTENCY_LEASE_MS;
    if (existing.expiresAt.getTime() <= Date.now() || stale) {
      // Conditional on what was read: of two requests retaking the key, one deletes it and one creates anew.
      await db.idempotencyRecord.deleteMany({ where: { id: existing.id, state: existing.state, createdAt: existing.createdAt } });
      continue;
    }
    if (existing.requestHash !== requestHash) throw new AppError("IDEMPOTENCY_KEY_MISMATCH");
    if (existing.state !== "DONE" || existing.responseStatus === null || existing.responseBody === null) {
      throw new AppError("IDEMPOTENCY_KEY_IN_USE");
    }
    // JSON starts with "{"; an encrypted body with its version tag.
    const body = existing.responseBody.startsWith("{") || !scope.encryptionKey ? existing.responseBody : decrypt(existing.responseBody, scope.encryptionKey);
    return { kind: "replay", status: existing.responseStatus, body };
  }
  throw new AppError("IDEMPOTENCY_KEY_IN_USE");
}

export async function completeIdempotent(db: Db, recordId: string, status: number, body: unknown, encryptionKey?: string) {
  const json = JSON.stringify(body);
  // updateMany: a record retaken after its lease is gone, and that is no reason to fail the answer.
  await db.idempotencyRecord.updateMany({
    where: { id: recordId, state: "IN_PROGRESS" },
    data: { state: "DONE", responseStatus: status, responseBody: encryptionKey ? encrypt(json, encryptionKey) : json },
  });
}

/** Validation failures, rate limits, an empty wallet and server-side failures are not stored, so a retry runs again. */
export async function abandonIdempotent(db: Db, recordId: string) {
  await db.idempotencyRecord.deleteMany({ where: { id: recordId } });
}

export function shouldStoreResponse(status: number, errorCode: string | null): boolean {
  // 402: a retry after a top-up must be charged and answered, not told of the old balance for a day.
  if (status >= 500 || status === 429 || status === 402) return false;
  if (status === 400 || status === 413 || status === 415) return false;
  // Answers about another request still running: the retry they ask for must run, not replay them.
  return errorCode !== "IDEMPOTENCY_KEY_IN_USE" && errorCode !== "OTP_VERIFICATION_IN_PROGRESS";
}

export async function purgeExpiredIdempotency(db: Db, now = new Date()): Promise<number> {
  const res = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lt: now } } });
  return res.count;
}
