import { chainReturning, insertMany, rowsOf, sql, type AtomicWriter, type BulkRows, type WriteScript } from "@/server/db/atomic-write";
import type { Db } from "@/server/db/client";

/**
 * Holds: how a charged call pays. A hold takes the fee from the wallet's available balance before
 * the call (HELD); the answer captures it (CAPTURED: the balance is debited with its ledger entry)
 * and anything else releases it (RELEASED: the fee is available again). Every move is conditional
 * on the hold still being HELD, so a hold is settled once however many callers race.
 */
export interface NewHold {
  id: string;
  merchantId: string;
  mode: string;
  amountPaise: number;
  /** The ledger reason of the capture, e.g. KYC_PAN. */
  reason: string;
  requestId: string | null;
  createdAt: Date;
}

/** What a capture charged. */
export interface Charged {
  amountPaise: number;
  balanceAfterPaise: number;
}

export interface HoldCapture {
  holdId: string;
  ledgerId: string;
  /** Ledger reference: what was paid for. */
  reference: string;
  at: Date;
  /** Writes that must commit with the capture (checked before the debit); throwing refuses the capture and rolls it back. */
  alsoCommit?: () => WriteScript<void>;
  /** Rows that commit with the capture, built once the balance after the debit is known. */
  rowsFor?: (charged: Charged) => BulkRows[];
}

export interface Captured extends Charged {
  walletId: string;
  lowBalanceThresholdPaise: number | null;
  lowBalanceAlerted: boolean;
}

const LEDGER_COLUMNS = ["id", "walletId", "merchantId", "mode", "amountPaise", "balanceAfterPaise", "reason", "reference", "createdAt"];

/**
 * Takes the fee from the available balance, only if it covers it, and records the hold with it.
 * False when the balance does not cover it (nothing written).
 */
export async function placeHold(writer: AtomicWriter, h: NewHold): Promise<boolean> {
  const placed = await writer.run(
    chainReturning(
      sql`UPDATE "Wallet" SET "availablePaise" = "availablePaise" - ${h.amountPaise}, "updatedAt" = ${h.createdAt}
        WHERE "merchantId" = ${h.merchantId} AND "mode" = ${h.mode} AND "availablePaise" >= ${h.amountPaise} RETURNING "id"`,
      sql`INSERT INTO "WalletHold" ("id", "walletId", "merchantId", "mode", "amountPaise", "reason", "requestId", "state", "createdAt")
        SELECT ${h.id}, "prev"."id", ${h.merchantId}, ${h.mode}, ${h.amountPaise}, ${h.reason}, ${h.requestId}, 'HELD', ${h.createdAt} FROM "prev"`,
    ),
  );
  return placed === 1;
}

function* captureScript(c: HoldCapture): WriteScript<Captured | null> {
  const [hold] = yield* rowsOf<{ walletId: string; merchantId: string; mode: string; amountPaise: number; reason: string }>(
    sql`UPDATE "WalletHold" SET "state" = 'CAPTURED', "settledAt" = ${c.at} WHERE "id" = ${c.holdId} AND "state" = 'HELD'
      RETURNING "walletId", "merchantId", "mode", "amountPaise", "reason"`,
  );
  if (!hold) return null;
  if (c.alsoCommit) yield* c.alsoCommit();
  // The wallet row is locked from here to the commit: only the inserts follow.
  const [wallet] = yield* rowsOf<{ balancePaise: number; lowBalanceThresholdPaise: number | null; lowBalanceAlerted: unknown }>(
    sql`UPDATE "Wallet" SET "balancePaise" = "balancePaise" - ${hold.amountPaise}, "updatedAt" = ${c.at} WHERE "id" = ${hold.walletId}
      RETURNING "balancePaise", "lowBalanceThresholdPaise", "lowBalanceAlerted"`,
  );
  const charged = { amountPaise: hold.amountPaise, balanceAfterPaise: wallet!.balancePaise };
  const ledgerRow = [c.ledgerId, hold.walletId, hold.merchantId, hold.mode, -hold.amountPaise, charged.balanceAfterPaise, hold.reason, c.reference, c.at];
  yield* insertMany([{ table: "LedgerEntry", columns: LEDGER_COLUMNS, rows: [ledgerRow] }, ...(c.rowsFor?.(charged) ?? [])]);
  return {
    ...charged,
    walletId: hold.walletId,
    lowBalanceThresholdPaise: wallet!.lowBalanceThresholdPaise,
    lowBalanceAlerted: Boolean(wallet!.lowBalanceAlerted),
  };
}

/**
 * HELD → CAPTURED: debits the balance by the hold, with its ledger entry and the caller's rows, in
 * one transaction. Null when the hold is no longer HELD (released meanwhile): nothing written.
 */
export function captureHold(writer: AtomicWriter, c: HoldCapture): Promise<Captured | null> {
  return writer.transaction(captureScript(c));
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
