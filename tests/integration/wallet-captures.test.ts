import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linked, sql, type AtomicWriter } from "@/server/db/atomic-write";
import { kycRow } from "../helpers/wallet-holds";
import type { Db } from "@/server/db/client";
import type { DbProvider } from "@/server/db/provider";
import { captureHold, placeHold, releaseHold } from "@/server/services/wallet/holds";
import { DB_TARGETS } from "../helpers/db-targets";
import { openTestWriter } from "../helpers/test-db";

// Captures are one linked write (a single statement on PostgreSQL). Many at once on one wallet must
// each see the balance the one before left: the expected figures are plain arithmetic on the fees.
describe.each<DbProvider>(DB_TARGETS)("wallet captures on %s", (provider) => {
  let db: Db;
  let writer: AtomicWriter;
  let close: (() => Promise<void>) | undefined;
  const merchantId = `m_captures_${provider}`;
  const START = 100_000;

  beforeAll(async () => {
    ({ db, writer, close } = await openTestWriter(provider, "parakh-captures-"));
    await db.merchant.create({ data: { id: merchantId, name: "Captures", email: `captures-${provider}@example.com`, passwordHash: "x" } });
    await db.wallet.create({ data: { id: `wal_${provider}`, merchantId, mode: "sandbox", balancePaise: START, availablePaise: START } });
  });
  afterAll(() => close?.());

  const hold = async (id: string, amountPaise: number) =>
    placeHold(writer, { id, merchantId, mode: "sandbox", amountPaise, reason: "KYC_PAN", requestId: null, createdAt: new Date() });

  it("charges 40 concurrent captures once each, every ledger entry with the balance its own debit left", async () => {
    const fees = Array.from({ length: 40 }, (_, i) => 100 + i);
    for (const [i, fee] of fees.entries()) expect(await hold(`hold_${provider}_${i}`, fee)).toBe(true);
    const captured = await Promise.all(
      fees.map((_, i) =>
        captureHold(writer, {
          holdId: `hold_${provider}_${i}`,
          merchantId,
          mode: "sandbox",
          ledgerId: `led_${provider}_${i}`,
          reference: `ref_${i}`,
          at: new Date(),
        }),
      ),
    );
    const total = fees.reduce((a, b) => a + b, 0);
    const wallet = await db.wallet.findUniqueOrThrow({ where: { id: `wal_${provider}` } });
    expect(wallet).toMatchObject({ balancePaise: START - total, availablePaise: START - total });
    // In the order they were asked for (the order they commit in, grouped or not), each balance is the previous one less that entry's fee.
    const entries = await db.ledgerEntry.findMany({ where: { merchantId } });
    expect(entries).toHaveLength(40);
    let balance = START;
    for (const [i, fee] of fees.entries()) {
      balance -= fee;
      expect(entries.find((e) => e.id === `led_${provider}_${i}`)).toMatchObject({ amountPaise: -fee, balanceAfterPaise: balance });
    }
    // What each capture answered is its own entry.
    for (const [i, c] of captured.entries()) {
      const entry = entries.find((e) => e.id === `led_${provider}_${i}`)!;
      expect(c).toMatchObject({ amountPaise: fees[i], balanceAfterPaise: entry.balanceAfterPaise, walletId: `wal_${provider}`, lowBalanceAlerted: false });
    }
  });

  it("writes nothing for a hold already released, and a second capture of one hold charges nothing", async () => {
    expect(await hold(`hold_${provider}_r`, 500)).toBe(true);
    expect(await releaseHold(writer, `hold_${provider}_r`, new Date())).toBe(true);
    const before = await db.wallet.findUniqueOrThrow({ where: { id: `wal_${provider}` } });
    const kycTransaction = kycRow("kyc_none");
    expect(
      await captureHold(writer, {
        holdId: `hold_${provider}_r`,
        merchantId,
        mode: "sandbox",
        ledgerId: "led_none",
        reference: "r",
        at: new Date(),
        kycTransaction,
      }),
    ).toBeNull();
    expect(await hold(`hold_${provider}_twice`, 700)).toBe(true);
    const twice = () =>
      captureHold(writer, {
        holdId: `hold_${provider}_twice`,
        merchantId,
        mode: "sandbox",
        ledgerId: `led_twice_${Math.random()}`,
        reference: "t",
        at: new Date(),
      });
    const results = await Promise.all([twice(), twice(), twice()]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const after = await db.wallet.findUniqueOrThrow({ where: { id: `wal_${provider}` } });
    expect(after.balancePaise).toBe(before.balancePaise - 700);
    expect(await db.ledgerEntry.count({ where: { id: "led_none" } })).toBe(0);
    expect(await db.kycTransaction.count({ where: { id: "kyc_none" } })).toBe(0);
    expect(await db.ledgerEntry.count({ where: { reference: "t" } })).toBe(1);
  });

  it("a linked write whose first statement returns nothing runs nothing after it", async () => {
    const rows = await writer.run(
      linked<{ id: string }>(
        [
          { name: "found", st: sql`UPDATE "Wallet" SET "updatedAt" = ${new Date()} WHERE "id" = ${"no_such_wallet"} RETURNING "id"` },
          { st: sql`UPDATE "Wallet" SET "balancePaise" = 0 WHERE "id" = (SELECT "id" FROM "found")` },
          { st: sql`UPDATE "Wallet" SET "lowBalanceAlerted" = ${true} WHERE "merchantId" = ${merchantId} AND EXISTS (SELECT 1 FROM "found")` },
        ],
        ["found"],
      ),
    );
    expect(rows).toEqual([]);
    expect(await db.wallet.findUniqueOrThrow({ where: { id: `wal_${provider}` } })).toMatchObject({ lowBalanceAlerted: false });
  });
});
