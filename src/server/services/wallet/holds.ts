import { chainReturning, linked, sql, type AtomicWriter, type WriteScript } from "@/server/db/atomic-write";
import type { Db } from "@/server/db/client";
import { KeyedCombiner } from "@/server/db/combiner";
import { captureHoldGroup, placeHoldGroup } from "@/server/services/wallet/hold-groups";

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

/** The KYC transaction a capture pays for; its merchant, mode, fee and balance after are the capture's. */
export interface KycTransactionRow {
  id: string;
  kind: string;
  requestId: string;
  otpRequestId: string | null;
  subjectMasked: string;
  outcome: string;
  nameMatchScore: number | null;
  resultEnc: string | null;
  resultExpiresAt: Date | null;
  createdAt: Date;
}

export interface HoldCapture {
  holdId: string;
  /** The wallet the hold is on (its merchant and mode): captures of one wallet are written together. */
  merchantId: string;
  mode: string;
  ledgerId: string;
  /** Ledger reference: what was paid for. */
  reference: string;
  at: Date;
  /** Writes that must commit with the capture; throwing refuses the capture and rolls it back. */
  alsoCommit?: () => WriteScript<void>;
  /** Written with the capture, with the hold's fee and the balance after this capture's debit. */
  kycTransaction?: KycTransactionRow;
}

export interface Captured extends Charged {
  walletId: string;
  lowBalanceThresholdPaise: number | null;
  lowBalanceAlerted: boolean;
}

/**
 * On PostgreSQL, the holds and the captures of one wallet that arrive while one of its writes is in
 * flight go together in the next (hold-groups.ts): every charge of a wallet takes its row lock, and
 * one at a time they queued on it. SQLite needs none: its writes already share group commits on one
 * connection, and no lock is waited for.
 */
interface Combiners {
  holds: KeyedCombiner<NewHold, boolean>;
  captures: KeyedCombiner<HoldCapture, CapturedRow | null>;
}
const combinersByWriter = new WeakMap<AtomicWriter, Combiners>();

function combinersOf(writer: AtomicWriter): Combiners {
  let c = combinersByWriter.get(writer);
  if (!c) {
    c = {
      holds: new KeyedCombiner((_, holds) => placeHoldGroup(writer, holds[0]!.merchantId, holds[0]!.mode, holds)),
      captures: new KeyedCombiner((_, captures) => captureHoldGroup(writer, captures[0]!.merchantId, captures[0]!.mode, captures)),
    };
    combinersByWriter.set(writer, c);
  }
  return c;
}

const walletKey = (merchantId: string, mode: string) => `${mode}:${merchantId}`;

/**
 * Takes the fee from the available balance, only if it covers it, and records the hold with it.
 * False when the balance does not cover it (nothing written).
 */
export async function placeHold(writer: AtomicWriter, h: NewHold): Promise<boolean> {
  if (writer.provider === "postgresql") return combinersOf(writer).holds.submit(walletKey(h.merchantId, h.mode), h);
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

export interface CapturedRow {
  walletId: string;
  amountPaise: number;
  balanceAfterPaise: number;
  lowBalanceThresholdPaise: number | null;
  lowBalanceAlerted: unknown;
}

/**
 * The capture as one linked write: on PostgreSQL a single statement, so the wallet row is locked
 * only while it runs, never across round trips (many captures on one wallet follow each other).
 */
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
      "nameMatchScore", "feePaise", "balanceAfterPaise", "ledgerEntryId", "resultEnc", "resultExpiresAt", "createdAt")
    SELECT ${k.id}, "hold"."merchantId", "hold"."mode", ${k.kind}, ${k.requestId}, ${k.otpRequestId}, ${k.subjectMasked}, ${k.outcome},
      ${k.nameMatchScore}, "hold"."amountPaise", "charged"."balanceAfterPaise", ${ledgerId}, ${k.resultEnc}, ${k.resultExpiresAt}, ${k.createdAt}
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
    else if (writer.provider === "postgresql") {
      const row = await combinersOf(writer).captures.submit(walletKey(c.merchantId, c.mode), c);
      rows = row ? [row] : [];
    } else rows = await writer.run(captureLinks(c));
  } catch (err) {
    if (err instanceof HoldNotHeld) return null;
    throw err;
  }
  const row = rows[0];
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
