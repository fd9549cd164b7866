import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeCashfreeVerification, type FakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { startFakeSetu, type FakeSetu } from "../helpers/fake-setu";
import { request, type HttpResult } from "../helpers/http";
import { waitFor } from "../helpers/wait";
import { approveLiveViaCli, cli, createMerchantViaCli } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { createPrismaClient, type Db } from "@/server/db/client";
import { merchantForOperator } from "@/server/services/accounts/admin";

// The vendor that answered a live check is kept on its record (contract C6): the verification row
// and the KYC transaction say `cashfree` or `setu`, operators read it there, and the merchant's
// answer is the same whichever vendor gave it. Sandbox records name no vendor (null).
const CASHFREE = { clientId: "CF_TEST_CLIENT_4242", clientSecret: "cfsk_ma_test_vendor_record_1a2b3c" };
const SETU = {
  clientId: "setu-client-4242",
  clientSecret: "setu-secret-4242",
  panProductInstanceId: "pan-instance-4242",
  bankProductInstanceId: "bank-instance-4242",
};
// How the merchant attests the person's consent on a live call (C6); Setu takes no call without it.
const CONSENT = { consent: true, purpose: "Seller onboarding: identity check before payouts" };
const ACCOUNT = "026291800001191";
const IFSC = "YESB0000262";

