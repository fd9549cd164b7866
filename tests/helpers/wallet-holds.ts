import type { Db } from "@/server/db/client";
import type { KycTransactionRow } from "@/server/services/wallet/holds";

/** A KYC transaction for a capture to write, with made-up values (its fee and balance come from the capture). */
export function kycRow(id: string, at = new Date()): KycTransactionRow {
  return {
    id,
    kind: "PAN",
    requestId: `req_${id}`,
    otpRequestId: null,
    subjectMasked: "ABCPKXXXXF",
    outcome: "VALID",
    nameMatchScore: 0.93,
    resultEnc: "enc",
    resultExpiresAt: new Date(at.getTime() + 86_400_000),
    createdAt: at,
  };
}

/** A merchant (`merchantId`) whose sandbox wallet holds `balance`, credited by one ledger entry. */
export async function fundedSandboxWallet(db: Db, merchantId: string, name: string, balance: number) {
  await db.merchant.create({ data: { id: merchantId, name, email: `${merchantId}@example.com`, passwordHash: "x" } });
  const wallet = await db.wallet.create({ data: { id: `wal_${merchantId}`, merchantId, mode: "sandbox", balancePaise: balance, availablePaise: balance } });
  await db.ledgerEntry.create({
    data: {
      id: `led_credit_${merchantId}`,
      walletId: wallet.id,
      merchantId,
      mode: "sandbox",
      amountPaise: balance,
      balanceAfterPaise: balance,
      reason: "TEST_FUNDS",
    },
  });
  return wallet;
}
