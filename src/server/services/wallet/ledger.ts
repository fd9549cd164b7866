import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { CSV_BOM, csvLine } from "@/server/lib/csv";
import { istDayRange } from "@/server/lib/ist";
import { afterCursor, encodeCursor, newestFirst, toPage } from "@/server/lib/pagination";
import { formatPaise, formatRupees } from "@/lib/money";
import type { Mode } from "@/lib/mode";
import { KYC_KINDS, type KycFees } from "@/lib/kyc";
import { SANDBOX_BALANCE_CAP_PAISE, TEST_FUNDS_MAX_PAISE, THRESHOLD_MAX_PAISE, type LedgerFilters } from "@/lib/schemas/wallet";
import { creditWallet, ensureWallet } from "@/server/services/wallet/wallet";

/** The wallet of one mode as the dashboard shows it, with the merchant's fee per KYC call. */
export async function walletSummary(db: Db, merchantId: string, mode: Mode) {
  const [wallet, merchant] = await Promise.all([
    db.wallet.findUnique({ where: { merchantId_mode: { merchantId, mode } } }),
    db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { kycFeeAadhaarPaise: true, kycFeePanPaise: true, kycFeeBankPaise: true } }),
  ]);
  const fees: KycFees = { AADHAAR_OTP: merchant.kycFeeAadhaarPaise, PAN: merchant.kycFeePanPaise, BANK: merchant.kycFeeBankPaise };
  const balancePaise = wallet?.balancePaise ?? 0;
  const availablePaise = wallet?.availablePaise ?? 0;
  return {
    mode,
    exists: Boolean(wallet),
    balancePaise,
    availablePaise,
    /** Fees reserved by KYC calls still running. */
    heldPaise: balancePaise - availablePaise,
    lowBalanceThresholdPaise: wallet?.lowBalanceThresholdPaise ?? null,
    /** The alert for the current dip below the threshold has gone out. */
    lowBalanceAlerted: wallet?.lowBalanceAlerted ?? false,
    fees: KYC_KINDS.map((kind) => ({ kind, feePaise: fees[kind] })),
    testFunds: mode === "sandbox" ? { maxPerAddPaise: TEST_FUNDS_MAX_PAISE, balanceCapPaise: SANDBOX_BALANCE_CAP_PAISE } : null,
  };
}

/** The type filter as a where on the signed amount or the reason. */
function ledgerFilterWhere(f: LedgerFilters) {
  const type = f.type === "credits" ? { amountPaise: { gt: 0 } } : f.type === "debits" ? { amountPaise: { lt: 0 } } : f.type ? { reason: f.type } : {};
  return { ...type, ...istDayRange(f.from, f.to) };
}

/** The mode's ledger, newest first; by credits, debits or one reason, and IST dates. */
export async function listLedger(db: Db, merchantId: string, mode: Mode, input: LedgerFilters & { cursor?: string; limit: number }) {
  const rows = await db.ledgerEntry.findMany({
    where: { merchantId, mode, ...ledgerFilterWhere(input), AND: [afterCursor(input.cursor)] },
    orderBy: newestFirst,
    take: input.limit + 1,
    select: { id: true, amountPaise: true, balanceAfterPaise: true, reason: true, reference: true, createdAt: true },
  });
  const { rows: page, nextCursor } = toPage(rows, input.limit);
  return {
    items: page.map((e) => ({
      id: e.id,
      amountPaise: e.amountPaise,
      balanceAfterPaise: e.balanceAfterPaise,
      reason: e.reason,
      reference: e.reference,
      /** The KYC transaction the entry paid for, when it is one. */
      kycTransactionId: e.reference?.startsWith("kyc_txn_") ? e.reference : null,
      createdAt: e.createdAt.toISOString(),
    })),
    nextCursor,
  };
}

// Credits and debits in columns of their own, as on a bank statement: a signed "-1.00" would be
// quoted as text by the CSV formula guard.
export const LEDGER_CSV_COLUMNS = ["entry_id", "created_at", "reason", "credit", "debit", "balance_after", "currency", "reference", "mode"] as const;

const EXPORT_BATCH = 500;

