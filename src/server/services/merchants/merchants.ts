import { passwordHashCost } from "@/server/config";
import type { Db, DbTx } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { hashPassword } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { bumpAuthEpoch } from "@/server/services/auth/auth-epoch";
import { createApiKey, type CreatedKey } from "@/server/services/auth/api-keys";
import { createSigningSecret } from "@/server/services/merchants/signing-secrets";
import { creditWallet, ensureWallet, SANDBOX_OPENING_CREDIT_PAISE } from "@/server/services/wallet/wallet";
import type { z } from "zod";
import { emailSchema, passwordSchema, signupInput } from "@/lib/schemas/account";

export const createMerchantInput = signupInput;
export type CreateMerchantInput = z.input<typeof createMerchantInput>;

export interface CreatedMerchant {
  merchantId: string;
  name: string;
  email: string;
  sandbox: { key: CreatedKey; signingSecret: string };
}

/** A new merchant in sandbox mode with a key pair and a signing secret (shown once). */
export async function createMerchant(db: Db, input: CreateMerchantInput): Promise<CreatedMerchant> {
  const parsed = createMerchantInput.safeParse(input);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => ({ field: i.path.join("."), message: i.message }));
    throw new AppError("VALIDATION_ERROR", details.map((d) => d.message).join("; "), { details, field: details[0]?.field });
  }
  const { name, email, password } = parsed.data;
  const existing = await db.merchant.findUnique({ where: { email }, select: { id: true } });
  if (existing) throw new AppError("CONFLICT", "A merchant with this email already exists.", { field: "email" });
  const id = newId("mer");
  const passwordHash = await hashPassword(password, passwordHashCost());
  // Merchant, first key pair, signing secret and funded sandbox wallet appear together or not at all.
  const { key, signingSecret } = await db.$transaction((tx) => insertNewMerchant(tx, { id, name, email, passwordHash }));
  return { merchantId: id, name, email, sandbox: { key, signingSecret } };
}

/** The rows of a new merchant, inside the caller's transaction (the start-up warm-up rehearses it and rolls back). */
export async function insertNewMerchant(tx: DbTx, m: { id: string; name: string; email: string; passwordHash: string }) {
  await tx.merchant.create({ data: m });
  const key = await createApiKey(tx, m.id, "sandbox");
  const signingSecret = await createSigningSecret(tx, m.id, "sandbox");
  await creditWallet(tx, m.id, "sandbox", SANDBOX_OPENING_CREDIT_PAISE, "SANDBOX_CREDIT", "Opening test credit");
  return { key, signingSecret };
}

/** Operator approval: live mode unlocks and gets its own signing secret. */
export async function approveGoLive(db: Db, merchantId: string) {
  const m = await requireMerchant(db, merchantId);
  if (m.liveEnabled) return { merchantId, liveEnabled: true, alreadyLive: true };
  await db.$transaction(async (tx) => {
    await tx.merchant.update({ where: { id: merchantId }, data: { liveEnabled: true, goLiveApprovedAt: new Date() } });
    const hasSecret = await tx.signingSecret.count({ where: { merchantId, mode: "live" } });
    if (!hasSecret) await createSigningSecret(tx, merchantId, "live");
    await ensureWallet(tx, merchantId, "live");
  });
  await bumpAuthEpoch(db);
  return { merchantId, liveEnabled: true, alreadyLive: false };
}

export async function setMerchantStatus(db: Db, merchantId: string, status: "ACTIVE" | "SUSPENDED") {
  await requireMerchant(db, merchantId);
  await db.merchant.update({ where: { id: merchantId }, data: { status } });
  await bumpAuthEpoch(db);
  return { merchantId, status };
}

export async function setWhitelistEnforcement(db: Db, merchantId: string, enforceAll: boolean) {
  await requireMerchant(db, merchantId);
  await db.merchant.update({ where: { id: merchantId }, data: { enforceWhitelistAll: enforceAll } });
  await bumpAuthEpoch(db);
}

export async function createAdmin(db: Db, emailInput: string, password: string) {
  const email = emailSchema.safeParse(emailInput);
  if (!email.success) throw new AppError("VALIDATION_ERROR", "Enter a valid email address", { field: "email" });
  const pw = passwordSchema.safeParse(password);
  if (!pw.success) throw new AppError("VALIDATION_ERROR", pw.error.issues[0]?.message, { field: "password" });
  const existing = await db.adminUser.findUnique({ where: { email: email.data } });
  if (existing) throw new AppError("CONFLICT", "An admin with this email already exists.", { field: "email" });
  const id = newId("adm");
  await db.adminUser.create({ data: { id, email: email.data, passwordHash: await hashPassword(password, passwordHashCost()) } });
  return { adminId: id, email: email.data };
}

/** A merchant by id, or NOT_FOUND (for operator tools). */
export async function requireMerchant(db: Db, merchantId: string) {
  const m = await db.merchant.findUnique({ where: { id: merchantId } });
  if (!m) throw new AppError("NOT_FOUND", `No merchant ${merchantId}.`);
  return m;
}

/** Every merchant, oldest first (for operator tools). */
export function listAllMerchants(db: Db) {
  return db.merchant.findMany({
    orderBy: { createdAt: "asc" },
    select: { id: true, name: true, email: true, status: true, liveEnabled: true, createdAt: true },
  });
}
