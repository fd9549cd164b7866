import { chainReturning, linked, sql, type AtomicWriter, type WriteScript } from "@/server/db/atomic-write";
import type { Db } from "@/server/db/client";
import { walletGroupsOf, type CapturedRow, type HoldCapture, type KycTransactionRow, type NewHold } from "@/server/db/wallet-groups";

export type { CapturedRow, HoldCapture, KycTransactionRow, NewHold };

/**
 * Holds: how a charged call pays. A hold takes the fee from the wallet's available balance before
 * the call (HELD); the answer captures it (CAPTURED: the balance is debited with its ledger entry)
 * and anything else releases it (RELEASED: the fee is available again). Every move is conditional
 * on the hold still being HELD, so a hold is settled once however many callers race. The holds and
 * captures of one wallet asked for at about the same time are written together (walletGroupsOf,
 * src/server/db/wallet-groups.ts).
 */

/** What a capture charged. */
export interface Charged {
  amountPaise: number;
  balanceAfterPaise: number;
}

export interface Captured extends Charged {
  walletId: string;
  lowBalanceThresholdPaise: number | null;
  lowBalanceAlerted: boolean;
}

const walletKey = (merchantId: string, mode: string) => `${mode}:${merchantId}`;

/**
 * Takes the fee from the available balance, only if it covers it, and records the hold with it.
 * False when the balance does not cover it (nothing written).
 */
export function placeHold(writer: AtomicWriter, h: NewHold): Promise<boolean> {
  return walletGroupsOf(writer).holds.submit(walletKey(h.merchantId, h.mode), h);
}

/** A capture on its own, as one linked write: for the captures whose writes of their own commit with them. */
function captureLinks(c: HoldCapture) {
  return linked<CapturedRow>(
    [
      {
        name: "hold",
        st: sql`UPDATE "WalletHold" SET "state" = 'CAPTURED', "settledAt" = ${c.at} WHERE "id" = ${c.holdId} AND "state" = 'HELD'
          RETURNING "walletId", "merchantId", "mode", "amountPaise", "reason"`,
      },
      {
        name: "charged",
        // Subqueries rather than UPDATE … FROM: SQLite runs a join-update many times slower.
        st: sql`UPDATE "Wallet" SET "balancePaise" = "balancePaise" - (SELECT "amountPaise" FROM "hold"), "updatedAt" = ${c.at}
          WHERE "id" = (SELECT "walletId" FROM "hold") RETURNING "balancePaise" AS "balanceAfterPaise", "lowBalanceThresholdPaise", "lowBalanceAlerted"`,
      },
      {
        st: sql`INSERT INTO "LedgerEntry" ("id", "walletId", "merchantId", "mode", "amountPaise", "balanceAfterPaise", "reason", "reference", "createdAt")
          SELECT ${c.ledgerId}, "hold"."walletId", "hold"."merchantId", "hold"."mode", -"hold"."amountPaise", "charged"."balanceAfterPaise",
            "hold"."reason", ${c.reference}, ${c.at} FROM "hold", "charged"`,
      },
      ...(c.kycTransaction ? [{ st: kycTransactionInsert(c.ledgerId, c.kycTransaction) }] : []),
    ],
    ["hold", "charged"],
  );
}

function kycTransactionInsert(ledgerId: string, k: KycTransactionRow) {
  return sql`INSERT INTO "KycTransaction" ("id", "merchantId", "mode", "kind", "requestId", "otpRequestId", "subjectMasked", "outcome",
      "nameMatchScore", "vendor", "feePaise", "balanceAfterPaise", "ledgerEntryId", "resultEnc", "resultExpiresAt", "consent", "purpose", "consentSource", "createdAt")
    SELECT ${k.id}, "hold"."merchantId", "hold"."mode", ${k.kind}, ${k.requestId}, ${k.otpRequestId}, ${k.subjectMasked}, ${k.outcome},
      ${k.nameMatchScore}, ${k.vendor ?? null}, "hold"."amountPaise", "charged"."balanceAfterPaise", ${ledgerId}, ${k.resultEnc}, ${k.resultExpiresAt},
      ${k.consent ?? null}, ${k.purpose ?? null}, ${k.consentSource ?? null}, ${k.createdAt}
    FROM "hold", "charged"`;
}

/** Thrown inside a capture with writes of its own when the hold was no longer HELD: rolls those writes back. */
class HoldNotHeld extends Error {}

function* captureWithWrites(c: HoldCapture, alsoCommit: () => WriteScript<void>): WriteScript<CapturedRow[]> {
  yield* alsoCommit();
  const rows = yield* captureLinks(c);
  if (rows.length === 0) throw new HoldNotHeld();
  return rows;
}

/**
 * HELD → CAPTURED: debits the balance by the hold, with its ledger entry and the caller's rows, in
 * one transaction. Null when the hold is no longer HELD (released meanwhile): nothing written.
 */
export async function captureHold(writer: AtomicWriter, c: HoldCapture): Promise<Captured | null> {
  let rows: CapturedRow[];
  try {
    if (c.alsoCommit) rows = await writer.transaction(captureWithWrites(c, c.alsoCommit));
    else {
      const row = await walletGroupsOf(writer).captures.submit(walletKey(c.merchantId, c.mode), c);
      rows = row ? [row] : [];
    }
  } catch (err) {
    if (err instanceof HoldNotHeld) return null;
    throw err;
  }
  return capturedOf(rows[0]);
}

/** A charge's row as the driver read it, as numbers and a boolean; null when nothing was charged. */
export function capturedOf(row: CapturedRow | null | undefined): Captured | null {
  if (!row) return null;
  return {
    amountPaise: Number(row.amountPaise),
    balanceAfterPaise: Number(row.balanceAfterPaise),
    walletId: row.walletId,
    lowBalanceThresholdPaise: row.lowBalanceThresholdPaise === null ? null : Number(row.lowBalanceThresholdPaise),
    lowBalanceAlerted: Boolean(row.lowBalanceAlerted),
  };
}

/** HELD → RELEASED: the fee is available again. False when the hold was no longer HELD. */
export async function releaseHold(writer: AtomicWriter, holdId: string, at: Date): Promise<boolean> {
  const released = await writer.run(
    chainReturning(
      sql`UPDATE "WalletHold" SET "state" = 'RELEASED', "settledAt" = ${at} WHERE "id" = ${holdId} AND "state" = 'HELD'
        RETURNING "walletId", "amountPaise"`,
      // Subqueries rather than UPDATE … FROM: SQLite runs a join-update many times slower.
      sql`UPDATE "Wallet" SET "availablePaise" = "availablePaise" + (SELECT "amountPaise" FROM "prev"), "updatedAt" = ${at}
        WHERE "id" = (SELECT "walletId" FROM "prev")`,
    ),
  );
  return released === 1;
}

/** Holds not yet captured or released: fees of charged calls in flight (counted on the state index). */
export function countOpenHolds(db: Db): Promise<number> {
  return db.walletHold.count({ where: { state: "HELD" } });
}
