import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAtomicWriter, type AtomicWriter } from "@/server/db/atomic-write";
import type { Db } from "@/server/db/client";
import type { DbProvider } from "@/server/db/provider";
import { captureHold, placeHold, releaseHold } from "@/server/services/wallet/holds";
import { DB_TARGETS } from "../helpers/db-targets";
import { openTestWriter } from "../helpers/test-db";
import { fundedSandboxWallet, kycRow } from "../helpers/wallet-holds";

// Holds and captures of one wallet asked for at once (on PostgreSQL they are written together, one
// statement per group) must come out as if written one by one in the order they were asked for. The
// expected figures are plain arithmetic on the fees and balances.
describe.each<DbProvider>(DB_TARGETS)("holds and captures asked for together on %s", (provider) => {
  let db: Db;
  let writer: AtomicWriter;
  // A second writer: another process's holds and captures on the same wallet, grouped apart from these.
  let other: AtomicWriter;
  let close: (() => Promise<void>) | undefined;
  let n = 0;

  beforeAll(async () => {
    let url: string;
    ({ db, writer, url, close } = await openTestWriter(provider, "parakh-hold-groups-"));
    other = createAtomicWriter(db, url);
  });
  afterAll(async () => {
    other?.close();
    await close?.();
  });

  /** A merchant whose sandbox wallet holds `balance`, credited by one ledger entry. */
  async function walletWith(balance: number) {
    const merchantId = `m_groups_${provider}_${++n}`;
    const wallet = await fundedSandboxWallet(db, merchantId, "Groups", balance);
    const hold = (id: string, amountPaise: number, w = writer) =>
      placeHold(w, { id: `${merchantId}_${id}`, merchantId, mode: "sandbox", amountPaise, reason: "KYC_PAN", requestId: null, createdAt: new Date() });
    const capture = (id: string, w = writer) =>
      captureHold(w, {
        holdId: `${merchantId}_${id}`,
        merchantId,
        mode: "sandbox",
        ledgerId: `led_${merchantId}_${id}`,
        reference: `ref_${id}`,
        at: new Date(),
        kycTransaction: kycRow(`kyc_${merchantId}_${id}`),
      });
    const release = (id: string) => releaseHold(writer, `${merchantId}_${id}`, new Date());
    const state = async () => {
      const w = await db.wallet.findUniqueOrThrow({ where: { id: wallet.id } });
      const ledger = await db.ledgerEntry.aggregate({ where: { walletId: wallet.id }, _sum: { amountPaise: true } });
      return { balance: w.balancePaise, available: w.availablePaise, ledgerSum: ledger._sum.amountPaise };
    };
    const entry = (id: string) => db.ledgerEntry.findUnique({ where: { id: `led_${merchantId}_${id}` } });
    return { merchantId, hold, capture, release, state, entry };
  }

  it("of 25 holds of 100 at once on 1,000 available, exactly 10 are placed and nothing is overdrawn", async () => {
    const w = await walletWith(1000);
    const placed = await Promise.all(Array.from({ length: 25 }, (_, i) => w.hold(`h${i}`, 100)));
    // Asked for in this order, the first ten are the ones covered.
    expect(placed).toEqual(Array.from({ length: 25 }, (_, i) => i < 10));
    expect(await w.state()).toEqual({ balance: 1000, available: 0, ledgerSum: 1000 });
    expect(await db.walletHold.count({ where: { merchantId: w.merchantId, state: "HELD" } })).toBe(10);
  });

  it("with mixed fees, holds each fee the balance left by the ones before it covers, as one by one would", async () => {
    const w = await walletWith(1000);
    const fees = [100, 1000, 500, 400, 100, 50];
    // 100 leaves 900; 1000 is refused; 500 leaves 400; 400 leaves 0; 100 and 50 are refused.
    const placed = await Promise.all(fees.map((fee, i) => w.hold(`h${i}`, fee)));
    expect(placed).toEqual([true, false, true, true, false, false]);
    expect((await w.state()).available).toBe(0);

    const v = await walletWith(1000);
    // 300 leaves 700; 500 leaves 200; 400 refused; 100 leaves 100; 200 refused; 50 leaves 50.
    const second = await Promise.all([300, 500, 400, 100, 200, 50].map((fee, i) => v.hold(`h${i}`, fee)));
    expect(second).toEqual([true, true, false, true, false, true]);
    expect((await v.state()).available).toBe(50);
  });

  it("holds from two processes on one wallet never overdraw it", async () => {
    const w = await walletWith(1000);
    const asks = Array.from({ length: 30 }, (_, i) => w.hold(`h${i}`, 100, i % 2 === 0 ? writer : other));
    expect((await Promise.all(asks)).filter(Boolean)).toHaveLength(10);
    expect(await w.state()).toEqual({ balance: 1000, available: 0, ledgerSum: 1000 });
  });

  it("a hold whose write fails (its id taken) fails alone: the others asked for with it are placed", async () => {
    const w = await walletWith(1000);
    expect(await w.hold("dup", 100)).toBe(true);
    const [a, dup, b] = await Promise.allSettled([w.hold("a", 100), w.hold("dup", 100), w.hold("b", 100)]);
    expect(a).toEqual({ status: "fulfilled", value: true });
    expect(dup.status).toBe("rejected");
    expect(b).toEqual({ status: "fulfilled", value: true });
    expect((await w.state()).available).toBe(700);
  });

  it("captures at once each charge once, with ledger balances in the order asked and KYC rows that match them", async () => {
    const START = 100_000;
    const w = await walletWith(START);
    const fees = Array.from({ length: 30 }, (_, i) => 100 + 7 * i);
    for (const [i, fee] of fees.entries()) expect(await w.hold(`h${i}`, fee)).toBe(true);
    const captured = await Promise.all(fees.map((_, i) => w.capture(`h${i}`)));
    let balance = START;
    for (const [i, fee] of fees.entries()) {
      balance -= fee;
      expect(captured[i]).toMatchObject({ amountPaise: fee, balanceAfterPaise: balance });
      expect(await w.entry(`h${i}`)).toMatchObject({ amountPaise: -fee, balanceAfterPaise: balance, reason: "KYC_PAN", reference: `ref_h${i}` });
      const kyc = await db.kycTransaction.findUniqueOrThrow({ where: { id: `kyc_${w.merchantId}_h${i}` } });
      expect(kyc).toMatchObject({
        merchantId: w.merchantId,
        mode: "sandbox",
        feePaise: fee,
        balanceAfterPaise: balance,
        ledgerEntryId: `led_${w.merchantId}_h${i}`,
      });
    }
    expect(await w.state()).toEqual({ balance, available: balance, ledgerSum: balance });
    // A second round of the same captures charges nothing.
    expect(await Promise.all(fees.map((_, i) => w.capture(`h${i}`)))).toEqual(fees.map(() => null));
    expect((await w.state()).balance).toBe(balance);
  });

  it("a hold released while its wallet's captures are in flight is neither charged nor released twice", async () => {
    const START = 50_000;
    const w = await walletWith(START);
    const fees = Array.from({ length: 20 }, (_, i) => 200 + 10 * i);
    for (const [i, fee] of fees.entries()) expect(await w.hold(`h${i}`, fee)).toBe(true);
    // The first capture is on its way when hold 7 is released; the rest (7 among them) follow together,
    // and hold 13 is released while they run: it is released or captured, never both.
    const first = w.capture("h0");
    expect(await w.release("h7")).toBe(true);
    const [rest, released13] = await Promise.all([Promise.all(fees.slice(1).map((_, i) => w.capture(`h${i + 1}`))), w.release("h13")]);
    const results = [await first, ...rest];
    expect(results[7]).toBeNull();
    expect(results[13] === null).toBe(released13);

    let balance = START;
    for (const [i, fee] of fees.entries()) {
      if (results[i] === null) continue;
      balance -= fee;
      expect(await w.entry(`h${i}`)).toMatchObject({ amountPaise: -fee, balanceAfterPaise: balance });
    }
    expect(await w.entry("h7")).toBeNull();
    expect(await w.state()).toEqual({ balance, available: balance, ledgerSum: balance });
    expect(await db.walletHold.count({ where: { merchantId: w.merchantId, state: "HELD" } })).toBe(0);
  });

  it("captures from two processes on one wallet leave one chain of ledger balances that ends at the wallet's", async () => {
    const START = 80_000;
    const w = await walletWith(START);
    const fees = Array.from({ length: 40 }, (_, i) => 150 + 3 * i);
    for (const [i, fee] of fees.entries()) expect(await w.hold(`h${i}`, fee)).toBe(true);
    await Promise.all(fees.map((_, i) => w.capture(`h${i}`, i % 2 === 0 ? writer : other)));
    const entries = await db.ledgerEntry.findMany({ where: { merchantId: w.merchantId, reason: "KYC_PAN" } });
    expect(entries).toHaveLength(40);
    // Whatever order the two processes' groups committed in, each balance is the one before less its fee.
    let balance = START;
    for (const e of [...entries].sort((a, b) => b.balanceAfterPaise - a.balanceAfterPaise)) {
      balance += e.amountPaise;
      expect(e.balanceAfterPaise).toBe(balance);
    }
    expect(balance).toBe(START - fees.reduce((a, b) => a + b, 0));
    expect(await w.state()).toEqual({ balance, available: balance, ledgerSum: balance });
  });
});
