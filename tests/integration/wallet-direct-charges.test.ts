import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAtomicWriter, type AtomicWriter } from "@/server/db/atomic-write";
import type { Db } from "@/server/db/client";
import type { DbProvider } from "@/server/db/provider";
import { AppError } from "@/server/errors";
import { runLocallyAnsweredKyc } from "@/server/services/kyc/charge";
import { chargeWithoutHold } from "@/server/services/wallet/direct-charges";
import { placeHold } from "@/server/services/wallet/holds";
import { DB_TARGETS } from "../helpers/db-targets";
import { openTestWriter } from "../helpers/test-db";
import { fundedSandboxWallet, kycRow } from "../helpers/wallet-holds";

// Sandbox KYC charges without a hold: charges of one wallet asked for at once (written together) must
// come out as charging them one by one in the order asked would: the expected figures are plain
// arithmetic on the fees and balances.
describe.each<DbProvider>(DB_TARGETS)("charges without a hold on %s", (provider) => {
  let db: Db;
  let writer: AtomicWriter;
  // A second writer: another process's charges on the same wallet, grouped apart from these.
  let other: AtomicWriter;
  let close: (() => Promise<void>) | undefined;
  let n = 0;

  beforeAll(async () => {
    let url: string;
    ({ db, writer, url, close } = await openTestWriter(provider, "parakh-direct-charges-"));
    other = createAtomicWriter(db, url);
  });
  afterAll(async () => {
    other?.close();
    await close?.();
  });

  /** A merchant whose sandbox wallet holds `balance`, credited by one ledger entry. */
  async function walletWith(balance: number) {
    const merchantId = `m_direct_${provider}_${++n}`;
    const wallet = await fundedSandboxWallet(db, merchantId, "Direct", balance);
    const charge = (id: string, amountPaise: number, w = writer) =>
      chargeWithoutHold(w, {
        merchantId,
        mode: "sandbox",
        amountPaise,
        reason: "KYC_PAN",
        ledgerId: `led_${merchantId}_${id}`,
        reference: `ref_${id}`,
        at: new Date(),
        kycTransaction: kycRow(`kyc_${merchantId}_${id}`),
      });
    const state = async () => {
      const w = await db.wallet.findUniqueOrThrow({ where: { id: wallet.id } });
      const ledger = await db.ledgerEntry.aggregate({ where: { walletId: wallet.id }, _sum: { amountPaise: true } });
      const holds = await db.walletHold.count({ where: { merchantId } });
      return { balance: w.balancePaise, available: w.availablePaise, ledgerSum: ledger._sum.amountPaise, holds };
    };
    const entry = (id: string) => db.ledgerEntry.findUnique({ where: { id: `led_${merchantId}_${id}` } });
    const kyc = (id: string) => db.kycTransaction.findUnique({ where: { id: `kyc_${merchantId}_${id}` } });
    return { merchantId, charge, state, entry, kyc };
  }

  it("of 25 charges of 100 at once on 1,000, exactly the first 10 are charged, with no hold rows", async () => {
    const w = await walletWith(1000);
    const charged = await Promise.all(Array.from({ length: 25 }, (_, i) => w.charge(`c${i}`, 100)));
    expect(charged.map((c) => c !== null)).toEqual(Array.from({ length: 25 }, (_, i) => i < 10));
    for (let i = 0; i < 10; i++) {
      expect(charged[i]).toMatchObject({ amountPaise: 100, balanceAfterPaise: 900 - 100 * i });
      expect(await w.entry(`c${i}`)).toMatchObject({ amountPaise: -100, balanceAfterPaise: 900 - 100 * i, reason: "KYC_PAN", reference: `ref_c${i}` });
      expect(await w.kyc(`c${i}`)).toMatchObject({ feePaise: 100, balanceAfterPaise: 900 - 100 * i, ledgerEntryId: `led_${w.merchantId}_c${i}` });
    }
    for (let i = 10; i < 25; i++) {
      expect(await w.entry(`c${i}`)).toBeNull();
      expect(await w.kyc(`c${i}`)).toBeNull();
    }
    expect(await w.state()).toEqual({ balance: 0, available: 0, ledgerSum: 0, holds: 0 });
  });

  it("with mixed fees, charges each fee the balance left by the ones before it covers, as one by one would", async () => {
    const w = await walletWith(1000);
    // 100 leaves 900; 1000 is refused; 500 leaves 400; 400 leaves 0; 100 and 50 are refused.
    const first = await Promise.all([100, 1000, 500, 400, 100, 50].map((fee, i) => w.charge(`c${i}`, fee)));
    expect(first.map((c) => c?.balanceAfterPaise ?? null)).toEqual([900, null, 400, 0, null, null]);
    expect(await w.state()).toEqual({ balance: 0, available: 0, ledgerSum: 0, holds: 0 });

    const v = await walletWith(1000);
    // 300 leaves 700; 500 leaves 200; 400 refused; 100 leaves 100; 200 refused; 50 leaves 50.
    const second = await Promise.all([300, 500, 400, 100, 200, 50].map((fee, i) => v.charge(`c${i}`, fee)));
    expect(second.map((c) => c?.balanceAfterPaise ?? null)).toEqual([700, 200, null, 100, null, 50]);
    expect(await v.entry("c5")).toMatchObject({ amountPaise: -50, balanceAfterPaise: 50 });
    expect(await v.state()).toEqual({ balance: 50, available: 50, ledgerSum: 50, holds: 0 });
  });

  it("leaves open holds of other calls alone: only the available balance is charged", async () => {
    const w = await walletWith(1000);
    const held = await placeHold(writer, {
      id: `hold_${w.merchantId}`,
      merchantId: w.merchantId,
      mode: "sandbox",
      amountPaise: 300,
      reason: "KYC_AADHAAR",
      requestId: null,
      createdAt: new Date(),
    });
    expect(held).toBe(true);
    // 700 available: seven charges of 100; the balance (the ledger's sum) still counts the held 300.
    const charged = await Promise.all(Array.from({ length: 10 }, (_, i) => w.charge(`c${i}`, 100)));
    expect(charged.filter(Boolean)).toHaveLength(7);
    expect(charged[6]).toMatchObject({ balanceAfterPaise: 300 });
    expect(await w.state()).toEqual({ balance: 300, available: 0, ledgerSum: 300, holds: 1 });
  });

  it("charges from two processes on one wallet never overdraw it and leave one chain of ledger balances", async () => {
    const w = await walletWith(3000);
    const fees = Array.from({ length: 40 }, (_, i) => 100 + 5 * (i % 4));
    const charged = await Promise.all(fees.map((fee, i) => w.charge(`c${i}`, fee, i % 2 === 0 ? writer : other)));
    const entries = await db.ledgerEntry.findMany({ where: { merchantId: w.merchantId, reason: "KYC_PAN" } });
    expect(entries).toHaveLength(charged.filter(Boolean).length);
    let balance = 3000;
    for (const e of [...entries].sort((a, b) => b.balanceAfterPaise - a.balanceAfterPaise)) {
      balance += e.amountPaise;
      expect(e.balanceAfterPaise).toBe(balance);
    }
    // Every fee is at least 100 and at most 115: 3,000 pays for 26 to 30 of them, and what is left pays for no other.
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(balance).toBeLessThan(100);
    expect(await w.state()).toEqual({ balance, available: balance, ledgerSum: balance, holds: 0 });
  });

  it("a charge whose write fails (its ledger id taken) fails alone: the others asked for with it are charged", async () => {
    const w = await walletWith(1000);
    expect(await w.charge("dup", 100)).not.toBeNull();
    const [a, dup, b] = await Promise.allSettled([w.charge("a", 100), w.charge("dup", 100), w.charge("b", 100)]);
    expect(a).toMatchObject({ status: "fulfilled", value: { amountPaise: 100 } });
    expect(dup.status).toBe("rejected");
    expect(b).toMatchObject({ status: "fulfilled", value: { amountPaise: 100 } });
    expect(await w.state()).toEqual({ balance: 700, available: 700, ledgerSum: 700, holds: 0 });
  });

  describe("a KYC call answered from local fixtures", () => {
    const vault = () => ({ db, store: writer, encryptionKey: crypto.randomBytes(32).toString("base64"), retentionDays: 30 });
    const caller = (merchantId: string, feePaise: number) => ({ merchantId, mode: "sandbox" as const, requestId: `req_${crypto.randomUUID()}`, feePaise });
    const answer = (subject: string) => () => ({ data: { subject }, summary: { kind: "PAN" as const, subjectMasked: subject, outcome: "VALID" } });
    const sourceDown = () => {
      throw new AppError("SOURCE_UNAVAILABLE");
    };

    it("is charged once per answer, 402 for the ones the wallet cannot cover", async () => {
      const w = await walletWith(550);
      const calls = Array.from({ length: 8 }, (_, i) => runLocallyAnsweredKyc(vault(), caller(w.merchantId, 100), answer(`S${i}`)));
      const settled = await Promise.allSettled(calls);
      // floor(550 / 100) = 5 answers, 3 refusals.
      expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(5);
      for (const s of settled.filter((x) => x.status === "rejected")) expect((s.reason as AppError).code).toBe("INSUFFICIENT_BALANCE");
      const balances = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value.walletBalance] : [])).sort();
      expect(balances).toEqual(["0.50", "1.50", "2.50", "3.50", "4.50"]);
      expect(await db.kycTransaction.count({ where: { merchantId: w.merchantId } })).toBe(5);
      expect(await w.state()).toEqual({ balance: 50, available: 50, ledgerSum: 50, holds: 0 });
    });

    it("gives a source failure uncharged, and 402 instead when the wallet could not have paid", async () => {
      const w = await walletWith(100);
      await expect(runLocallyAnsweredKyc(vault(), caller(w.merchantId, 100), sourceDown)).rejects.toMatchObject({ code: "SOURCE_UNAVAILABLE" });
      await expect(runLocallyAnsweredKyc(vault(), caller(w.merchantId, 101), sourceDown)).rejects.toMatchObject({ code: "INSUFFICIENT_BALANCE" });
      expect(await w.state()).toEqual({ balance: 100, available: 100, ledgerSum: 100, holds: 0 });
      expect(await db.kycTransaction.count({ where: { merchantId: w.merchantId } })).toBe(0);
    });
  });
});
