import type Database from "better-sqlite3";
import { DEFAULT_SQLITE_SYNCHRONOUS, type Db, type SqliteSynchronous } from "./client";
import { providerFromUrl } from "./provider";
import { quoteIdent as quote, sqliteValue as encode } from "./sql-encoding";
import { acquireHotConnection } from "./sqlite-hot";

/**
 * The hot path of charged calls: hold a fee, then capture it (debit, ledger entry, the charged
 * record) or release it. Each is one atomic transaction of conditional updates. SQLite runs them as
 * prepared statements on a dedicated connection (about 10x cheaper than interactive Prisma
 * transactions, which matters on one hot wallet row). PostgreSQL holds and releases in one statement
 * each (the row is locked only while it runs) and captures in a Prisma transaction.
 */
export interface HoldRow {
  id: string;
  merchantId: string;
  mode: string;
  amountPaise: number;
  reason: string;
  requestId: string | null;
  createdAt: Date;
}

export interface CaptureInput {
  holdId: string;
  ledgerId: string;
  /** Ledger reference: what was paid for. */
  reference: string;
  at: Date;
  /** An OTP request to move VERIFYING → VERIFIED with the charge; the capture fails if it is not VERIFYING. */
  otpRequestId?: string | null;
  /** The KycTransaction row, built once the balance after the debit is known (inside the transaction). */
  record: (captured: { amountPaise: number; balanceAfterPaise: number }) => Record<string, unknown>;
}

export interface Captured {
  walletId: string;
  amountPaise: number;
  balanceAfterPaise: number;
  lowBalanceThresholdPaise: number | null;
  lowBalanceAlerted: boolean;
}

/** Why a capture did not happen; nothing was written. */
export type CaptureRefusal = "hold-not-held" | "otp-not-verifying";

export interface WalletStore {
  /** False when the available balance does not cover the amount (nothing written). */
  placeHold(h: HoldRow): Promise<boolean>;
  capture(c: CaptureInput): Promise<Captured | CaptureRefusal>;
  /** False when the hold was not HELD (already captured or released). */
  release(holdId: string, at: Date): Promise<boolean>;
  close(): void;
}

class Rollback extends Error {
  constructor(readonly refusal: CaptureRefusal) {
    super(refusal);
  }
}

function sqliteStore(databaseUrl: string, synchronous: SqliteSynchronous): WalletStore {
  const { conn, write, release: releaseConnection } = acquireHotConnection(databaseUrl, synchronous);
  const reserve = conn.prepare(
    `UPDATE "Wallet" SET "availablePaise" = "availablePaise" - ? WHERE "merchantId" = ? AND "mode" = ? AND "availablePaise" >= ? RETURNING "id"`,
  );
  const insertHold = conn.prepare(
    `INSERT INTO "WalletHold" ("id","walletId","merchantId","mode","amountPaise","reason","requestId","state","createdAt") VALUES (?,?,?,?,?,?,?,'HELD',?)`,
  );
  const settleHold = conn.prepare(
    `UPDATE "WalletHold" SET "state" = ?, "settledAt" = ? WHERE "id" = ? AND "state" = 'HELD' RETURNING "walletId", "amountPaise", "reason", "merchantId", "mode"`,
  );
  const debit = conn.prepare(
    `UPDATE "Wallet" SET "balancePaise" = "balancePaise" - ?, "updatedAt" = ? WHERE "id" = ? RETURNING "balancePaise", "lowBalanceThresholdPaise", "lowBalanceAlerted"`,
  );
  const giveBack = conn.prepare(`UPDATE "Wallet" SET "availablePaise" = "availablePaise" + ?, "updatedAt" = ? WHERE "id" = ?`);
  const insertLedger = conn.prepare(
    `INSERT INTO "LedgerEntry" ("id","walletId","merchantId","mode","amountPaise","balanceAfterPaise","reason","reference","createdAt") VALUES (?,?,?,?,?,?,?,?,?)`,
  );
  const verifyOtp = conn.prepare(`UPDATE "KycOtpRequest" SET "state" = 'VERIFIED', "verifiedAt" = ? WHERE "id" = ? AND "state" = 'VERIFYING'`);
  const inserts = new Map<string, Database.Statement>();
  const insertRecord = (row: Record<string, unknown>) => {
    const cols = Object.keys(row);
    const key = cols.join(",");
    let st = inserts.get(key);
    if (!st) {
      st = conn.prepare(`INSERT INTO "KycTransaction" (${cols.map(quote).join(",")}) VALUES (${cols.map(() => "?").join(",")})`);
      inserts.set(key, st);
    }
    st.run(cols.map((c) => encode(row[c])));
  };

  const hold = conn.transaction((h: HoldRow): boolean => {
    const wallet = reserve.get(h.amountPaise, h.merchantId, h.mode, h.amountPaise) as { id: string } | undefined;
    if (!wallet) return false;
    insertHold.run(h.id, wallet.id, h.merchantId, h.mode, h.amountPaise, h.reason, h.requestId, encode(h.createdAt));
    return true;
  });
  const capture = conn.transaction((c: CaptureInput): Captured => {
    const at = encode(c.at);
    const h = settleHold.get("CAPTURED", at, c.holdId) as
      { walletId: string; amountPaise: number; reason: string; merchantId: string; mode: string } | undefined;
    if (!h) throw new Rollback("hold-not-held");
    if (c.otpRequestId && verifyOtp.run(at, c.otpRequestId).changes !== 1) throw new Rollback("otp-not-verifying");
    const w = debit.get(h.amountPaise, at, h.walletId) as { balancePaise: number; lowBalanceThresholdPaise: number | null; lowBalanceAlerted: number };
    insertLedger.run(c.ledgerId, h.walletId, h.merchantId, h.mode, -h.amountPaise, w.balancePaise, h.reason, c.reference, at);
    insertRecord(c.record({ amountPaise: h.amountPaise, balanceAfterPaise: w.balancePaise }));
    return {
      walletId: h.walletId,
      amountPaise: h.amountPaise,
      balanceAfterPaise: w.balancePaise,
      lowBalanceThresholdPaise: w.lowBalanceThresholdPaise,
      lowBalanceAlerted: w.lowBalanceAlerted === 1,
    };
  });
  const release = conn.transaction((holdId: string, at: Date): boolean => {
    const h = settleHold.get("RELEASED", encode(at), holdId) as { walletId: string; amountPaise: number } | undefined;
    if (!h) return false;
    giveBack.run(h.amountPaise, encode(at), h.walletId);
    return true;
  });

  return {
    placeHold: (h) => write(() => hold(h)),
    capture: (c) =>
      write(() => capture(c)).catch((err: unknown) => {
        if (err instanceof Rollback) return err.refusal;
        throw err;
      }),
    release: (holdId, at) => write(() => release(holdId, at)),
    close: releaseConnection,
  };
}

