import { rowsOf, sql, sqlJoined, sqlWithText, type AtomicWriter, type WriteScript } from "@/server/db/atomic-write";
import { JoiningCombiner, KeyedCombiner } from "@/server/db/combiner";
import { inArrivalOrder, iso, ledgerAndKycFromEntries, WALK_IN_ARRIVAL_ORDER, writeDebits, type GroupDebit } from "@/server/services/wallet/hold-groups";
import { capturedOf, type Captured, type CapturedRow } from "@/server/services/wallet/holds";

/**
 * Charges without a hold, for calls whose answer is known before they pay (sandbox fixtures: local,
 * deterministic, never slow and never failing half way). The fee is taken only if the wallet's
 * available balance covers it, and the debit, its ledger entry and the KYC transaction are written
 * together: the same outcome as a hold placed and captured at once, with one write instead of two and
 * no hold row. Charges of one wallet asked for at about the same time are written together, as holds
 * are (holds.ts), and each gets what charging them one by one in the order asked would have given.
 */
export type DirectCharge = Omit<GroupDebit, "walletId">;

/** PostgreSQL: one statement per group; the wallet row is locked once, then the walk decides in arrival order. */
async function chargeGroup(writer: AtomicWriter, merchantId: string, mode: string, charges: DirectCharge[]): Promise<(CapturedRow | null)[]> {
  const at = charges[charges.length - 1]!.at;
  const kyc = charges.map((c) => c.kycTransaction ?? null);
  const rows = await writer.run(
    rowsOf<CapturedRow & { ord: bigint }>(
      sqlJoined(
        sqlWithText`WITH RECURSIVE "req" AS (
          SELECT * FROM unnest(${charges.map((c) => c.amountPaise)}::int[], ${charges.map((c) => c.reason)}::text[], ${charges.map((c) => c.ledgerId)}::text[],
            ${charges.map((c) => c.reference)}::text[], ${charges.map((c) => iso(c.at))}::timestamp(3)[])
            WITH ORDINALITY AS r("amountPaise", "reason", "ledgerId", "reference", "at", "ord")
        ),
        "wallet" AS (SELECT "id", "availablePaise" FROM "Wallet" WHERE "merchantId" = ${merchantId} AND "mode" = ${mode} FOR UPDATE),
        ${WALK_IN_ARRIVAL_ORDER},
        "charged" AS (
          UPDATE "Wallet" SET "balancePaise" = "balancePaise" - (SELECT sum("amountPaise") FROM "held"),
            "availablePaise" = "availablePaise" - (SELECT sum("amountPaise") FROM "held"), "updatedAt" = ${at}
          WHERE "id" = (SELECT "id" FROM "wallet") AND EXISTS (SELECT 1 FROM "held")
          RETURNING "id", "balancePaise", "lowBalanceThresholdPaise", "lowBalanceAlerted"
        ),
        "entry" AS (
          SELECT "held".*, "charged"."id" AS "walletId",
            "charged"."balancePaise" + (SELECT sum("amountPaise") FROM "held") - sum("held"."amountPaise") OVER (ORDER BY "held"."ord") AS "balanceAfterPaise",
            "charged"."lowBalanceThresholdPaise", "charged"."lowBalanceAlerted"
          FROM "held", "charged"
        ),
`,
        ledgerAndKycFromEntries(merchantId, mode, kyc),
      ),
    ),
  );
  const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
  return charges.map((_, i) => byOrd.get(i + 1) ?? null);
}

/**
 * SQLite: one script of the group commit, which runs on the one writing connection with the write
 * lock held, so the balance it reads cannot move before it writes.
 */
export function* chargeScript(take: () => DirectCharge[]): WriteScript<(CapturedRow | null)[]> {
  const charges = take();
  const { merchantId, mode } = charges[0]!;
  const [wallet] = yield* rowsOf<{ id: string; availablePaise: number }>(
    sql`SELECT "id", "availablePaise" FROM "Wallet" WHERE "merchantId" = ${merchantId} AND "mode" = ${mode}`,
  );
  if (!wallet) return charges.map(() => null);
  const { taken, leftPaise } = inArrivalOrder(
    Number(wallet.availablePaise),
    charges.map((c) => c.amountPaise),
  );
  const total = Number(wallet.availablePaise) - leftPaise;
  if (total === 0) return charges.map(() => null);
  // Conditional on the balance read: should anything have moved it, the group fails and each charge is tried alone.
  const [after] = yield* rowsOf<{ balancePaise: number; lowBalanceThresholdPaise: number | null; lowBalanceAlerted: unknown }>(
    sql`UPDATE "Wallet" SET "availablePaise" = ${leftPaise}, "balancePaise" = "balancePaise" - ${total}, "updatedAt" = ${charges[charges.length - 1]!.at}
      WHERE "id" = ${wallet.id} AND "availablePaise" = ${wallet.availablePaise} RETURNING "balancePaise", "lowBalanceThresholdPaise", "lowBalanceAlerted"`,
  );
  if (!after) throw new Error("wallet balance moved during a charge group");
  const debits = charges.map((c, i) => (taken[i] ? { ...c, walletId: wallet.id } : null));
  return yield* writeDebits(debits, Number(after.balancePaise) + total, after);
}

type Combiner = { submit(key: string, c: DirectCharge): Promise<CapturedRow | null> };
const combiners = new WeakMap<AtomicWriter, Combiner>();

function combinerOf(writer: AtomicWriter): Combiner {
  let c = combiners.get(writer);
  if (!c) {
    c =
      writer.provider === "postgresql"
        ? new KeyedCombiner((_, charges) => chargeGroup(writer, charges[0]!.merchantId, charges[0]!.mode, charges))
        : new JoiningCombiner((_, take) => writer.transaction(chargeScript(take)));
    combiners.set(writer, c);
  }
  return c;
}

/**
 * Debits the fee, only if the wallet's available balance covers it, with its ledger entry and KYC
 * transaction. Null when it does not cover it (nothing written).
 */
export async function chargeWithoutHold(writer: AtomicWriter, c: DirectCharge): Promise<Captured | null> {
  return capturedOf(await combinerOf(writer).submit(`${c.mode}:${c.merchantId}`, c));
}

/** Whether the wallet's available balance covers a fee now (a read: nothing is taken). */
export async function walletCovers(writer: AtomicWriter, merchantId: string, mode: string, amountPaise: number): Promise<boolean> {
  const [wallet] = await writer.read<{ availablePaise: number }>(
    sql`SELECT "availablePaise" FROM "Wallet" WHERE "merchantId" = ${merchantId} AND "mode" = ${mode}`,
  );
  return wallet !== undefined && Number(wallet.availablePaise) >= amountPaise;
}
