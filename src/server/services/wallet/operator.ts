import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { formatPaise } from "@/lib/money";
import type { Mode } from "@/lib/mode";
import { KYC_KINDS, type KycFees } from "@/lib/kyc";
import { bumpAuthEpoch } from "@/server/services/auth/auth-epoch";
import { recordOperatorAction, type OperatorActor } from "@/server/services/accounts/operator-actions";
import { creditWallet, debitWallet } from "@/server/services/wallet/wallet";

/** Highest fee an operator may set per call (₹1,000.00): a typo must not empty a wallet. */
export const MAX_KYC_FEE_PAISE = 100_000;

export interface WalletAdjustment {
  merchantId: string;
  mode: Mode;
  direction: "credit" | "debit";
  amountPaise: number;
  /** Why, in the operator's words; kept on the ledger entry and the operator log. */
  reason: string;
}

/** An operator's credit or debit: the ledger entry and the operator record commit together. */
export async function adjustWalletByOperator(db: Db, actor: OperatorActor, a: WalletAdjustment) {
  const reason = a.reason.trim();
  if (reason.length < 3 || reason.length > 200) throw new AppError("VALIDATION_ERROR", "Give a reason of 3 to 200 characters.", { field: "reason" });
  const merchant = await db.merchant.findUnique({ where: { id: a.merchantId }, select: { id: true } });
  if (!merchant) throw new AppError("NOT_FOUND", "No merchant with this id.");
  return db.$transaction(async (tx) => {
    const balanceAfterPaise =
      a.direction === "credit"
        ? await creditWallet(tx, a.merchantId, a.mode, a.amountPaise, "OPERATOR_CREDIT", reason)
        : await debitWallet(tx, a.merchantId, a.mode, a.amountPaise, "OPERATOR_DEBIT", reason);
    await recordOperatorAction(
      tx,
      actor,
      a.direction === "credit" ? "WALLET_CREDIT" : "WALLET_DEBIT",
      a.merchantId,
      `${a.mode} ${a.direction} ₹${formatPaise(a.amountPaise)}: ${reason}`,
    );
    return {
      merchantId: a.merchantId,
      mode: a.mode,
      direction: a.direction,
      amount: formatPaise(a.amountPaise),
      balance: formatPaise(balanceAfterPaise),
      balancePaise: balanceAfterPaise,
    };
  });
}

/** Sets a merchant's KYC fees; every API instance charges the new fees within a second (auth epoch). */
export async function setKycFees(db: Db, actor: OperatorActor, merchantId: string, fees: KycFees) {
  for (const k of KYC_KINDS) {
    const v = fees[k];
    if (!Number.isInteger(v) || v < 0 || v > MAX_KYC_FEE_PAISE)
      throw new AppError("VALIDATION_ERROR", "Each fee must be ₹0.00 to ₹1,000.00 in whole paise.", { field: k });
  }
  const before = await db.merchant.findUnique({ where: { id: merchantId }, select: { kycFeeAadhaarPaise: true, kycFeePanPaise: true, kycFeeBankPaise: true } });
  if (!before) throw new AppError("NOT_FOUND", "No merchant with this id.");
  await db.$transaction(async (tx) => {
    await tx.merchant.update({
      where: { id: merchantId },
      data: { kycFeeAadhaarPaise: fees.AADHAAR_OTP, kycFeePanPaise: fees.PAN, kycFeeBankPaise: fees.BANK },
    });
    const show = (a: number, b: number) => (a === b ? `₹${formatPaise(b)}` : `₹${formatPaise(a)} → ₹${formatPaise(b)}`);
    await recordOperatorAction(
      tx,
      actor,
      "KYC_FEES",
      merchantId,
      `Aadhaar OTP ${show(before.kycFeeAadhaarPaise, fees.AADHAAR_OTP)}, PAN ${show(before.kycFeePanPaise, fees.PAN)}, bank ${show(before.kycFeeBankPaise, fees.BANK)}`,
    );
  });
  await bumpAuthEpoch(db);
  return { merchantId, fees: { AADHAAR_OTP: formatPaise(fees.AADHAAR_OTP), PAN: formatPaise(fees.PAN), BANK: formatPaise(fees.BANK) } };
}

/** Both wallets of a merchant with their latest ledger entries, for the operator CLI. */
export async function walletOverview(db: Db, merchantId: string, mode?: Mode, recent = 10) {
  const merchant = await db.merchant.findUnique({ where: { id: merchantId }, select: { id: true } });
  if (!merchant) throw new AppError("NOT_FOUND", "No merchant with this id.");
  const wallets = await db.wallet.findMany({ where: { merchantId, ...(mode ? { mode } : {}) }, orderBy: { mode: "desc" } });
  return Promise.all(
    wallets.map(async (w) => {
      const entries = await db.ledgerEntry.findMany({ where: { walletId: w.id }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: recent });
      return {
        mode: w.mode as Mode,
        balance: formatPaise(w.balancePaise),
        available: formatPaise(w.availablePaise),
        onHold: formatPaise(w.balancePaise - w.availablePaise),
        lowBalanceThreshold: w.lowBalanceThresholdPaise === null ? null : formatPaise(w.lowBalanceThresholdPaise),
        recentEntries: entries.map((e) => ({
          id: e.id,
          amount: formatPaise(e.amountPaise),
          balanceAfter: formatPaise(e.balanceAfterPaise),
          reason: e.reason,
          reference: e.reference,
          createdAt: e.createdAt.toISOString(),
        })),
      };
    }),
  );
}
