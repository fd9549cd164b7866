import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { getKycTransaction, listKycTransactions } from "@/server/services/kyc/transactions";
import { request, type HttpResult } from "../helpers/http";
import { cli, createMerchantViaCli, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";

const NUL = "\u0000";

/**
 * Stored text. What a database cannot store as sent (U+0000, which PostgreSQL's text refuses, and
 * unpaired surrogates, which both databases would silently turn into U+FFFD) is refused at the door,
 * field by field, before any work or charge; what is stored is redacted by value; and a record the
 * database refuses fails only its own request.
 */
describe.each(DB_TARGETS)("stored text on %s", (target) => {
  let env: Started;
  let m: MerchantFixture;
  let a: MerchantFixture;
  let b: MerchantFixture;
  let db: Db;
  let seq = 0;

  const v1 = (path: string, body: unknown) =>
    request(env.server.url, path, { method: "POST", body, headers: { Authorization: `Bearer ${m.sandbox.secretKey}` } });
  const payHeaders = () => ({ "x-merchant-id": m.merchantId, "x-api-key": m.sandbox.publicKey, "x-secret-key": m.sandbox.secretKey });
  const pay = (path: string, body?: unknown) => request(env.server.url, path, { method: body === undefined ? "GET" : "POST", body, headers: payHeaders() });
  const kyc = (path: string, body: Record<string, unknown>) =>
    request(env.server.url, path, {
      method: "POST",
      body: { merchantId: m.merchantId, ...body },
      headers: { "x-api-key": m.sandbox.publicKey, "x-api-secret": m.sandbox.secretKey },
    });

  async function balance(): Promise<number> {
    return (await db.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId: m.merchantId, mode: "sandbox" } } })).balancePaise;
  }

  function expectRefused(r: HttpResult, field: string) {
    expect(r.status, r.text).toBe(400);
    const error = r.json.error;
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(error.details).toEqual([{ field, message: expect.stringMatching(/U\+0000|unpaired surrogate/) }]);
  }

  async function paidPayment(): Promise<string> {
    const created = await pay("/api/checkout", { orderId: `ORDER_nul_${target}_${Date.now()}_${seq++}`, amount: 500 });
    expect(created.status).toBe(200);
    const paymentId = created.json.data.paymentId as string;
    expect((await pay(`/api/sandbox/payments/${paymentId}/simulate`, { outcome: "SUCCESS" })).status).toBe(200);
    return paymentId;
  }

  const kycAs = (who: MerchantFixture, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    request(env.server.url, path, {
      method: "POST",
      body: { merchantId: who.merchantId, ...body },
      headers: { "x-api-key": who.sandbox.publicKey, "x-api-secret": who.sandbox.secretKey, ...headers },
    });
  const panKyc = (who: MerchantFixture, headers: Record<string, string> = {}) =>
    kycAs(who, "/api/kyc/pan/verify", { pan: "ABCPK1234F", name: "Arjun Kapoor" }, headers);
  const bankKyc = (who: MerchantFixture, headers: Record<string, string> = {}) =>
    kycAs(who, "/api/kyc/bank/verify", { accountNumber: "50100123456789", ifsc: "HDFC0001234" }, headers);
  const panVerify = (who: MerchantFixture) =>
    request(env.server.url, "/v1/identity/pan/verify", {
      method: "POST",
      body: { pan: "ABCPK1234F" },
      headers: { Authorization: `Bearer ${who.sandbox.secretKey}` },
    });

  async function walletOf(who: MerchantFixture) {
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
    // Records wait up to 25 ms for others to share their commit: the concurrent calls below are grouped.
    env = await startFor(target, { AUDIT_FLUSH_MS: "25" });
    m = await createMerchantViaCli(env.server.env);
    expect((await cli(env.server.env, ["whitelist", "add", "--merchant", m.merchantId, "--ip", "127.0.0.1"])).code).toBe(0);
    db = createPrismaClient(env.server.databaseUrl);
    a = m;
    b = await createMerchantViaCli(env.server.env, "Merchant B");
  });
  afterAll(async () => {
    await acceptAll().catch(() => undefined);
    await db?.$disconnect();
    await env?.stop();
  });

  it("refuses U+0000 in a JSON string with 400 VALIDATION_ERROR naming the field, on every kind of route", async () => {
    expectRefused(await v1("/v1/identity/pan/verify", { pan: "ABCPK1234F", name: `x${NUL}y` }), "name");
    expectRefused(await v1("/v1/employment/epfo/verify", { uan: `10000000000${NUL}` }), "uan");
    expectRefused(await pay("/api/checkout", { orderId: "ORDER_nul_desc", amount: 10, description: `a${NUL}` }), "description");
    expectRefused(await pay("/api/checkout", { orderId: "ORDER_nul_meta", amount: 10, meta: { name: `Asha${NUL}`, email: "a@example.com" } }), "meta.name");
    expectRefused(await v1("/v1/identity/pan/batch", { items: [{ pan: "ABCPK1234F" }], client_batch_id: `b${NUL}` }), "client_batch_id");
    expectRefused(await kyc("/api/kyc/aadhaar/verify-otp", { aadhaarNumber: "234567890009", otp: "123456", requestId: `kyc_req_${NUL}` }), "requestId");
    // In a key too: unknown fields are dropped by the schema, but the audit log keeps the body as sent.
    expectRefused(await v1("/v1/identity/pan/verify", { pan: "ABCPK1234F", [`x${NUL}`]: 1 }), "x\\u0000");
    // And in an array element.
    expectRefused(await pay("/api/checkout", { orderId: "ORDER_nul_arr", amount: 10, meta: { tags: ["ok", `b${NUL}`] } }), "meta.tags.1");
    const paymentId = await paidPayment();
    expectRefused(await pay(`/api/payments/${paymentId}/refunds`, { reason: `r${NUL}` }), "reason");
  });

  it("refuses unpaired surrogates the same way (they could only be stored changed)", async () => {
    // JSON text with a lone high surrogate escape: JSON.stringify would write a valid pair, so the body is raw.
    const r = await request(env.server.url, "/v1/identity/pan/verify", {
      method: "POST",
      rawBody: '{"pan":"ABCPK1234F","name":"Asha \\ud800"}',
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${m.sandbox.secretKey}` },
    });
    expectRefused(r, "name");
    // A proper pair (an emoji) is ordinary text.
    const ok = await v1("/v1/identity/pan/verify", { pan: "ABCPK1234F", name: "Asha 😀" });
    expect(ok.status, ok.text).toBe(200);
  });

  it("refuses it before any charge: a KYC call with U+0000 leaves the wallet as it was", async () => {
    const before = await balance();
    expectRefused(await kyc("/api/kyc/pan/verify", { pan: "ABCPK1234F", name: `Rahul${NUL}` }), "name");
    expectRefused(await kyc("/api/kyc/bank/verify", { accountNumber: "1234567890", ifsc: "HDFC0000001", name: `x${NUL}` }), "name");
    expect(await balance()).toBe(before);
  });

  it("answers a path id or query value with U+0000 in the envelope: 404 for the id, 400 naming the parameter", async () => {
    const status = await pay("/api/payments/%00/status");
    expect(status.status, status.text).toBe(404);
    expect(status.json).toMatchObject({ success: false, error: { code: "PAYMENT_NOT_FOUND" } });
    const refund = await pay("/api/refunds/rfnd_%00");
    expect(refund.status, refund.text).toBe(404);
    expect(refund.json.error.code).toBe("REFUND_NOT_FOUND");
    const batch = await request(env.server.url, "/v1/identity/pan/batch/batch_%00", { headers: { Authorization: `Bearer ${m.sandbox.secretKey}` } });
    expect(batch.status, batch.text).toBe(404);
    expect(batch.json).toMatchObject({ status: "error", error: { code: "BATCH_NOT_FOUND" } });
    const created = await v1("/v1/identity/pan/batch", { items: [{ pan: "ABCPK1234F" }] });
    expect(created.status, created.text).toBe(202);
    const results = await request(env.server.url, `/v1/identity/pan/batch/${created.json.data.batch_id}/results?cursor=a%00`, {
      headers: { Authorization: `Bearer ${m.sandbox.secretKey}` },
    });
    expectRefused(results, "cursor");
  });

  it("rejects a batch item with U+0000 as that item, and the batch completes", async () => {
    const items = [
      { pan: "ABCPK1234F", name: "Rahul Sharma", reference_id: "ok-1" },
      { pan: "ABCPK1234F", name: `Rahul${NUL}Sharma`, reference_id: "bad-name" },
      { pan: "ABCPK1234F", reference_id: `bad${NUL}ref` },
      { pan: "ABCPK1234F", reference_id: "ok-2" },
    ];
    const created = await v1("/v1/identity/pan/batch", { items });
    expect(created.status, created.text).toBe(202);
    expect(created.json.data).toMatchObject({ total: 4, accepted: 2, rejected: 2 });
    const id = created.json.data.batch_id as string;
    const auth = { Authorization: `Bearer ${m.sandbox.secretKey}` };
    const done = await waitFor("batch completed", async () => {
      const s = await request(env.server.url, `/v1/identity/pan/batch/${id}`, { headers: auth });
      return s.json.data.status === "COMPLETED" ? s.json.data : null;
    });
    expect(done).toMatchObject({ total: 4, processed: 4, succeeded: 2, failed: 2 });
    const results = await request(env.server.url, `/v1/identity/pan/batch/${id}/results`, { headers: auth });
    const byIndex = results.json.data.items as { index: number; reference_id: string | null; error: { code: string; message: string } | null }[];
    expect(byIndex.map((i) => i.error?.code ?? null)).toEqual([null, "VALIDATION_ERROR", "VALIDATION_ERROR", null]);
    expect(byIndex[1]!.error!.message).toMatch(/name .*U\+0000/);
    expect(byIndex[2]!.error!.message).toMatch(/reference_id .*U\+0000/);
    expect(byIndex[2]!.reference_id).toBeNull();
  });

  it("keeps no card or Aadhaar number typed into free text: payment, refund, batch item (B9 by value)", async () => {
    const card = "4111\u00a01111\u00a01111\u00a01111"; // the Visa test number, copied with no-break spaces
    const created = await pay("/api/checkout", {
      orderId: `ORDER_b9_${target}_${seq++}`,
      amount: 10,
      description: `Gift for card ${card}`,
      meta: { name: "Asha 2345 6789 0009", email: "asha@example.com" },
    });
    expect(created.status, created.text).toBe(200);
    const payment = await db.payment.findUniqueOrThrow({ where: { id: created.json.data.paymentId } });
    expect(payment.description).toBe("Gift for card [REDACTED]");
    expect(payment.customerName).toBe("Asha [REDACTED]");

    const paymentId = await paidPayment();
    const reason = `customer card ${card}`;
    const first = await pay(`/api/payments/${paymentId}/refunds`, { amount: 1, reason, merchantRefundId: `rf_b9_${target}` });
    expect(first.status, first.text).toBe(200);
    expect((await db.refund.findUniqueOrThrow({ where: { id: first.json.data.refundId } })).reason).toBe("customer card [REDACTED]");
    // A retry of the same refund (same reason as sent) is still recognised as the same request.
    const retry = await pay(`/api/payments/${paymentId}/refunds`, { amount: 1, reason, merchantRefundId: `rf_b9_${target}` });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json.data.refundId).toBe(first.json.data.refundId);

    const batch = await v1("/v1/identity/pan/batch", {
      items: [
        { pan: "ABCPK1234F", name: `Rahul ${card}` },
        { pan: `4111 1111 1111 1111`, name: "Rahul" },
      ],
    });
    expect(batch.status, batch.text).toBe(202);
    const auth = { Authorization: `Bearer ${m.sandbox.secretKey}` };
    const id = batch.json.data.batch_id as string;
    await waitFor("batch completed", async () => {
      const st = await request(env.server.url, `/v1/identity/pan/batch/${id}`, { headers: auth });
      return st.json.data.status === "COMPLETED" || null;
    });
    const results = await request(env.server.url, `/v1/identity/pan/batch/${id}/results`, { headers: auth });
    expect(results.json.data.items.map((i: { input: unknown }) => i.input)).toEqual([
      { pan: "ABCPK1234F", name: "Rahul [REDACTED]" },
      { pan: "[REDACTED]", name: "Rahul" },
    ]);
    const stored = await db.batchChunkItems.findMany({ where: { chunk: { batchId: id } } });
    expect(JSON.stringify(stored)).not.toMatch(/4111/);
  });

  // One request's audit record that the database refuses fails that request alone: the records it was
  // grouped with are committed, their answers sent, and the refused request's KYC charge is given back
  // (it gets a 503 it may retry). The refusal is planted from outside the server, as a trigger on the
  // audit table that rejects one request id; the 50 concurrent calls are committed in groups.
  it("commits 49 of 50 grouped KYC calls, charges only those, and gives the refused one's fee back", async () => {
    const beforeA = await walletOf(a);
    const answeredBefore = await db.kycTransaction.count({ where: { merchantId: a.merchantId, reversedAt: null } });
    const beforeB = await walletOf(b);
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
      const afterA = await walletOf(a);
      const paidA = ok.reduce((s, r) => s + fee(r), 0);
      expect(afterA.balance).toBe(beforeA.balance - paidA);
      expect(afterA.ledger).toBe(afterA.balance);
      expect(afterA.available).toBe(afterA.balance);
      const afterB = await walletOf(b);
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
      expect((await walletOf(a)).balance).toBe(afterA.balance);
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
    const end = await walletOf(a);
    expect(end.ledger).toBe(end.balance);
    expect(await db.kycTransaction.count({ where: { merchantId: a.merchantId, reversedAt: null } })).toBe(answeredBefore + 50);
  });
});
