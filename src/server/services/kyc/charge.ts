import type { AtomicWriter, WriteScript } from "@/server/db/atomic-write";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { encrypt } from "@/server/lib/crypto";
import { newId, newSortableId } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { formatPaise } from "@/lib/money";
import type { Mode } from "@/lib/mode";
import { KYC_LEDGER_REASON, type KycKind } from "@/lib/kyc";
import { chargeWithoutHold, walletCovers } from "@/server/services/wallet/direct-charges";
import { captureHold, placeHold, releaseHold, type KycTransactionRow } from "@/server/services/wallet/holds";
import { alertLowBalanceAfterCapture, creditWallet } from "@/server/services/wallet/wallet";
import { vendorConsentOf, type ConsentOnRecord } from "@/server/services/consent/consent";

export interface KycCaller {
  merchantId: string;
  mode: Mode;
  requestId: string;
  feePaise: number;
  /** The consent the call is made under (consentFor: checked before the caller is made), stored with its KYC transaction. */
  consent?: ConsentOnRecord;
}

/** What the call's live vendor is told of the consent (absent in sandbox). */
export const vendorOptionsOf = (caller: KycCaller) => {
  const consent = caller.consent && vendorConsentOf(caller.mode, caller.consent);
  return consent ? { consent } : undefined;
};

/** Where charged calls are held and settled, and where their full results are kept (encrypted) and for how long. */
export interface KycVault {
  db: Db;
  /** The hot writer holds and captures run on. */
  store: AtomicWriter;
  encryptionKey: string;
  retentionDays: number;
}

/**
 * Longest wait for a KYC source. Well under the idempotency lease and the sweeps of unfinished calls
 * (OTP claims after 2 minutes, holds after 5), so a slow source can never outlive its claim or hold.
 */
export const SOURCE_TIMEOUT_MS = 30_000;

export function withSourceTimeout<T>(call: Promise<T>, ms = SOURCE_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError("SOURCE_TIMEOUT", undefined, { retryAfterSeconds: 30 })), ms);
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}

/** What every charged answer carries beside its own fields. */
export interface KycChargeFields {
  kycTransactionId: string;
  charge: { amount: string; currency: "INR" };
  walletBalance: string;
}

export function chargeFields(kycTransactionId: string, feePaise: number, balanceAfterPaise: number): KycChargeFields {
  return { kycTransactionId, charge: { amount: formatPaise(feePaise), currency: "INR" }, walletBalance: formatPaise(balanceAfterPaise) };
}

/** The stored summary of a charged call: masked subject and outcome, never the full data. */
export interface KycSummary {
  kind: KycKind;
  subjectMasked: string;
  outcome: string;
  nameMatchScore?: number | null;
  /** The OTP request the call verified. */
  otpRequestId?: string | null;
  /** The live vendor that answered (C6), for operators; absent in sandbox. */
  vendor?: string | null;
}

/** What a charged call's source step answers. */
export interface KycAnswer<T> {
  data: T;
  summary: KycSummary;
  /** Writes that must commit with the charge, or refuse it by throwing (everything is then rolled back and released). */
  alsoCommit?: (at: Date) => WriteScript<void>;
}

/** The ledger entry's id and the KYC transaction of an answer about to be charged; the full result kept encrypted for the retention. */
function chargedRecord(vault: KycVault, caller: KycCaller, data: object, summary: KycSummary) {
  const kycTransactionId = newId("kyc_txn");
  const at = new Date();
  const keep = vault.retentionDays > 0;
  // Kept without the charge and balance, which the row holds and the reader adds back.
  const resultEnc = keep ? encrypt(JSON.stringify({ ...data, kycTransactionId }), vault.encryptionKey) : null;
  const kycTransaction: KycTransactionRow = {
    id: kycTransactionId,
    kind: summary.kind,
    requestId: caller.requestId,
    otpRequestId: summary.otpRequestId ?? null,
    subjectMasked: summary.subjectMasked,
    outcome: summary.outcome,
    nameMatchScore: summary.nameMatchScore ?? null,
    vendor: summary.vendor ?? null,
    resultEnc,
    resultExpiresAt: keep ? new Date(at.getTime() + vault.retentionDays * 86_400_000) : null,
    consent: caller.consent?.consent ?? null,
    purpose: caller.consent?.purpose ?? null,
    consentSource: caller.consent?.source ?? null,
    createdAt: at,
  };
  return { at, ledgerId: newSortableId("led"), kycTransaction };
}

/**
 * A KYC call charged exactly once, and only when it answers: the fee is held before the source is
 * called (402 when the wallet cannot cover it), and the answer turns the hold into the debit, the
 * ledger entry and the KYC transaction in one database transaction. Anything else releases it.
 */