/** Every key anywhere in a JSON value. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]);
  return [];
}

describe.each(DB_TARGETS)("the answering vendor on the record, on %s", (target) => {
  let cashfree: FakeCashfreeVerification;
  let setu: FakeSetu;
  let env: Started;
  let db: Db;
  let merchantId: string;
  let liveAuth: Record<string, string>;
  let sandboxAuth: Record<string, string>;
  let kycHeaders: Record<string, string>;

  const ok = (r: HttpResult) => {
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    // The merchant's answer never says which vendor gave it.
    expect(keysOf(r.json)).not.toContain("vendor");
    return r;
  };
  const verifyPan = async (pan: string, auth = liveAuth) => {
    const requestId = `req_vendor_${pan}_${Date.now()}`;
    ok(
      await request(env.server.url, "/v1/identity/pan/verify", {
        method: "POST",
        body: { pan, name: "Asha Kumari", ...CONSENT },
        headers: { ...auth, "x-request-id": requestId },
      }),
    );
    return db.verification.findFirstOrThrow({ where: { merchantId, requestId } });
  };
  const panKyc = async (pan: string) => {
    const r = ok(
      await request(env.server.url, "/api/kyc/pan/verify", { method: "POST", body: { merchantId, pan, name: "Asha Kumari", ...CONSENT }, headers: kycHeaders }),
    );
    return db.kycTransaction.findUniqueOrThrow({ where: { id: r.json.data.kycTransactionId } });
  };
  const bankKyc = async () => {
    const body = { merchantId, accountNumber: ACCOUNT, ifsc: IFSC, name: "Rahul Kumar Sharma", ...CONSENT };
    const r = ok(await request(env.server.url, "/api/kyc/bank/verify", { method: "POST", body, headers: kycHeaders }));
    return db.kycTransaction.findUniqueOrThrow({ where: { id: r.json.data.kycTransactionId } });
  };

  beforeAll(async () => {
    cashfree = await startFakeCashfreeVerification(CASHFREE);
    setu = await startFakeSetu(SETU);
    env = await startFor(target, {
      LIVE_VERIFICATION_PROVIDER: "cashfree",
      LIVE_PAN_VENDORS: "cashfree,setu",
      LIVE_BANK_VENDORS: "cashfree,setu",
      CASHFREE_VERIFICATION_BASE_URL: cashfree.url,
      CASHFREE_VERIFICATION_CLIENT_ID: CASHFREE.clientId,
      CASHFREE_VERIFICATION_CLIENT_SECRET: CASHFREE.clientSecret,
      SETU_BASE_URL: setu.url,
      SETU_CLIENT_ID: SETU.clientId,
      SETU_CLIENT_SECRET: SETU.clientSecret,
      SETU_PAN_PRODUCT_INSTANCE_ID: SETU.panProductInstanceId,
      SETU_BANK_PRODUCT_INSTANCE_ID: SETU.bankProductInstanceId,
      UPSTREAM_TIMEOUT_MS: "3000",
    });
    const m = await createMerchantViaCli(env.server.env, "Vendor Record");
    const key = await approveLiveViaCli(env.server.env, m.merchantId);
    merchantId = m.merchantId;
    liveAuth = { Authorization: `Bearer ${key.secretKey}` };
    sandboxAuth = { Authorization: `Bearer ${m.sandbox.secretKey}` };
    kycHeaders = { "x-api-key": key.publicKey, "x-api-secret": key.secretKey };
    const credit = ["wallet", "credit", "--merchant", merchantId, "--mode", "live", "--amount", "1000", "--reason", "first top-up"];
    expect((await cli(env.server.env, credit)).code).toBe(0);
    db = createPrismaClient(env.server.databaseUrl);
    for (const pan of ["ABCPK1234F", "ABCPK5678G"]) {
      cashfree.panRecords.set(pan, { name: "ASHA KUMARI", dob: "1990-01-01", seeding: "Y" });
      setu.panRecords.set(pan, { name: "ASHA KUMARI" });
    }
    cashfree.bankNames.set(ACCOUNT, "Rahul Kumar Sharma");
    setu.accounts.set(ACCOUNT, "Rahul Kumar Sharma");
  }, 90_000);
  afterEach(() => {
    cashfree.clear();
    setu.clear();
    expect(cashfree.problems).toEqual([]);
    expect(setu.problems).toEqual([]);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
    await Promise.all([cashfree?.close(), setu?.close()]);
  });

  it("records cashfree when the first vendor answers", async () => {
    const setuCalls = setu.count();
    expect((await verifyPan("ABCPK1234F")).vendor).toBe("cashfree");
    expect((await panKyc("ABCPK1234F")).vendor).toBe("cashfree");
    expect((await bankKyc()).vendor).toBe("cashfree");
    expect(setu.count()).toBe(setuCalls);
  });

  it("records cashfree for a live EPFO check, single or in a batch (EPFO has one vendor), and nothing of it in the answers", async () => {
    const requestId = `req_vendor_epfo_${target}`;
    const single = await request(env.server.url, "/v1/employment/epfo/verify", {
      method: "POST",
      body: { uan: "100200300400", ...CONSENT },
      headers: { ...liveAuth, "x-request-id": requestId },
    });
    expect(single.status, JSON.stringify(single.json)).toBe(200);
    expect(keysOf(single.json)).not.toContain("vendor");
    expect(await db.verification.findFirstOrThrow({ where: { merchantId, requestId } })).toMatchObject({ kind: "EPFO", outcome: "ACTIVE", vendor: "cashfree" });
    const submitted = await request(env.server.url, "/v1/employment/epfo/batch", {
      method: "POST",
      body: { items: [{ uan: "100200300400" }], ...CONSENT },
      headers: liveAuth,
    });
    expect(submitted.status, JSON.stringify(submitted.json)).toBe(202);
    const batchId = submitted.json.data.batch_id as string;
    const row = await waitFor("the batch item's verification row", () => db.verification.findFirst({ where: { merchantId, batchId } }), 30_000, 100);
    expect(row).toMatchObject({ kind: "EPFO", outcome: "ACTIVE", vendor: "cashfree" });
    const results = await request(env.server.url, `/v1/employment/epfo/batch/${batchId}/results`, { headers: liveAuth });
    expect(results.status).toBe(200);
    expect(keysOf(results.json)).not.toContain("vendor");
  });

  it("records setu when the first vendor fails and the second answers", async () => {
    cashfree.fail("pan", "500");
    cashfree.fail("bank", "500");
    const before = { pan: setu.count("pan"), bank: setu.count("bank") };
    const row = await verifyPan("ABCPK5678G");
    expect(row).toMatchObject({ outcome: "VALID", vendor: "setu", errorCode: null });
    expect((await panKyc("ABCPK5678G")).vendor).toBe("setu");
    expect((await bankKyc()).vendor).toBe("setu");
    expect(setu.count("pan")).toBe(before.pan + 2);
    expect(setu.count("bank")).toBe(before.bank + 1);
    // Operators see it with the merchant's last calls.
    const operator = await merchantForOperator(db, merchantId);
    expect(operator.recentCalls.slice(0, 3).map((c) => [c.path, c.vendor])).toEqual([
      ["/api/kyc/bank/verify", "setu"],
      ["/api/kyc/pan/verify", "setu"],
      ["/v1/identity/pan/verify", "setu"],
    ]);
  });

  it("records no vendor for a live check no vendor answered, nor for sandbox", async () => {
    cashfree.fail("pan", "500");
    setu.fail("pan", "500");
    const requestId = `req_vendor_none_${target}`;
    const r = await request(env.server.url, "/v1/identity/pan/verify", {
      method: "POST",
      body: { pan: "ABCPK1234F", ...CONSENT },
      headers: { ...liveAuth, "x-request-id": requestId },
    });
    expect(r.status).toBe(503);
    expect(await db.verification.findFirstOrThrow({ where: { merchantId, requestId } })).toMatchObject({ outcome: "ERROR", vendor: null });
    cashfree.clear();
    setu.clear();
    const sandbox = await verifyPan("ABCPK1234F", sandboxAuth);
    expect(sandbox).toMatchObject({ mode: "sandbox", vendor: null });
  });
});
