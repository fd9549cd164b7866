import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { getKycTransaction, listKycTransactions } from "@/server/services/kyc/transactions";
import { request, type HttpResult } from "../helpers/http";
import { createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";

/**
 * One request's audit record that the database refuses fails that request alone: the records it was
 * grouped with are committed, their answers sent, and the refused request's KYC charge is given back
 * (it gets a 503 it may retry). The refusal is planted from outside the server, as a trigger on the
 * audit table that rejects one request id; AUDIT_FLUSH_MS=200 puts the concurrent calls in one group.
 */
describe.each(DB_TARGETS)("audit records isolated from each other on %s", (target) => {
  let env: Started;
  let a: MerchantFixture;
  let b: MerchantFixture;
  let db: Db;

  const kyc = (who: MerchantFixture, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    request(env.server.url, path, {
      method: "POST",
      body: { merchantId: who.merchantId, ...body },
      headers: { "x-api-key": who.sandbox.publicKey, "x-api-secret": who.sandbox.secretKey, ...headers },
    });
  const panKyc = (who: MerchantFixture, headers: Record<string, string> = {}) =>
    kyc(who, "/api/kyc/pan/verify", { pan: "ABCPK1234F", name: "Arjun Kapoor" }, headers);
  const bankKyc = (who: MerchantFixture, headers: Record<string, string> = {}) =>
    kyc(who, "/api/kyc/bank/verify", { accountNumber: "50100123456789", ifsc: "HDFC0001234" }, headers);
  const panVerify = (who: MerchantFixture) =>
    request(env.server.url, "/v1/identity/pan/verify", {
      method: "POST",
      body: { pan: "ABCPK1234F" },
      headers: { Authorization: `Bearer ${who.sandbox.secretKey}` },
    });

  async function wallet(who: MerchantFixture) {
    const w = await db.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId: who.merchantId, mode: "sandbox" } } });
    const entries = await db.ledgerEntry.findMany({ where: { merchantId: who.merchantId, mode: "sandbox" }, select: { amountPaise: true } });
    return { balance: w.balancePaise, available: w.availablePaise, ledger: entries.reduce((s, e) => s + e.amountPaise, 0) };
  }
  const fee = (r: HttpResult) => Math.round(Number(r.json.data.charge.amount) * 100);

  async function refuseRequestId(prefix: string) {
    if (target === "postgresql") {
      await db.$executeRawUnsafe(
        `CREATE OR REPLACE FUNCTION test_refuse_audit() RETURNS trigger AS $$ BEGIN IF NEW."requestId" LIKE '${prefix}%' THEN RAISE EXCEPTION 'audit record refused (test)'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      );
      await db.$executeRawUnsafe(`CREATE TRIGGER test_refuse_audit BEFORE INSERT ON "AuditLog" FOR EACH ROW EXECUTE FUNCTION test_refuse_audit()`);
    } else {
      await db.$executeRawUnsafe(
        `CREATE TRIGGER test_refuse_audit BEFORE INSERT ON "AuditLog" WHEN NEW."requestId" LIKE '${prefix}%' BEGIN SELECT RAISE(ABORT, 'audit record refused (test)'); END`,
      );
    }
  }
  const acceptAll = () =>
    db.$executeRawUnsafe(target === "postgresql" ? `DROP TRIGGER IF EXISTS test_refuse_audit ON "AuditLog"` : `DROP TRIGGER IF EXISTS test_refuse_audit`);

  beforeAll(async () => {
    env = await startFor(target, { AUDIT_FLUSH_MS: "200" });
    a = await createMerchantViaCli(env.server.env, "Merchant A");
    b = await createMerchantViaCli(env.server.env, "Merchant B");
    db = createPrismaClient(env.server.databaseUrl);
  });
  afterAll(async () => {
    await acceptAll().catch(() => undefined);
    await db?.$disconnect();
    await env?.stop();
  });

  it("commits 49 of 50 grouped KYC calls, charges only those, and gives the refused one's fee back", async () => {
    const beforeA = await wallet(a);
    const beforeB = await wallet(b);
    await refuseRequestId("poison-");
    try {
      const calls: Promise<HttpResult>[] = [];
      for (let i = 0; i < 50; i++) {
        const headers: Record<string, string> = i === 18 ? { "X-Request-Id": "poison-1", "Idempotency-Key": "kyc-poison-1" } : { "X-Request-Id": `fine-${i}` };
        calls.push(i % 2 ? bankKyc(a, headers) : panKyc(a, headers));
      }
      // Another merchant's calls in the same groups.
      const others = Array.from({ length: 20 }, (_, i) => (i % 2 ? panVerify(b) : panKyc(b)));
      const answers = await Promise.all(calls);
      const otherAnswers = await Promise.all(others);

      const poisoned = answers[18]!;
      expect(poisoned.status, poisoned.text).toBe(503);
      expect(poisoned.json).toEqual({ success: false, error: expect.objectContaining({ code: "SERVICE_UNAVAILABLE" }), requestId: "poison-1" });
      const ok = answers.filter((_, i) => i !== 18);
      for (const r of ok) expect(r.status, r.text).toBe(200);
      for (const r of otherAnswers) expect(r.status, r.text).toBe(200);

      // Money: A paid for its 49 answers only, B for its own; the balance is the ledger's sum.
      const afterA = await wallet(a);
      const paidA = ok.reduce((s, r) => s + fee(r), 0);
      expect(afterA.balance).toBe(beforeA.balance - paidA);
      expect(afterA.ledger).toBe(afterA.balance);
      expect(afterA.available).toBe(afterA.balance);
      const afterB = await wallet(b);
      const paidB = otherAnswers.filter((r) => r.json.data?.charge).reduce((s, r) => s + fee(r), 0);
      expect(paidB).toBe(10 * 100);
      expect(afterB.balance).toBe(beforeB.balance - paidB);

      // The refused call's transaction is marked reversed, its result dropped, and a credit gives its fee back.
      const txn = await db.kycTransaction.findFirstOrThrow({ where: { requestId: "poison-1" } });
      expect(txn.reversedAt).not.toBeNull();
      expect(txn.resultEnc).toBeNull();
      const reversal = await db.ledgerEntry.findMany({ where: { merchantId: a.merchantId, reference: txn.id } });
      expect(reversal.map((e) => [e.reason, e.amountPaise]).sort()).toEqual([
        ["KYC_PAN", -txn.feePaise],
        ["KYC_REVERSAL", txn.feePaise],
      ]);
      // The dashboard shows it reversed, in the list and the detail.
      const listed = (await listKycTransactions(db, a.merchantId, "sandbox", { limit: 100 })).items.filter((t) => t.reversedAt !== null);
      expect(listed.map((t) => t.id)).toEqual([txn.id]);
      expect((await getKycTransaction(db, a.merchantId, "sandbox", txn.id, 30)).reversedAt).toBe(txn.reversedAt!.toISOString());
      // Every other answer has its audit record.
      expect(await db.auditLog.count({ where: { requestId: { startsWith: "fine-" } } })).toBe(49);
      expect(await db.auditLog.count({ where: { requestId: "poison-1" } })).toBe(0);

      // A retry with the same Idempotency-Key runs again (nothing was stored for it) and is refused again, uncharged.
      const again = await panKyc(a, { "X-Request-Id": "poison-2", "Idempotency-Key": "kyc-poison-1" });
      expect(again.status, again.text).toBe(503);
      expect((await wallet(a)).balance).toBe(afterA.balance);
    } finally {
      await acceptAll();
    }
    // Once records can be written, the same key is answered and charged once, then replayed.
    const answered = await panKyc(a, { "X-Request-Id": "after-poison", "Idempotency-Key": "kyc-poison-1" });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.headers["idempotent-replayed"]).toBeUndefined();
    const replayed = await panKyc(a, { "X-Request-Id": "after-poison-2", "Idempotency-Key": "kyc-poison-1" });
    expect(replayed.status).toBe(200);
    expect(replayed.headers["idempotent-replayed"]).toBe("true");
    expect(replayed.json.data.kycTransactionId).toBe(answered.json.data.kycTransactionId);
    const end = await wallet(a);
    expect(end.ledger).toBe(end.balance);
    expect(await db.kycTransaction.count({ where: { merchantId: a.merchantId, reversedAt: null } })).toBe(50);
  });
});