/** The filtered ledger as CSV, newest first, a batch at a time (constant memory); amounts in rupees. */
export async function* exportLedgerCsv(db: Db, merchantId: string, mode: Mode, filters: LedgerFilters): AsyncGenerator<string> {
  yield `${CSV_BOM}${csvLine([...LEDGER_CSV_COLUMNS])}`;
  const where = { merchantId, mode, ...ledgerFilterWhere(filters) };
  let cursor: string | undefined;
  for (;;) {
    const rows = await db.ledgerEntry.findMany({ where: { ...where, AND: [afterCursor(cursor)] }, orderBy: newestFirst, take: EXPORT_BATCH });
    if (rows.length === 0) return;
    yield rows
      .map((e) =>
        csvLine([
          e.id,
          e.createdAt.toISOString(),
          e.reason,
          e.amountPaise >= 0 ? formatPaise(e.amountPaise) : null,
          e.amountPaise < 0 ? formatPaise(-e.amountPaise) : null,
          formatPaise(e.balanceAfterPaise),
          "INR",
          e.reference,
          e.mode,
        ]),
      )
      .join("");
    if (rows.length < EXPORT_BATCH) return;
    cursor = encodeCursor(rows[rows.length - 1]!);
  }
}

/**
 * Test money for the sandbox wallet, at most ₹1,00,000 at a time and never past a ₹10,00,000
 * balance. The credit and the cap check share one transaction: a credit that would pass the cap
 * is rolled back, so two racing clicks cannot both slip under it.
 */
export async function addTestFunds(db: Db, merchantId: string, mode: Mode, amountPaise: number) {
  if (mode !== "sandbox") throw new AppError("FORBIDDEN", "Test funds are for the sandbox wallet only; the live wallet is topped up by payment.");
  if (!Number.isInteger(amountPaise) || amountPaise <= 0 || amountPaise > TEST_FUNDS_MAX_PAISE)
    throw new AppError("VALIDATION_ERROR", `Add ₹1.00 to ${formatRupees(TEST_FUNDS_MAX_PAISE)} at a time.`, { field: "amount" });
  const balancePaise = await db.$transaction(async (tx) => {
    const after = await creditWallet(tx, merchantId, mode, amountPaise, "TEST_FUNDS", "Added from the dashboard");
    if (after > SANDBOX_BALANCE_CAP_PAISE) {
      const room = Math.max(0, SANDBOX_BALANCE_CAP_PAISE - (after - amountPaise));
      throw new AppError(
        "VALIDATION_ERROR",
        room > 0
          ? `A sandbox wallet holds at most ${formatRupees(SANDBOX_BALANCE_CAP_PAISE)}; you can add up to ${formatRupees(room)} now.`
          : `A sandbox wallet holds at most ${formatRupees(SANDBOX_BALANCE_CAP_PAISE)}, and this one is full.`,
        { field: "amount" },
      );
    }
    return after;
  });
  return { balancePaise, addedPaise: amountPaise };
}

/**
 * Sets (or, with null, removes) the low-balance threshold. A change re-arms the alert, so when the
 * balance is already below the new threshold the next debit sends wallet.low_balance once; saving
 * the same threshold again leaves an alert already sent alone.
 */
export async function setLowBalanceThreshold(db: Db, merchantId: string, mode: Mode, thresholdPaise: number | null) {
  if (thresholdPaise !== null && (!Number.isInteger(thresholdPaise) || thresholdPaise <= 0 || thresholdPaise > THRESHOLD_MAX_PAISE))
    throw new AppError("VALIDATION_ERROR", `Enter a threshold of ₹1.00 to ${formatRupees(THRESHOLD_MAX_PAISE)}, or clear it.`, { field: "threshold" });
  return db.$transaction(async (tx) => {
    const wallet = await ensureWallet(tx, merchantId, mode);
    if (wallet.lowBalanceThresholdPaise === thresholdPaise) return { lowBalanceThresholdPaise: thresholdPaise, changed: false };
    await tx.wallet.update({ where: { id: wallet.id }, data: { lowBalanceThresholdPaise: thresholdPaise, lowBalanceAlerted: false } });
    return { lowBalanceThresholdPaise: thresholdPaise, changed: true };
  });
}
