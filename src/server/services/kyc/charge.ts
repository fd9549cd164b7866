import type { Db, DbTx } from "@/server/db/client";
import { encrypt } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { formatPaise } from "@/lib/money";
import type { Mode } from "@/lib/mode";
import { KYC_LEDGER_REASON, type KycKind } from "@/lib/kyc";
import { captureHold, placeHold, releaseHold } from "@/server/services/wallet/wallet";

export interface KycCaller {
  merchantId: string;
  mode: Mode;
  requestId: string;
  feePaise: number;
}

/** Where the full result of a KYC call is kept, encrypted, and for how long. */
export interface KycVault {
  encryptionKey: string;
  retentionDays: number;
}

/** What every charged answer carries beside its own fields. */
export interface KycChargeFields {
  kycTransactionId: string;
  charge: { amount: string; currency: "INR" };
  walletBalance: string;
}

/** The stored summary of a charged call: masked subject and outcome, never the full data. */
export interface KycSummary {
  kind: KycKind;
  subjectMasked: string;
  outcome: string;
  nameMatchScore?: number | null;
  otpRequestId?: string | null;
}

/**
 * A KYC call charged exactly once, and only when it answers: the fee is held before the source is
 * called (402 when the wallet cannot cover it), and the answer turns the hold into the debit, the
 * ledger entry and the KYC transaction in one database transaction. Anything else releases the hold.
 * `settle` runs inside that transaction for the call's own state (e.g. the OTP request).
 */
export async function runChargedKyc<T extends object>(
  db: Db,
  vault: KycVault,
  caller: KycCaller,
  kind: KycKind,
  call: () => Promise<{ data: T; summary: KycSummary; settle?: (tx: DbTx) => Promise<void> }>,
): Promise<T & KycChargeFields> {
  const holdId = await placeHold(db, {
    merchantId: caller.merchantId,
    mode: caller.mode,
    amountPaise: caller.feePaise,
    reason: KYC_LEDGER_REASON[kind],
    requestId: caller.requestId,
  });
  try {
    const { data, summary, settle } = await call();
    const kycTransactionId = newId("kyc_txn");
    return await db.$transaction(async (tx) => {
      const captured = await captureHold(tx, holdId, kycTransactionId);
      const answer = {
        ...data,
        kycTransactionId,
        charge: { amount: formatPaise(captured.amountPaise), currency: "INR" as const },
        walletBalance: formatPaise(captured.balanceAfterPaise),
      };
      const keep = vault.retentionDays > 0;
      await tx.kycTransaction.create({
        data: {
          id: kycTransactionId,
          merchantId: caller.merchantId,
          mode: caller.mode,
          kind: summary.kind,
          requestId: caller.requestId,
          otpRequestId: summary.otpRequestId ?? null,
          subjectMasked: summary.subjectMasked,
          outcome: summary.outcome,
          nameMatchScore: summary.nameMatchScore ?? null,
          feePaise: captured.amountPaise,
          balanceAfterPaise: captured.balanceAfterPaise,
          ledgerEntryId: captured.ledgerEntryId,
          resultEnc: keep ? encrypt(JSON.stringify(answer), vault.encryptionKey) : null,
          resultExpiresAt: keep ? new Date(Date.now() + vault.retentionDays * 86_400_000) : null,
        },
      });
      await settle?.(tx);
      return answer;
    });
  } catch (err) {
    // If even the release fails, the stale-hold sweeper gives the fee back later.
    await releaseHold(db, holdId).catch((releaseErr: unknown) => log.warn("wallet hold release failed", { holdId, err: releaseErr }));
    throw err;
  }
}
