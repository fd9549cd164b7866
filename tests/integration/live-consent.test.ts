import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FAKE_OTP, startFakeCashfreeVerification, type FakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { request, type HttpResult } from "../helpers/http";
import { approveLiveViaCli, attestConsent, cli, createMerchantViaCli } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { verhoeffDigit } from "@/lib/verhoeff";
import { createPrismaClient, type Db } from "@/server/db/client";
import { purgeKycData } from "@/server/services/kyc/maintenance";

// Consent and purpose on record (contract C6), over HTTP against the loopback fake of the vendor: a
// live call without them is refused before any vendor call or charge; with them (from the request or
// the merchant's standing settings) they are stored with the check. Expected values are written here
// by hand, never read back from the code under test.
const CLIENT_ID = "CF_CONSENT_CLIENT_2291";
const CLIENT_SECRET = "cfsk_ma_test_consent_6a1f0c9d";
const PURPOSE = "Loan application: KYC of the borrower before disbursal";
const STANDING_PURPOSE = "Employee onboarding: identity check before the offer letter";

function freshAadhaar(): string {
  const first11 = `${2 + crypto.randomInt(8)}${String(crypto.randomInt(1e10)).padStart(10, "0")}`;
  return first11 + verhoeffDigit(first11);
}

describe.each(DB_TARGETS)("consent and purpose of live checks on %s", (target) => {
  let vendor: FakeCashfreeVerification;
  let env: Started;
  let db: Db;
  /** A merchant with no standing settings: every live call must carry consent and purpose. */
  const plain = { merchantId: "", bearer: {} as Record<string, string>, kyc: {} as Record<string, string>, sandbox: {} as Record<string, string> };
  /** A merchant with a standing attestation and a default purpose. */
  const standing = { merchantId: "", bearer: {} as Record<string, string>, kyc: {} as Record<string, string> };

  const post = (path: string, body: unknown, headers: Record<string, string>) => request(env.server.url, path, { method: "POST", body, headers });
  const kycPost = (who: { merchantId: string; kyc: Record<string, string> }, path: string, body: Record<string, unknown>, requestId?: string) =>
    post(path, { merchantId: who.merchantId, ...body }, { ...who.kyc, ...(requestId ? { "x-request-id": requestId } : {}) });
  const expectError = (r: HttpResult, status: number, code: string) => {
    expect(r.status, JSON.stringify(r.json)).toBe(status);
    expect(r.json.error.code).toBe(code);
  };
  const wallet = (merchantId: string) => db.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId, mode: "live" } } });

  beforeAll(async () => {
    vendor = await startFakeCashfreeVerification({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    env = await startFor(target, {
      LIVE_VERIFICATION_PROVIDER: "cashfree",
      CASHFREE_VERIFICATION_BASE_URL: vendor.url,
      CASHFREE_VERIFICATION_CLIENT_ID: CLIENT_ID,
      CASHFREE_VERIFICATION_CLIENT_SECRET: CLIENT_SECRET,
      UPSTREAM_TIMEOUT_MS: "3000",
    });
    db = createPrismaClient(env.server.databaseUrl);
    for (const [who, name] of [
      [plain, "Consent Per Call"],
      [standing, "Consent Standing"],
    ] as const) {
      const m = await createMerchantViaCli(env.server.env, name);
      const key = await approveLiveViaCli(env.server.env, m.merchantId);
      const credit = ["wallet", "credit", "--merchant", m.merchantId, "--mode", "live", "--amount", "1000", "--reason", "first top-up"];
      expect((await cli(env.server.env, credit)).code).toBe(0);
      who.merchantId = m.merchantId;
      who.bearer = { Authorization: `Bearer ${key.secretKey}` };
      who.kyc = { "x-api-key": key.publicKey, "x-api-secret": key.secretKey };
      if (who === plain) plain.sandbox = { Authorization: `Bearer ${m.sandbox.secretKey}` };
    }
    await attestConsent(env.server.databaseUrl, standing.merchantId, STANDING_PURPOSE);
  }, 90_000);
  afterEach(() => {
    vendor.clear();
    expect(vendor.problems).toEqual([]);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
    await vendor?.close();
  });

  it("refuses every live call without consent or purpose with 422 CONSENT_REQUIRED: no vendor call, no hold, no charge, nothing stored", async () => {
    const aadhaar = freshAadhaar();
    const calls: [string, Record<string, unknown>, "bearer" | "kyc"][] = [
      ["/v1/identity/pan/verify", { pan: "ABCPV1234D", name: "John Doe" }, "bearer"],
      ["/v1/employment/epfo/verify", { uan: "100200300400" }, "bearer"],
      ["/v1/identity/pan/batch", { items: [{ pan: "ABCPV1234D" }, { pan: "ABCPV1235D" }] }, "bearer"],
      ["/v1/employment/epfo/batch", { items: [{ uan: "100200300400" }] }, "bearer"],
      ["/api/kyc/pan/verify", { pan: "ABCPV1234D" }, "kyc"],
      ["/api/kyc/bank/verify", { accountNumber: "026291800001191", ifsc: "YESB0000262" }, "kyc"],
      ["/api/kyc/aadhaar/generate-otp", { aadhaarNumber: aadhaar }, "kyc"],
      ["/api/kyc/aadhaar/verify-otp", { aadhaarNumber: aadhaar, otp: FAKE_OTP }, "kyc"],
    ];
    const before = await wallet(plain.merchantId);
    const vendorCalls = vendor.count();
    for (const [path, body, auth] of calls) {
      const send = (extra: Record<string, unknown>) =>
        auth === "bearer" ? post(path, { ...body, ...extra }, plain.bearer) : kycPost(plain, path, { ...body, ...extra });
      // Neither field.
      const none = await send({});
      expectError(none, 422, "CONSENT_REQUIRED");
      expect(none.json.error.message, path).toMatch(/consent/);
      expect(none.json.error.message, path).toMatch(/purpose/);
      // Consent without a purpose names only the purpose; a purpose without consent, only the consent.
      const noPurpose = await send({ consent: true });
      expectError(noPurpose, 422, "CONSENT_REQUIRED");
      expect(noPurpose.json.error.message).toMatch(/missing: purpose/);
      const noConsent = await send({ purpose: PURPOSE });
      expectError(noConsent, 422, "CONSENT_REQUIRED");
      expect(noConsent.json.error.message).toMatch(/missing: consent/);
      // consent: false is a refusal, not an absence.
      expectError(await send({ consent: false, purpose: PURPOSE }), 422, "CONSENT_REQUIRED");
    }
    expect(vendor.count()).toBe(vendorCalls);
    const after = await wallet(plain.merchantId);
    expect([after.balancePaise, after.availablePaise]).toEqual([before.balancePaise, before.availablePaise]);
    expect(await db.walletHold.count({ where: { merchantId: plain.merchantId } })).toBe(0);
    expect(await db.ledgerEntry.count({ where: { merchantId: plain.merchantId, mode: "live", amountPaise: { lt: 0 } } })).toBe(0);
    expect(await db.batch.count({ where: { merchantId: plain.merchantId } })).toBe(0);
    expect(await db.verification.count({ where: { merchantId: plain.merchantId } })).toBe(0);
    expect(await db.kycOtpRequest.count({ where: { merchantId: plain.merchantId } })).toBe(0);
  });

  it("stores the request's consent and purpose with the verification, the KYC transaction and the batch (source request)", async () => {
    const fields = { consent: true, purpose: `  ${PURPOSE}  ` };
    const pan = await post(
      "/v1/identity/pan/verify",
      { pan: "ABCPV1234D", name: "John Doe", ...fields },
      { ...plain.bearer, "x-request-id": `req_cons_pan_${target}` },
    );
    expect(pan.status, JSON.stringify(pan.json)).toBe(200);
    // The answer is the same as without consent: nothing of it shows there.
    expect(Object.keys(pan.json.data)).not.toContain("consent");
    expect(await db.verification.findFirstOrThrow({ where: { requestId: `req_cons_pan_${target}` } })).toMatchObject({
      kind: "PAN",
      consent: true,
      purpose: PURPOSE,
      consentSource: "request",
    });
    const epfo = await post("/v1/employment/epfo/verify", { uan: "100200300400", ...fields }, { ...plain.bearer, "x-request-id": `req_cons_epfo_${target}` });
    expect(epfo.status, JSON.stringify(epfo.json)).toBe(200);
    expect(await db.verification.findFirstOrThrow({ where: { requestId: `req_cons_epfo_${target}` } })).toMatchObject({
      kind: "EPFO",
      consent: true,
      purpose: PURPOSE,
      consentSource: "request",
    });

    const before = await wallet(plain.merchantId);
    const panKyc = await kycPost(plain, "/api/kyc/pan/verify", { pan: "ABCPV1234D", ...fields });
    expect(panKyc.status, JSON.stringify(panKyc.json)).toBe(200);
    expect(await db.kycTransaction.findUniqueOrThrow({ where: { id: panKyc.json.data.kycTransactionId } })).toMatchObject({
      kind: "PAN",
      consent: true,
      purpose: PURPOSE,
      consentSource: "request",
    });
    expect((await wallet(plain.merchantId)).balancePaise).toBe(before.balancePaise - 100);
    const bank = await kycPost(plain, "/api/kyc/bank/verify", { accountNumber: "026291800001191", ifsc: "YESB0000262", ...fields });
    expect(bank.status, JSON.stringify(bank.json)).toBe(200);
    expect(await db.kycTransaction.findUniqueOrThrow({ where: { id: bank.json.data.kycTransactionId } })).toMatchObject({
      kind: "BANK",
      consent: true,
      purpose: PURPOSE,
      consentSource: "request",
    });
    const aadhaar = freshAadhaar();
    const sent = await kycPost(plain, "/api/kyc/aadhaar/generate-otp", { aadhaarNumber: aadhaar, ...fields });
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    const ok = await kycPost(plain, "/api/kyc/aadhaar/verify-otp", { aadhaarNumber: aadhaar, otp: FAKE_OTP, requestId: sent.json.data.requestId, ...fields });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(await db.kycTransaction.findUniqueOrThrow({ where: { id: ok.json.data.kycTransactionId } })).toMatchObject({
      kind: "AADHAAR_OTP",
      // Verified by the vendor that sent the OTP (C6), kept for operators.
      vendor: "cashfree",
      consent: true,
      purpose: PURPOSE,
      consentSource: "request",
    });

    const batch = await post("/v1/identity/pan/batch", { items: [{ pan: "ABCPV1234D" }], ...fields }, plain.bearer);
    expect(batch.status, JSON.stringify(batch.json)).toBe(202);
    expect(await db.batch.findUniqueOrThrow({ where: { id: batch.json.data.batch_id } })).toMatchObject({
      consent: true,
      purpose: PURPOSE,
      consentSource: "request",
    });

    // Kept with the summary when the full result's retention ends (it lives as long as the audit record).
    await purgeKycData(db, new Date(Date.now() + 400 * 86_400_000));
    expect(await db.kycTransaction.findUniqueOrThrow({ where: { id: ok.json.data.kycTransactionId } })).toMatchObject({
      resultEnc: null,
      consent: true,
      purpose: PURPOSE,
      consentSource: "request",
    });
  });

  it("uses the merchant's standing attestation and default purpose (source standing); a request's own fields win", async () => {
    const id = (s: string) => `req_cons_${s}_${target}`;
    expect((await post("/v1/identity/pan/verify", { pan: "ABCPV1234D" }, { ...standing.bearer, "x-request-id": id("std") })).status).toBe(200);
    expect(await db.verification.findFirstOrThrow({ where: { requestId: id("std") } })).toMatchObject({
      consent: true,
      purpose: STANDING_PURPOSE,
      consentSource: "standing",
    });
    const kyc = await kycPost(standing, "/api/kyc/bank/verify", { accountNumber: "026291800001191", ifsc: "YESB0000262" });
    expect(kyc.status, JSON.stringify(kyc.json)).toBe(200);
    expect(await db.kycTransaction.findUniqueOrThrow({ where: { id: kyc.json.data.kycTransactionId } })).toMatchObject({
      consent: true,
      purpose: STANDING_PURPOSE,
      consentSource: "standing",
    });
    const batch = await post("/v1/employment/epfo/batch", { items: [{ uan: "100200300400" }] }, standing.bearer);
    expect(batch.status, JSON.stringify(batch.json)).toBe(202);
    expect(await db.batch.findUniqueOrThrow({ where: { id: batch.json.data.batch_id } })).toMatchObject({
      consent: true,
      purpose: STANDING_PURPOSE,
      consentSource: "standing",
    });

    // The request's purpose wins over the default; its consent over the standing attestation.
    const own = await post(
      "/v1/identity/pan/verify",
      { pan: "ABCPV1234D", consent: true, purpose: PURPOSE },
      { ...standing.bearer, "x-request-id": id("own") },
    );
    expect(own.status).toBe(200);
    expect(await db.verification.findFirstOrThrow({ where: { requestId: id("own") } })).toMatchObject({
      consent: true,
      purpose: PURPOSE,
      consentSource: "request",
    });
    const purposeOnly = await post("/v1/identity/pan/verify", { pan: "ABCPV1234D", purpose: PURPOSE }, { ...standing.bearer, "x-request-id": id("pur") });
    expect(purposeOnly.status).toBe(200);
    expect(await db.verification.findFirstOrThrow({ where: { requestId: id("pur") } })).toMatchObject({
      consent: true,
      purpose: PURPOSE,
      consentSource: "standing",
    });
    const calls = vendor.count();
    expectError(await post("/v1/identity/pan/verify", { pan: "ABCPV1234D", consent: false }, standing.bearer), 422, "CONSENT_REQUIRED");
    expect(vendor.count()).toBe(calls);
  });

  it("takes a purpose of 20 to 200 characters: 19 or 201 is 400 VALIDATION_ERROR, live and sandbox, before anything else", async () => {
    const calls = vendor.count();
    for (const purpose of ["x".repeat(19), "x".repeat(201)]) {
      for (const auth of [plain.bearer, plain.sandbox]) {
        const r = await post("/v1/identity/pan/verify", { pan: "ABCPV1234D", consent: true, purpose }, auth);
        expectError(r, 400, "VALIDATION_ERROR");
        expect(r.json.error.details).toEqual([{ field: "purpose", message: expect.stringMatching(/20|200/) }]);
      }
      expectError(await kycPost(plain, "/api/kyc/pan/verify", { pan: "ABCPV1234D", consent: true, purpose }), 400, "VALIDATION_ERROR");
      expectError(await post("/v1/identity/pan/batch", { items: [{ pan: "ABCPV1234D" }], consent: true, purpose }, plain.bearer), 400, "VALIDATION_ERROR");
    }
    expectError(await post("/v1/identity/pan/verify", { pan: "ABCPV1234D", consent: "yes", purpose: PURPOSE }, plain.bearer), 400, "VALIDATION_ERROR");
    expect(vendor.count()).toBe(calls);
    for (const purpose of ["x".repeat(20), "x".repeat(200)]) {
      expect((await post("/v1/identity/pan/verify", { pan: "ABCPV1234D", consent: true, purpose }, plain.bearer)).status).toBe(200);
    }
  });

  it("needs nothing in sandbox: a check without consent answers 200 and stores none", async () => {
    const r = await post("/v1/identity/pan/verify", { pan: "ABCPK1234F" }, { ...plain.sandbox, "x-request-id": `req_cons_sbx_${target}` });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(await db.verification.findFirstOrThrow({ where: { requestId: `req_cons_sbx_${target}` } })).toMatchObject({
      mode: "sandbox",
      consent: null,
      purpose: null,
      consentSource: null,
    });
    const batch = await post("/v1/identity/pan/batch", { items: [{ pan: "ABCPK1234F" }] }, plain.sandbox);
    expect(batch.status, JSON.stringify(batch.json)).toBe(202);
  });
});
