import type { DbTx } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import type { Mode } from "@/lib/mode";

/** Test credit every new merchant's sandbox wallet starts with (₹10,000.00). */
export const SANDBOX_OPENING_CREDIT_PAISE = 1_000_000;

export async function ensureWallet(tx: DbTx, merchantId: string, mode: Mode) {
  const existing = await tx.wallet.findUnique({ where: { merchantId_mode: { merchantId, mode } } });
  if (existing) return existing;
  return tx.wallet.create({ data: { id: newId("wal"), merchantId, mode } });
}

/** Adds money: one conditional increment and its ledger row, in the caller's transaction. */
export async function creditWallet(tx: DbTx, merchantId: string, mode: Mode, amountPaise: number, reason: string, reference: string | null) {
  if (!Number.isInteger(amountPaise) || amountPaise <= 0) throw new AppError("VALIDATION_ERROR", "A credit must be a positive whole number of paise.");
  const wallet = await ensureWallet(tx, merchantId, mode);
  const updated = await tx.wallet.update({ where: { id: wallet.id }, data: { balancePaise: { increment: amountPaise } } });
  await tx.ledgerEntry.create({
    data: { id: newId("led"), walletId: wallet.id, merchantId, mode, amountPaise, balanceAfterPaise: updated.balancePaise, reason, reference },
  });
  return updated.balancePaise;
}

/**
 * Takes money only if the balance covers it: a conditional update (`balance >= amount`), never a
 * read-modify-write, so concurrent debits cannot drive a wallet below zero.
 */
export async function debitWallet(tx: DbTx, merchantId: string, mode: Mode, amountPaise: number, reason: string, reference: string | null) {
  if (!Number.isInteger(amountPaise) || amountPaise <= 0) throw new AppError("VALIDATION_ERROR", "A debit must be a positive whole number of paise.");
  const res = await tx.wallet.updateMany({
    where: { merchantId, mode, balancePaise: { gte: amountPaise } },
    data: { balancePaise: { decrement: amountPaise } },
  });
  if (res.count === 0) throw new AppError("INSUFFICIENT_BALANCE");
  const wallet = await tx.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId, mode } } });
  await tx.ledgerEntry.create({
    data: { id: newId("led"), walletId: wallet.id, merchantId, mode, amountPaise: -amountPaise, balanceAfterPaise: wallet.balancePaise, reason, reference },
  });
  return wallet.balancePaise;
}
