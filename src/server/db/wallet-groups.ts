import {
  changedRows,
  insertMany,
  rowsOf,
  sql,
  sqlJoined,
  sqlPlannedEachRun,
  sqlWithText,
  SqlText,
  type AtomicWriter,
  type Statement,
  type WriteScript,
} from "./atomic-write";
import { JoiningCombiner, KeyedCombiner } from "./combiner";

/**
 * Holds, captures and charges of one wallet written together for a whole group of requests (the
 * combiners of walletGroupsOf gather them), and every result what running them one by one in the order they were
 * asked for would have given. On PostgreSQL, one statement per group, so the wallet row is locked
 * once per group, not once per call: the requests go in as arrays (unnest … WITH ORDINALITY keeps
 * their order). On SQLite, one script per group inside the group commit: the wallet row is read and
 * written once, and the per-write savepoints and statements are fewer.
 */

/** A hold to place: the fee taken from the wallet's available balance (src/server/services/wallet/holds.ts). */
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

/** The KYC transaction a capture pays for; its merchant, mode, fee and balance after are the capture's. */
export interface KycTransactionRow {
  id: string;
  kind: string;
  requestId: string;
  otpRequestId: string | null;
  subjectMasked: string;
  outcome: string;
  nameMatchScore: number | null;
  /** The live vendor that answered; null in sandbox. */
  vendor?: string | null;
  resultEnc: string | null;
  resultExpiresAt: Date | null;
  /** The consent the call was made under (C6): kept with the summary for as long as the audit record, never dropped with the result. */
  consent?: boolean | null;
  purpose?: string | null;
  consentSource?: string | null;
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

export interface CapturedRow {
  walletId: string;
  amountPaise: number;
  balanceAfterPaise: number;
  lowBalanceThresholdPaise: number | null;
  lowBalanceAlerted: unknown;
}

// Arrays of Dates would be sent in the process's time zone: ISO text is read as UTC, as single values are.
export const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/**
 * Which requests of a group take their fee, walked in arrival order: each takes it if what the ones
 * before it left of the available balance covers it. With one fee that is the covered prefix; with
 * mixed fees a smaller fee after a refused one may still fit, as it would one by one. `inArrivalOrder`
 * is the walk on SQLite; on PostgreSQL it is WALK_IN_ARRIVAL_ORDER, inside the group's statement.
 */
export function inArrivalOrder(availablePaise: number, fees: number[]): { taken: boolean[]; leftPaise: number } {
  let left = availablePaise;
  const taken = fees.map((fee) => {
    if (fee > left) return false;
    left -= fee;
    return true;
  });
  return { taken, leftPaise: left };
}

/**
 * The same walk as SQL, for a statement that has "req" (the requests, numbered from 1 in "ord", each
 * with "amountPaise") and "wallet" (its row, locked, with "availablePaise"): gives "held", the
 * requests that take their fee.
 */
export const WALK_IN_ARRIVAL_ORDER = new SqlText(`"walk" ("ord", "left", "taken") AS (
    SELECT 0::bigint, "availablePaise"::bigint, false FROM "wallet"
    UNION ALL
    SELECT "req"."ord", CASE WHEN "req"."amountPaise" <= "walk"."left" THEN "walk"."left" - "req"."amountPaise" ELSE "walk"."left" END,
      "req"."amountPaise" <= "walk"."left"
    FROM "walk" JOIN "req" ON "req"."ord" = "walk"."ord" + 1
  ),
  "held" AS (SELECT "req".* FROM "req" JOIN "walk" ON "walk"."ord" = "req"."ord" WHERE "walk"."taken")`);

/** Which of the holds were placed (the available balance covered them), in the order given. */
export async function placeHoldGroup(writer: AtomicWriter, merchantId: string, mode: string, holds: NewHold[]): Promise<boolean[]> {
  const at = holds[holds.length - 1]!.createdAt;
  // The wallet row is locked first (FOR UPDATE), then the walk decides from its available balance.
  const placed = await writer.run(
    rowsOf<{ id: string }>(
      sqlWithText`WITH RECURSIVE "req" AS (
          SELECT * FROM unnest(${holds.map((h) => h.id)}::text[], ${holds.map((h) => h.amountPaise)}::int[], ${holds.map((h) => h.reason)}::text[],
            ${holds.map((h) => h.requestId)}::text[], ${holds.map((h) => iso(h.createdAt))}::timestamp(3)[])
            WITH ORDINALITY AS r("id", "amountPaise", "reason", "requestId", "createdAt", "ord")
        ),
        "wallet" AS (SELECT "id", "availablePaise" FROM "Wallet" WHERE "merchantId" = ${merchantId} AND "mode" = ${mode} FOR UPDATE),
        ${WALK_IN_ARRIVAL_ORDER},
        "debited" AS (
          UPDATE "Wallet" SET "availablePaise" = "availablePaise" - (SELECT sum("amountPaise") FROM "held"), "updatedAt" = ${at}
          WHERE "id" = (SELECT "id" FROM "wallet") AND EXISTS (SELECT 1 FROM "held") RETURNING "id"
        )
        INSERT INTO "WalletHold" ("id", "walletId", "merchantId", "mode", "amountPaise", "reason", "requestId", "state", "createdAt")
        SELECT "held"."id", "debited"."id", ${merchantId}, ${mode}, "held"."amountPaise", "held"."reason", "held"."requestId", 'HELD', "held"."createdAt"
        FROM "held", "debited" RETURNING "id"`,
    ),
  );
  const ids = new Set(placed.map((r) => r.id));
  return holds.map((h) => ids.has(h.id));
}

/**
 * The end shared by a group's captures and its direct charges, after their "entry" rows (one per
 * debit, in arrival order, with the balance it left): each debit's ledger entry and KYC transaction,
 * and the entries as the statement's rows.
 */
export function ledgerAndKycFromEntries(merchantId: string, mode: string, kyc: (KycTransactionRow | null)[]): Statement {
  return sql`
        "ledger" AS (
          INSERT INTO "LedgerEntry" ("id", "walletId", "merchantId", "mode", "amountPaise", "balanceAfterPaise", "reason", "reference", "createdAt")
          SELECT "ledgerId", "walletId", ${merchantId}, ${mode}, -"amountPaise", "balanceAfterPaise", "reason", "reference", "at" FROM "entry"
        ),
        "kyc" AS (
          INSERT INTO "KycTransaction" ("id", "merchantId", "mode", "kind", "requestId", "otpRequestId", "subjectMasked", "outcome",
            "nameMatchScore", "vendor", "feePaise", "balanceAfterPaise", "ledgerEntryId", "resultEnc", "resultExpiresAt", "consent", "purpose", "consentSource", "createdAt")
          SELECT k."id", ${merchantId}, ${mode}, k."kind", k."requestId", k."otpRequestId", k."subjectMasked", k."outcome", k."nameMatchScore", k."vendor",
            "entry"."amountPaise", "entry"."balanceAfterPaise", "entry"."ledgerId", k."resultEnc", k."resultExpiresAt", k."consent", k."purpose", k."consentSource",
            k."createdAt"
          FROM unnest(${kyc.map((k) => k?.id ?? null)}::text[], ${kyc.map((k) => k?.kind ?? null)}::text[], ${kyc.map((k) => k?.requestId ?? null)}::text[],
            ${kyc.map((k) => k?.otpRequestId ?? null)}::text[], ${kyc.map((k) => k?.subjectMasked ?? null)}::text[], ${kyc.map((k) => k?.outcome ?? null)}::text[],
            ${kyc.map((k) => k?.nameMatchScore ?? null)}::float8[], ${kyc.map((k) => k?.vendor ?? null)}::text[], ${kyc.map((k) => k?.resultEnc ?? null)}::text[],
            ${kyc.map((k) => iso(k?.resultExpiresAt ?? null))}::timestamp(3)[], ${kyc.map((k) => k?.consent ?? null)}::boolean[],
            ${kyc.map((k) => k?.purpose ?? null)}::text[], ${kyc.map((k) => k?.consentSource ?? null)}::text[], ${kyc.map((k) => iso(k?.createdAt ?? null))}::timestamp(3)[])
            WITH ORDINALITY AS k("id", "kind", "requestId", "otpRequestId", "subjectMasked", "outcome", "nameMatchScore", "vendor", "resultEnc", "resultExpiresAt",
              "consent", "purpose", "consentSource", "createdAt", "ord")
          JOIN "entry" ON "entry"."ord" = k."ord" WHERE k."id" IS NOT NULL
        )
        SELECT "ord", "walletId", "amountPaise", "balanceAfterPaise", "lowBalanceThresholdPaise", "lowBalanceAlerted" FROM "entry"`;
}

/**
 * Captures of holds on one wallet: each hold still HELD becomes CAPTURED, the wallet is debited
 * once by their sum, and each gets its ledger entry (and KYC transaction) with the balance its own
 * debit left, in arrival order. Null for a hold no longer HELD (nothing written for it).
 */
export async function captureHoldGroup(writer: AtomicWriter, merchantId: string, mode: string, captures: HoldCapture[]): Promise<(CapturedRow | null)[]> {
  const at = captures[captures.length - 1]!.at;
  const kyc = captures.map((c) => c.kycTransaction ?? null);
  const rows = await writer.run(
    rowsOf<CapturedRow & { ord: bigint }>(
      sqlJoined(
        sqlPlannedEachRun`WITH "req" AS (
          SELECT * FROM unnest(${captures.map((c) => c.holdId)}::text[], ${captures.map((c) => c.ledgerId)}::text[],
            ${captures.map((c) => c.reference)}::text[], ${captures.map((c) => iso(c.at))}::timestamp(3)[])
            WITH ORDINALITY AS r("holdId", "ledgerId", "reference", "at", "ord")
        ),
        -- The holds are found by their ids: coalesce() keeps the planner off the index on state, whose
        -- HELD end fills with dead entries under load until a vacuum.
        "hold" AS (
          UPDATE "WalletHold" AS h SET "state" = 'CAPTURED', "settledAt" = "req"."at" FROM "req"
          WHERE h."id" = "req"."holdId" AND coalesce(h."state", '') = 'HELD' AND h."merchantId" = ${merchantId} AND h."mode" = ${mode}
          RETURNING h."walletId", h."amountPaise", h."reason", "req"."ledgerId", "req"."reference", "req"."at", "req"."ord"
        ),
        "charged" AS (
          UPDATE "Wallet" SET "balancePaise" = "balancePaise" - (SELECT sum("amountPaise") FROM "hold"), "updatedAt" = ${at}
          WHERE "id" = (SELECT "walletId" FROM "hold" LIMIT 1) RETURNING "balancePaise", "lowBalanceThresholdPaise", "lowBalanceAlerted"
        ),
        "entry" AS (
          SELECT "hold".*, "charged"."balancePaise" + (SELECT sum("amountPaise") FROM "hold") - sum("hold"."amountPaise") OVER (ORDER BY "hold"."ord")
            AS "balanceAfterPaise", "charged"."lowBalanceThresholdPaise", "charged"."lowBalanceAlerted"
          FROM "hold", "charged"
        ),
`,
        ledgerAndKycFromEntries(merchantId, mode, kyc),
      ),
    ),
  );
  const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
  return captures.map((_, i) => byOrd.get(i + 1) ?? null);
}

const HOLD_COLUMNS = ["id", "walletId", "merchantId", "mode", "amountPaise", "reason", "requestId", "state", "createdAt"] as const;
const LEDGER_COLUMNS = ["id", "walletId", "merchantId", "mode", "amountPaise", "balanceAfterPaise", "reason", "reference", "createdAt"] as const;
const KYC_COLUMNS = [
  ...["id", "merchantId", "mode", "kind", "requestId", "otpRequestId", "subjectMasked", "outcome", "nameMatchScore", "vendor"],
  ...["feePaise", "balanceAfterPaise", "ledgerEntryId", "resultEnc", "resultExpiresAt", "consent", "purpose", "consentSource", "createdAt"],
] as const;

/**
 * The SQLite form of placeHoldGroup, as a script of the group commit: it runs on the one writing
 * connection with SQLite's write lock held, so the balance it reads cannot move before it writes.
 */
export function* placeHoldScript(take: () => NewHold[]): WriteScript<boolean[]> {
  const holds = take();
  const { merchantId, mode } = holds[0]!;
  const [wallet] = yield* rowsOf<{ id: string; availablePaise: number }>(
    sql`SELECT "id", "availablePaise" FROM "Wallet" WHERE "merchantId" = ${merchantId} AND "mode" = ${mode}`,
  );
  if (!wallet) return holds.map(() => false);
  const { taken: placed, leftPaise: left } = inArrivalOrder(
    Number(wallet.availablePaise),
    holds.map((h) => h.amountPaise),
  );
  const taken = holds.filter((_, i) => placed[i]);
  if (taken.length === 0) return placed;
  // Conditional on the balance read: should anything have moved it, the group fails and each hold is tried alone.
  const moved = yield* changedRows(
    sql`UPDATE "Wallet" SET "availablePaise" = ${left}, "updatedAt" = ${taken[taken.length - 1]!.createdAt}
      WHERE "id" = ${wallet.id} AND "availablePaise" = ${wallet.availablePaise}`,
  );
  if (moved !== 1) throw new Error("wallet balance moved during a hold group");
  const rows = taken.map((h) => [h.id, wallet.id, h.merchantId, h.mode, h.amountPaise, h.reason, h.requestId, "HELD", h.createdAt]);
  yield* insertMany([{ table: "WalletHold", columns: HOLD_COLUMNS, rows }]);
  return placed;
}

/** The SQLite form of captureHoldGroup, as a script of the group commit. */
export function* captureHoldScript(take: () => HoldCapture[]): WriteScript<(CapturedRow | null)[]> {
  const captures = take();
  const held: ({ walletId: string; amountPaise: number; reason: string } | null)[] = [];
  for (const c of captures) {
    const [h] = yield* rowsOf<{ walletId: string; amountPaise: number; reason: string }>(
      sql`UPDATE "WalletHold" SET "state" = 'CAPTURED', "settledAt" = ${c.at}
        WHERE "id" = ${c.holdId} AND "state" = 'HELD' AND "merchantId" = ${c.merchantId} AND "mode" = ${c.mode} RETURNING "walletId", "amountPaise", "reason"`,
    );
    held.push(h ?? null);
  }
  const first = held.find((h) => h !== null);
  if (!first) return held.map(() => null);
  const total = held.reduce((sum, h) => sum + (h ? Number(h.amountPaise) : 0), 0);
  const [wallet] = yield* rowsOf<{ balancePaise: number; lowBalanceThresholdPaise: number | null; lowBalanceAlerted: unknown }>(
    sql`UPDATE "Wallet" SET "balancePaise" = "balancePaise" - ${total}, "updatedAt" = ${captures[captures.length - 1]!.at}
      WHERE "id" = ${first.walletId} RETURNING "balancePaise", "lowBalanceThresholdPaise", "lowBalanceAlerted"`,
  );
  const debits = captures.map((c, i) => {
    const h = held[i];
    return h && { ...c, walletId: h.walletId, amountPaise: Number(h.amountPaise), reason: h.reason };
  });
  return yield* writeDebits(debits, Number(wallet!.balancePaise) + total, wallet!);
}

/** A debit of a group, as its ledger entry (and KYC transaction) record it. */
export interface GroupDebit {
  walletId: string;
  merchantId: string;
  mode: string;
  amountPaise: number;
  reason: string;
  ledgerId: string;
  reference: string;
  at: Date;
  kycTransaction?: KycTransactionRow;
}

/**
 * The ledger entries (and KYC transactions) of a group's debits on SQLite, in the order asked for:
 * each entry's balance is the one before it less its fee, from `balanceBeforePaise`. Null debits
 * (not charged) write nothing and answer null.
 */
export function* writeDebits(
  debits: (GroupDebit | null)[],
  balanceBeforePaise: number,
  wallet: { lowBalanceThresholdPaise: number | null; lowBalanceAlerted: unknown },
): WriteScript<(CapturedRow | null)[]> {
  let balance = balanceBeforePaise;
  const ledger: unknown[][] = [];
  const kyc: unknown[][] = [];
  const results = debits.map((d) => {
    if (!d) return null;
    const amount = d.amountPaise;
    balance -= amount;
    ledger.push([d.ledgerId, d.walletId, d.merchantId, d.mode, -amount, balance, d.reason, d.reference, d.at]);
    const k = d.kycTransaction;
    if (k) {
      const values = [k.id, d.merchantId, d.mode, k.kind, k.requestId, k.otpRequestId, k.subjectMasked, k.outcome, k.nameMatchScore, k.vendor ?? null];
      kyc.push([
        ...values,
        amount,
        balance,
        d.ledgerId,
        k.resultEnc,
        k.resultExpiresAt,
        k.consent ?? null,
        k.purpose ?? null,
        k.consentSource ?? null,
        k.createdAt,
      ]);
    }
    const { lowBalanceThresholdPaise, lowBalanceAlerted } = wallet;
    return { walletId: d.walletId, amountPaise: amount, balanceAfterPaise: balance, lowBalanceThresholdPaise, lowBalanceAlerted };
  });
  yield* insertMany([
    { table: "LedgerEntry", columns: LEDGER_COLUMNS, rows: ledger },
    { table: "KycTransaction", columns: KYC_COLUMNS, rows: kyc },
  ]);
  return results;
}

/** A charge without a hold (src/server/services/wallet/direct-charges.ts): a debit whose wallet is found by its merchant and mode. */
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

/**
 * The holds, the captures and the charges of one wallet asked for at about the same time, written
 * together. On PostgreSQL, those that arrive while one of the wallet's writes is in flight go in the
 * next: every charge took the wallet's row lock, and one at a time they queued on it. On SQLite, those
 * that arrive before the next group commit go in one script of it. Each gets what writing them one by
 * one in the order asked would have given (inArrivalOrder).
 */
export interface WalletGroups {
  holds: { submit(key: string, h: NewHold): Promise<boolean> };
  captures: { submit(key: string, c: HoldCapture): Promise<CapturedRow | null> };
  charges: { submit(key: string, c: DirectCharge): Promise<CapturedRow | null> };
}
const groupsByWriter = new WeakMap<AtomicWriter, WalletGroups>();

/** The group writers of `writer`'s database, made once per writer. */
export function walletGroupsOf(writer: AtomicWriter): WalletGroups {
  let g = groupsByWriter.get(writer);
  if (!g) {
    g =
      writer.provider === "postgresql"
        ? {
            holds: new KeyedCombiner((_, holds) => placeHoldGroup(writer, holds[0]!.merchantId, holds[0]!.mode, holds)),
            captures: new KeyedCombiner((_, captures) => captureHoldGroup(writer, captures[0]!.merchantId, captures[0]!.mode, captures)),
            charges: new KeyedCombiner((_, charges) => chargeGroup(writer, charges[0]!.merchantId, charges[0]!.mode, charges)),
          }
        : {
            holds: new JoiningCombiner((_, take) => writer.transaction(placeHoldScript(take))),
            captures: new JoiningCombiner((_, take) => writer.transaction(captureHoldScript(take))),
            charges: new JoiningCombiner((_, take) => writer.transaction(chargeScript(take))),
          };
    groupsByWriter.set(writer, g);
  }
  return g;
}