/** One hot wallet row serialises these; waiting in line for a connection is normal under a burst. */
const TX_OPTIONS = { maxWait: 10_000, timeout: 10_000 };

/** PostgreSQL: holds and releases are single statements; a capture (conditional on two rows) a transaction. */
function postgresStore(db: Db): WalletStore {
  return {
    // One statement: the wallet row is locked only while it runs, not across round trips.
    async placeHold(h) {
      const inserted = await db.$executeRaw`
        WITH w AS (
          UPDATE "Wallet" SET "availablePaise" = "availablePaise" - ${h.amountPaise}, "updatedAt" = ${h.createdAt}
          WHERE "merchantId" = ${h.merchantId} AND "mode" = ${h.mode} AND "availablePaise" >= ${h.amountPaise}
          RETURNING "id")
        INSERT INTO "WalletHold" ("id", "walletId", "merchantId", "mode", "amountPaise", "reason", "requestId", "state", "createdAt")
        SELECT ${h.id}, w."id", ${h.merchantId}, ${h.mode}, ${h.amountPaise}, ${h.reason}, ${h.requestId}, 'HELD', ${h.createdAt} FROM w`;
      return inserted === 1;
    },
    async capture(c) {
      try {
        return await db.$transaction(async (tx) => {
          const { count } = await tx.walletHold.updateMany({ where: { id: c.holdId, state: "HELD" }, data: { state: "CAPTURED", settledAt: c.at } });
          if (count === 0) throw new Rollback("hold-not-held");
          if (c.otpRequestId) {
            const done = await tx.kycOtpRequest.updateMany({
              where: { id: c.otpRequestId, state: "VERIFYING" },
              data: { state: "VERIFIED", verifiedAt: c.at },
            });
            if (done.count !== 1) throw new Rollback("otp-not-verifying");
          }
          const h = await tx.walletHold.findUniqueOrThrow({ where: { id: c.holdId } });
          const w = await tx.wallet.update({ where: { id: h.walletId }, data: { balancePaise: { decrement: h.amountPaise } } });
          await tx.ledgerEntry.create({
            data: {
              id: c.ledgerId,
              walletId: h.walletId,
              merchantId: h.merchantId,
              mode: h.mode,
              amountPaise: -h.amountPaise,
              balanceAfterPaise: w.balancePaise,
              reason: h.reason,
              reference: c.reference,
              createdAt: c.at,
            },
          });
          await tx.kycTransaction.create({ data: c.record({ amountPaise: h.amountPaise, balanceAfterPaise: w.balancePaise }) as never });
          return {
            walletId: h.walletId,
            amountPaise: h.amountPaise,
            balanceAfterPaise: w.balancePaise,
            lowBalanceThresholdPaise: w.lowBalanceThresholdPaise,
            lowBalanceAlerted: w.lowBalanceAlerted,
          };
        }, TX_OPTIONS);
      } catch (err) {
        if (err instanceof Rollback) return err.refusal;
        throw err;
      }
    },
    async release(holdId, at) {
      const released = await db.$executeRaw`
        WITH h AS (
          UPDATE "WalletHold" SET "state" = 'RELEASED', "settledAt" = ${at}
          WHERE "id" = ${holdId} AND "state" = 'HELD'
          RETURNING "walletId", "amountPaise")
        UPDATE "Wallet" SET "availablePaise" = "Wallet"."availablePaise" + h."amountPaise", "updatedAt" = ${at}
        FROM h WHERE "Wallet"."id" = h."walletId"`;
      return released === 1;
    },
    close() {},
  };
}

export function createWalletStore(db: Db, databaseUrl: string, sqliteSynchronous: SqliteSynchronous = DEFAULT_SQLITE_SYNCHRONOUS): WalletStore {
  return providerFromUrl(databaseUrl) === "sqlite" ? sqliteStore(databaseUrl, sqliteSynchronous) : postgresStore(db);
}
