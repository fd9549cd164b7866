import type { AtomicWriter } from "@/server/db/atomic-write";
import type { Db, DbTx } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { newId, newSortableId } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { formatPaise } from "@/lib/money";
import type { Mode } from "@/lib/mode";
import { releaseHold, type Captured } from "@/server/services/wallet/holds";
import { emitWebhookEvent } from "@/server/services/webhooks/events";

/**
 * The prepaid wallet. `balancePaise` is the sum of the ledger; `availablePaise` is the balance less
 * open holds. Every change is a conditional update (never read-modify-write) with its ledger row in
 * the same transaction, so concurrent calls cannot drive a wallet below zero or lose a debit.
 * Every balance change goes through this folder: credits and debits here, the holds of charged
 * calls in holds.ts.
 */

/** Test credit every new merchant's sandbox wallet starts with (₹10,000.00). */
export const SANDBOX_OPENING_CREDIT_PAISE = 1_000_000;

/** The largest single credit (₹1,00,00,000); the payments cap does not apply to wallets. */
export const MAX_WALLET_CREDIT_PAISE = 1_000_000_000;

/** A hold still HELD after this long belongs to a call whose process died: the sweeper releases it. */
export const STALE_HOLD_MS = 5 * 60 * 1000;

export async function ensureWallet(tx: DbTx, merchantId: string, mode: Mode) {
  const existing = await tx.wallet.findUnique({ where: { merchantId_mode: { merchantId, mode } } });
  if (existing) return existing;
  return tx.wallet.create({ data: { id: newId("wal"), merchantId, mode } });
}

function requirePaise(amountPaise: number, what: string) {
  if (!Number.isInteger(amountPaise) || amountPaise <= 0) throw new AppError("VALIDATION_ERROR", `${what} must be a positive whole number of paise.`);
}

async function appendLedger(
  tx: DbTx,
  w: { id: string; merchantId: string; mode: string },
  amountPaise: number,
  balanceAfterPaise: number,
  reason: string,
  reference: string | null,
) {
  const id = newSortableId("led");
  await tx.ledgerEntry.create({ data: { id, walletId: w.id, merchantId: w.merchantId, mode: w.mode, amountPaise, balanceAfterPaise, reason, reference } });
  return id;
}

/**
 * After a debit: below the threshold and not yet alerted → one wallet.low_balance event (the flag is
 * set conditionally, so of two racing debits only one sends it). After a credit back at or above it,
 * the alert is re-armed.
 */
async function checkLowBalance(tx: DbTx, walletId: string) {
  const w = await tx.wallet.findUniqueOrThrow({ where: { id: walletId } });
  const threshold = w.lowBalanceThresholdPaise;
  if (threshold === null) return;
  if (w.balancePaise < threshold && !w.lowBalanceAlerted) {
    const { count } = await tx.wallet.updateMany({ where: { id: w.id, lowBalanceAlerted: false }, data: { lowBalanceAlerted: true } });
    if (count === 1) {
      await emitWebhookEvent(tx, {
        merchantId: w.merchantId,
        mode: w.mode,
        type: "wallet.low_balance",
        subjectId: w.id,
        data: { wallet: { mode: w.mode as Mode, balance: formatPaise(w.balancePaise), threshold: formatPaise(threshold), currency: "INR" } },
      });
    }
  } else if (w.balancePaise >= threshold && w.lowBalanceAlerted) {
    await tx.wallet.updateMany({ where: { id: w.id, lowBalanceAlerted: true }, data: { lowBalanceAlerted: false } });
  }
}

/** Adds money: one conditional increment and its ledger row, in the caller's transaction. Returns the balance after. */
export async function creditWallet(tx: DbTx, merchantId: string, mode: Mode, amountPaise: number, reason: string, reference: string | null) {
  requirePaise(amountPaise, "A credit");
  if (amountPaise > MAX_WALLET_CREDIT_PAISE) throw new AppError("VALIDATION_ERROR", "One credit may be at most ₹1,00,00,000.00.");
  const wallet = await ensureWallet(tx, merchantId, mode);
  const updated = await tx.wallet.update({
    where: { id: wallet.id },
    data: { balancePaise: { increment: amountPaise }, availablePaise: { increment: amountPaise } },
  });
  await appendLedger(tx, updated, amountPaise, updated.balancePaise, reason, reference);
  if (updated.lowBalanceAlerted) await checkLowBalance(tx, updated.id);
  return updated.balancePaise;
}

/** Takes money outright (an operator's debit) only if the available balance covers it. Returns the balance after. */
export async function debitWallet(tx: DbTx, merchantId: string, mode: Mode, amountPaise: number, reason: string, reference: string | null) {
  requirePaise(amountPaise, "A debit");
  const res = await tx.wallet.updateMany({
    where: { merchantId, mode, availablePaise: { gte: amountPaise } },
    data: { balancePaise: { decrement: amountPaise }, availablePaise: { decrement: amountPaise } },
  });
  if (res.count === 0) throw new AppError("INSUFFICIENT_BALANCE", "The wallet's available balance is below this amount.");
  const wallet = await tx.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId, mode } } });
  await appendLedger(tx, wallet, -amountPaise, wallet.balancePaise, reason, reference);
  await checkLowBalance(tx, wallet.id);
  return wallet.balancePaise;
}

/**
 * Sends the low-balance alert a capture made due, in a transaction of its own (the capture ran on the
 * hot path). A failure is logged, never the charge's.
 */
export async function alertLowBalanceAfterCapture(db: Db, captured: Captured) {
  const threshold = captured.lowBalanceThresholdPaise;
  if (threshold === null || captured.balanceAfterPaise >= threshold || captured.lowBalanceAlerted) return;
  await db.$transaction((tx) => checkLowBalance(tx, captured.walletId)).catch((err: unknown) => log.warn("low-balance alert failed", { err }));
}

/** Releases holds left HELD by calls that never finished (a crash between hold and settle). */
export async function releaseStaleHolds(db: Db, writer: AtomicWriter, now = new Date()): Promise<number> {
  const stale = await db.walletHold.findMany({
    where: { state: "HELD", createdAt: { lt: new Date(now.getTime() - STALE_HOLD_MS) } },
    select: { id: true },
    take: 500,
  });
  let released = 0;
  for (const h of stale) if (await releaseHold(writer, h.id, now)) released++;
  return released;
}
