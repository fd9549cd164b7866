import { rowsOf, sql, type AtomicWriter } from "@/server/db/atomic-write";
import type { CapturedRow, HoldCapture, NewHold } from "@/server/services/wallet/holds";

/**
 * Holds and captures of one wallet as one PostgreSQL statement for a whole group of requests (the
 * combiner in holds.ts gathers them), so the wallet row is locked once per group, not once per
 * call. The requests go in as arrays (unnest … WITH ORDINALITY keeps their arrival order) and every
 * result is what running them one by one in that order would have given.
 */

// Arrays of Dates would be sent in the process's time zone: ISO text is read as UTC, as single values are.
const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** Which of the holds were placed (the available balance covered them), in the order given. */
export async function placeHoldGroup(writer: AtomicWriter, merchantId: string, mode: string, holds: NewHold[]): Promise<boolean[]> {
  const at = holds[holds.length - 1]!.createdAt;
  // The wallet row is locked first (FOR UPDATE), then the walk decides from its available balance:
  // in arrival order each request takes its fee if what the ones before it left covers it. With one
  // fee that is the covered prefix; with mixed fees a smaller fee after a refused one may still fit,
  // as it would one by one.
  const placed = await writer.run(
    rowsOf<{ id: string }>(
      sql`WITH RECURSIVE "req" AS (
          SELECT * FROM unnest(${holds.map((h) => h.id)}::text[], ${holds.map((h) => h.amountPaise)}::int[], ${holds.map((h) => h.reason)}::text[],
            ${holds.map((h) => h.requestId)}::text[], ${holds.map((h) => iso(h.createdAt))}::timestamp(3)[])
            WITH ORDINALITY AS r("id", "amountPaise", "reason", "requestId", "createdAt", "ord")
        ),
        "wallet" AS (SELECT "id", "availablePaise" FROM "Wallet" WHERE "merchantId" = ${merchantId} AND "mode" = ${mode} FOR UPDATE),
        "walk" ("ord", "left", "taken") AS (
          SELECT 0::bigint, "availablePaise"::bigint, false FROM "wallet"
          UNION ALL
          SELECT "req"."ord", CASE WHEN "req"."amountPaise" <= "walk"."left" THEN "walk"."left" - "req"."amountPaise" ELSE "walk"."left" END,
            "req"."amountPaise" <= "walk"."left"
          FROM "walk" JOIN "req" ON "req"."ord" = "walk"."ord" + 1
        ),
        "held" AS (SELECT "req".* FROM "req" JOIN "walk" ON "walk"."ord" = "req"."ord" WHERE "walk"."taken"),
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
 * Captures of holds on one wallet: each hold still HELD becomes CAPTURED, the wallet is debited
 * once by their sum, and each gets its ledger entry (and KYC transaction) with the balance its own
 * debit left, in arrival order. Null for a hold no longer HELD (nothing written for it).
 */
export async function captureHoldGroup(writer: AtomicWriter, merchantId: string, mode: string, captures: HoldCapture[]): Promise<(CapturedRow | null)[]> {
  const at = captures[captures.length - 1]!.at;
  const kyc = captures.map((c) => c.kycTransaction ?? null);
  const rows = await writer.run(
    rowsOf<CapturedRow & { ord: bigint }>(
      sql`WITH "req" AS (
          SELECT * FROM unnest(${captures.map((c) => c.holdId)}::text[], ${captures.map((c) => c.ledgerId)}::text[],
            ${captures.map((c) => c.reference)}::text[], ${captures.map((c) => iso(c.at))}::timestamp(3)[])
            WITH ORDINALITY AS r("holdId", "ledgerId", "reference", "at", "ord")
        ),
        "hold" AS (
          UPDATE "WalletHold" AS h SET "state" = 'CAPTURED', "settledAt" = "req"."at" FROM "req"
          WHERE h."id" = "req"."holdId" AND h."state" = 'HELD' AND h."merchantId" = ${merchantId} AND h."mode" = ${mode}
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
        "ledger" AS (
          INSERT INTO "LedgerEntry" ("id", "walletId", "merchantId", "mode", "amountPaise", "balanceAfterPaise", "reason", "reference", "createdAt")
          SELECT "ledgerId", "walletId", ${merchantId}, ${mode}, -"amountPaise", "balanceAfterPaise", "reason", "reference", "at" FROM "entry"
        ),
        "kyc" AS (
          INSERT INTO "KycTransaction" ("id", "merchantId", "mode", "kind", "requestId", "otpRequestId", "subjectMasked", "outcome",
            "nameMatchScore", "feePaise", "balanceAfterPaise", "ledgerEntryId", "resultEnc", "resultExpiresAt", "createdAt")
          SELECT k."id", ${merchantId}, ${mode}, k."kind", k."requestId", k."otpRequestId", k."subjectMasked", k."outcome", k."nameMatchScore",
            "entry"."amountPaise", "entry"."balanceAfterPaise", "entry"."ledgerId", k."resultEnc", k."resultExpiresAt", k."createdAt"
          FROM unnest(${kyc.map((k) => k?.id ?? null)}::text[], ${kyc.map((k) => k?.kind ?? null)}::text[], ${kyc.map((k) => k?.requestId ?? null)}::text[],
            ${kyc.map((k) => k?.otpRequestId ?? null)}::text[], ${kyc.map((k) => k?.subjectMasked ?? null)}::text[], ${kyc.map((k) => k?.outcome ?? null)}::text[],
            ${kyc.map((k) => k?.nameMatchScore ?? null)}::float8[], ${kyc.map((k) => k?.resultEnc ?? null)}::text[],
            ${kyc.map((k) => iso(k?.resultExpiresAt ?? null))}::timestamp(3)[], ${kyc.map((k) => iso(k?.createdAt ?? null))}::timestamp(3)[])
            WITH ORDINALITY AS k("id", "kind", "requestId", "otpRequestId", "subjectMasked", "outcome", "nameMatchScore", "resultEnc", "resultExpiresAt", "createdAt", "ord")
          JOIN "entry" ON "entry"."ord" = k."ord" WHERE k."id" IS NOT NULL
        )
        SELECT "ord", "walletId", "amountPaise", "balanceAfterPaise", "lowBalanceThresholdPaise", "lowBalanceAlerted" FROM "entry"`,
    ),
  );
  const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
  return captures.map((_, i) => byOrd.get(i + 1) ?? null);
}
