import { sql, type AtomicWriter } from "@/server/db/atomic-write";
import { walletGroupsOf, type DirectCharge } from "@/server/db/wallet-groups";
import { capturedOf, type Captured } from "@/server/services/wallet/holds";

/**
 * Charges without a hold, for calls whose answer is known before they pay (sandbox fixtures: local,
 * deterministic, never slow and never failing half way). The fee is taken only if the wallet's
 * available balance covers it, and the debit, its ledger entry and the KYC transaction are written
 * together: the same outcome as a hold placed and captured at once, with one write instead of two and
 * no hold row. Charges of one wallet asked for at about the same time are written together, as holds
 * are (holds.ts), and each gets what charging them one by one in the order asked would have given.
 */
export type { DirectCharge };

/**
 * Debits the fee, only if the wallet's available balance covers it, with its ledger entry and KYC
 * transaction. Null when it does not cover it (nothing written).
 */
export async function chargeWithoutHold(writer: AtomicWriter, c: DirectCharge): Promise<Captured | null> {
  return capturedOf(await walletGroupsOf(writer).charges.submit(`${c.mode}:${c.merchantId}`, c));
}

/** Whether the wallet's available balance covers a fee now (a read: nothing is taken). */
export async function walletCovers(writer: AtomicWriter, merchantId: string, mode: string, amountPaise: number): Promise<boolean> {
  const [wallet] = await writer.read<{ availablePaise: number }>(
    sql`SELECT "availablePaise" FROM "Wallet" WHERE "merchantId" = ${merchantId} AND "mode" = ${mode}`,
  );
  return wallet !== undefined && Number(wallet.availablePaise) >= amountPaise;
}