export async function runChargedKyc<T extends object>(
  vault: KycVault,
  caller: KycCaller,
  kind: KycKind,
  call: () => Promise<KycAnswer<T>>,
): Promise<T & KycChargeFields> {
  const holdId = newSortableId("hold");
  const held = await placeHold(vault.store, {
    id: holdId,
    merchantId: caller.merchantId,
    mode: caller.mode,
    amountPaise: caller.feePaise,
    reason: KYC_LEDGER_REASON[kind],
    requestId: caller.requestId,
    createdAt: new Date(),
  });
  if (!held) throw new AppError("INSUFFICIENT_BALANCE");
  try {
    const { data, summary, alsoCommit } = await call();
    const { at, ledgerId, kycTransaction } = chargedRecord(vault, caller, data, summary);
    const captured = await captureHold(vault.store, {
      holdId,
      merchantId: caller.merchantId,
      mode: caller.mode,
      ledgerId,
      reference: kycTransaction.id,
      at,
      alsoCommit: alsoCommit && (() => alsoCommit(at)),
      kycTransaction,
    });
    if (!captured) {
      log.error("KYC answer not charged: its wallet hold was already released", { holdId, requestId: caller.requestId });
      throw new AppError("INTERNAL_ERROR");
    }
    await alertLowBalanceAfterCapture(vault.db, captured);
    return { ...data, ...chargeFields(kycTransaction.id, captured.amountPaise, captured.balanceAfterPaise) };
  } catch (err) {
    // If even the release fails, the stale-hold sweeper gives the fee back later.
    await releaseHold(vault.store, holdId, new Date()).catch((releaseErr: unknown) => log.warn("wallet hold release failed", { holdId, err: releaseErr }));
    throw err;
  }
}

/**
 * A charged call whose source answers at once from local fixtures (sandbox): it cannot be slow or
 * fail half way, so the answer comes first and the fee is then charged in one write without a hold
 * (direct-charges.ts), with what callers see unchanged: 402 when the wallet cannot cover the fee
 * (also when the source would have failed), a source failure uncharged, every answer charged once.
 */
export async function runLocallyAnsweredKyc<T extends object>(
  vault: KycVault,
  caller: KycCaller,
  answer: () => Omit<KycAnswer<T>, "alsoCommit">,
): Promise<T & KycChargeFields> {
  let answered: Omit<KycAnswer<T>, "alsoCommit">;
  try {
    answered = answer();
  } catch (err) {
    // A hold would have been refused before the source was asked.
    if (!(await walletCovers(vault.store, caller.merchantId, caller.mode, caller.feePaise))) throw new AppError("INSUFFICIENT_BALANCE");
    throw err;
  }
  const { data, summary } = answered;
  const { at, ledgerId, kycTransaction } = chargedRecord(vault, caller, data, summary);
  const charged = await chargeWithoutHold(vault.store, {
    merchantId: caller.merchantId,
    mode: caller.mode,
    amountPaise: caller.feePaise,
    reason: KYC_LEDGER_REASON[summary.kind],
    ledgerId,
    reference: kycTransaction.id,
    at,
    kycTransaction,
  });
  if (!charged) throw new AppError("INSUFFICIENT_BALANCE");
  await alertLowBalanceAfterCapture(vault.db, charged);
  return { ...data, ...chargeFields(kycTransaction.id, charged.amountPaise, charged.balanceAfterPaise) };
}

/** The ledger reason of a charge given back because its answer was never sent. */
export const KYC_REVERSAL_REASON = "KYC_REVERSAL";

/**
 * Gives a charged call's fee back: its answer could not be recorded, so it was never sent (the
 * merchant got a 503 and may retry). One ledger credit of the fee, referencing the transaction, and
 * the transaction marked reversed with its stored result dropped, in one transaction; a second call
 * for the same transaction changes nothing. Answers whether this call reversed it.
 */
export async function reverseKycCharge(db: Db, merchantId: string, mode: Mode, kycTransactionId: string, at = new Date()): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.kycTransaction.updateMany({
      where: { id: kycTransactionId, merchantId, mode, reversedAt: null },
      data: { reversedAt: at, resultEnc: null, resultExpiresAt: null },
    });
    if (count === 0) return false;
    const { feePaise } = await tx.kycTransaction.findUniqueOrThrow({ where: { id: kycTransactionId }, select: { feePaise: true } });
    if (feePaise > 0) await creditWallet(tx, merchantId, mode, feePaise, KYC_REVERSAL_REASON, kycTransactionId);
    return true;
  });
}
