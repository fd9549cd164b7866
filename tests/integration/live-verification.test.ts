import crypto from "node:crypto";
import fs from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FAKE_OTP, startFakeCashfreeVerification, type FakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { request, type HttpResult } from "../helpers/http";
import { approveLiveViaCli, cli, createMerchantViaCli, serverKeys, startServer, attestConsent } from "../helpers/server";
import { waitFor } from "../helpers/wait";
import { verhoeffDigit } from "@/lib/verhoeff";
import { createPrismaClient, type Db } from "@/server/db/client";
import { decrypt } from "@/server/lib/crypto";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { everyStoredText } from "../helpers/database-text";

// Live PAN and EPFO checks over HTTP, against a loopback fake of the vendor that validates every
// request and answer against the vendor's published schemas. A merchant approved for go-live calls
// with a live key; the server is configured exactly as an operator would configure it.
const CLIENT_ID = "CF_TEST_CLIENT_7731";
const CLIENT_SECRET = "cfsk_ma_test_0d4c8e1f9a7b6c5d4e3f2a1b";
const TIMEOUT_MS = 1_500;
const CONCURRENCY = 4;

/** A valid Aadhaar number no other test uses (the per-number OTP limits span merchants). */
function freshAadhaar(): string {
  const first11 = `${2 + crypto.randomInt(8)}${String(crypto.randomInt(1e10)).padStart(10, "0")}`;
  return first11 + verhoeffDigit(first11);
}

describe.each(DB_TARGETS)("live verification through the vendor on %s", (target) => {
  let vendor: FakeCashfreeVerification;
  let env: Started;
  let liveAuth: Record<string, string>;
  let sandboxAuth: Record<string, string>;
  let kycHeaders: Record<string, string>;
  let merchantId: string;
  let db: Db;
  const post = (path: string, body: unknown, auth = liveAuth) => request(env.server.url, path, { method: "POST", body, headers: auth });
  const timed = async (call: Promise<HttpResult>) => {
    const started = performance.now();
    const r = await call;
    return { r, ms: performance.now() - started };
  };
  const expectError = (r: HttpResult, status: number, code: string) => {
    expect(r.status, JSON.stringify(r.json)).toBe(status);
    expect(r.json.error.code).toBe(code);
  };

  beforeAll(async () => {
    vendor = await startFakeCashfreeVerification({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    env = await startFor(target, {
      LIVE_VERIFICATION_PROVIDER: "cashfree",
      CASHFREE_VERIFICATION_BASE_URL: vendor.url,
      CASHFREE_VERIFICATION_CLIENT_ID: CLIENT_ID,
      CASHFREE_VERIFICATION_CLIENT_SECRET: CLIENT_SECRET,
      UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
      UPSTREAM_MAX_CONCURRENCY: String(CONCURRENCY),
      BATCH_RETRY_BUDGET_MS: "2000",
    });
    const m = await createMerchantViaCli(env.server.env, "Live Verifier");
    const key = await approveLiveViaCli(env.server.env, m.merchantId);
    await attestConsent(env.server.databaseUrl, m.merchantId);
    liveAuth = { Authorization: `Bearer ${key.secretKey}` };
    sandboxAuth = { Authorization: `Bearer ${m.sandbox.secretKey}` };
    kycHeaders = { "x-api-key": key.publicKey, "x-api-secret": key.secretKey };
    merchantId = m.merchantId;
    const credit = ["wallet", "credit", "--merchant", m.merchantId, "--mode", "live", "--amount", "1000", "--reason", "first top-up"];
    expect((await cli(env.server.env, credit)).code).toBe(0);
    db = createPrismaClient(env.server.databaseUrl);
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

  describe("PAN", () => {
    it("answers the vendor's record in Parakh's shape, scoring the name itself", async () => {
      vendor.panRecords.set("ABCPV1234D", { name: "JOHN RONALD DOE", dob: "1985-02-11" });
      const before = vendor.count("/pan");
      const requestId = `req_live_pan_${target}`;
      const r = await post("/v1/identity/pan/verify", { pan: "abcpv1234d", name: "John Doe" }, { ...liveAuth, "x-request-id": requestId });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.data).toEqual({
        pan: "ABCPV1234D",
        name: "JOHN RONALD DOE",
        status: "VALID",
        category: "INDIVIDUAL",
        name_match: r.json.data.name_match,
        aadhaar_linked: true,
        aadhaar_seeding_status: "LINKED",
        name_match_result: r.json.data.name_match_result,
        remarks: null,
      });
      // Parakh's own score, not the vendor's "100.00" for this name.
      expect(r.json.data.name_match).toBeGreaterThan(0);
      expect(r.json.data.name_match).toBeLessThan(100);
      expect(vendor.count("/pan")).toBe(before + 1);
      const sent = vendor.requests.at(-1)!;
      expect(sent.body).toEqual({ pan: "ABCPV1234D", name: "John Doe" });
      expect(sent.headers["x-client-id"]).toBe(CLIENT_ID);
      expect(JSON.stringify(r.json)).not.toMatch(/reference_id|21\d{6}/);
      // The vendor's own "100.00" is kept on the record for operators, and never reaches the merchant.
      expect(Object.keys(r.json)).toEqual(["status", "data", "timestamp"]);
      expect(r.text).not.toMatch(/source/i);
      const row = await db.verification.findFirstOrThrow({ where: { requestId } });
      expect(row).toMatchObject({ kind: "PAN", subject: "ABCPV1234D", nameMatch: r.json.data.name_match, sourceNameMatch: 100 });
    });

    it("keeps no vendor score on a sandbox record", async () => {
      const requestId = `req_sandbox_pan_${target}`;
      const r = await post("/v1/identity/pan/verify", { pan: "ABCPK1234F", name: "Arjun Kapoor" }, { ...sandboxAuth, "x-request-id": requestId });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const row = await db.verification.findFirstOrThrow({ where: { requestId } });
      expect(row).toMatchObject({ mode: "sandbox", nameMatch: r.json.data.name_match, sourceNameMatch: null });
    });

    it.each([
      ["INVALID", { status: "INVALID", name: null, aadhaar_seeding_status: "NOT_APPLICABLE", aadhaar_linked: false }],
      ["DEACTIVATED", { status: "DEACTIVATED", name: "ASHA DEVI" }],
      ["DELETED", { status: "DELETED", name: "ASHA DEVI" }],
    ])("maps the vendor's %s status", async (status, expected) => {
      vendor.panRecords.set("BBBPD5678K", { name: "ASHA DEVI", dob: "1970-01-01", status });
      const r = await post("/v1/identity/pan/verify", { pan: "BBBPD5678K" });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.data).toMatchObject(expected);
    });

    it("scores a company's name with its legal form read either way (Ltd is Limited)", async () => {
      vendor.panRecords.set("AAACR5055K", { name: "RELIANCE RETAIL LIMITED", dob: "1999-01-01", seeding: "NA" });
      const r = await post("/v1/identity/pan/verify", { pan: "AAACR5055K", name: "Reliance Retail Ltd" });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.data).toMatchObject({ category: "COMPANY", name_match: 100, name_match_result: "MATCH" });
      const other = await post("/v1/identity/pan/verify", { pan: "AAACR5055K", name: "Reliance Industries Ltd" });
      expect(other.json.data.name_match_result).toBe("NO_MATCH");
    });

    it("gives a company's PAN NOT_APPLICABLE seeding, and an individual's unseeded PAN NOT_LINKED", async () => {
      vendor.panRecords.set("AAACR5055K", { name: "RELIANCE RETAIL LIMITED", dob: "1999-01-01", seeding: "NA" });
      vendor.panRecords.set("CCCPR9999Q", { name: "RAVI RAO", dob: "1990-01-01", seeding: "N" });
      expect((await post("/v1/identity/pan/verify", { pan: "AAACR5055K" })).json.data).toMatchObject({
        category: "COMPANY",
        aadhaar_seeding_status: "NOT_APPLICABLE",
      });
      expect((await post("/v1/identity/pan/verify", { pan: "CCCPR9999Q" })).json.data).toMatchObject({
        category: "INDIVIDUAL",
        aadhaar_seeding_status: "NOT_LINKED",
        aadhaar_linked: false,
      });
    });

    it("answers the vendor's rate limit with 503 SOURCE_UNAVAILABLE and the vendor's Retry-After, after retrying", async () => {
      vendor.fail("pan", "429", { retryAfter: "7" });
      const before = vendor.count("/pan");
      const r = await post("/v1/identity/pan/verify", { pan: "ABCPV1234D" });
      expectError(r, 503, "SOURCE_UNAVAILABLE");
      expect(r.headers["retry-after"]).toBe("7");
      // The first try and two retries: a 429 provably did not take effect.
      expect(vendor.count("/pan") - before).toBe(3);
    });

    it("never answers the merchant 401 for Parakh's own credentials at the vendor", async () => {
      vendor.fail("pan", "401");
      const r = await post("/v1/identity/pan/verify", { pan: "ABCPV1234D" });
      expectError(r, 503, "SOURCE_UNAVAILABLE");
      expect(env.server.logs()).toMatch(/"level":"error"[^\n]*(credentials|misconfigured|401)/i);
    });

    it("keeps sandbox calls answering from fixtures while the vendor is down", async () => {
      vendor.fail("pan", "reset");
      const before = vendor.count();
      const r = await post("/v1/identity/pan/verify", { pan: "ABCPK1234F" }, sandboxAuth);
      expect(r.status).toBe(200);
      expect(r.json.data.status).toBe("VALID");
      expect(vendor.count()).toBe(before);
    });
  });

  describe("EPFO", () => {
    it("answers a member by UAN with the latest employment and history newest first", async () => {
      const r = await post("/v1/employment/epfo/verify", { uan: "100200300400" });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const d = r.json.data;
      expect(d).toMatchObject({ uan: "100200300400", member_name: "RAHUL KUMAR SHARMA", member_status: "ACTIVE", date_of_exit: null });
      expect(d.pf_number).toBe("MH/BAN/0006423/000/0054321");
      expect(d.employer).toBe("Cashfree India Private Ltd");
      expect(d.employment_history.map((e: { pf_number: string }) => e.pf_number)).toEqual(["MH/BAN/0006423/000/0054321", "KN/BNG/0012345/000/0012345"]);
      expect(vendor.requests.at(-1)!.body).toMatchObject({ uan: "100200300400" });
    });

    it("answers a UAN the vendor does not know with 404 UAN_NOT_FOUND", async () => {
      vendor.fail("epfo", "not-on-record", { times: 1 });
      expectError(await post("/v1/employment/epfo/verify", { uan: "100200300401" }), 404, "UAN_NOT_FOUND");
    });

    it("refuses a lookup by PF number with 422 LOOKUP_NOT_SUPPORTED, without calling the vendor", async () => {
      const before = vendor.count();
      expectError(await post("/v1/employment/epfo/verify", { pf_number: "MH/BAN/0000064/000/0000123" }), 422, "LOOKUP_NOT_SUPPORTED");
      expect(vendor.count()).toBe(before);
    });

    it.each([
      ["hang", 504, "SOURCE_TIMEOUT"],
      ["trickle", 504, "SOURCE_TIMEOUT"],
      ["huge-body", 502, "UPSTREAM_ERROR"],
      ["malformed-json", 502, "UPSTREAM_ERROR"],
    ] as const)("answers a vendor that %s with %i %s within the deadline", async (fault, status, code) => {
      vendor.fail("epfo", fault);
      const { r, ms } = await timed(post("/v1/employment/epfo/verify", { uan: "100200300400" }));
      expectError(r, status, code);
      expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
      // A success in between keeps the breaker closed for the next fault.
      vendor.clear();
      expect((await post("/v1/employment/epfo/verify", { uan: "100200300400" })).status).toBe(200);
    });

    it("refuses calls past the bulkhead at once with 503, never queueing them", async () => {
      vendor.fail("epfo", "hang");
      const sentBefore = vendor.count("/advance-employment");
      const held = Array.from({ length: CONCURRENCY }, () => post("/v1/employment/epfo/verify", { uan: "100200300400" }));
      // Every held call is at the vendor, so each holds a slot.
      await waitFor("the held calls at the vendor", () => vendor.count("/advance-employment") - sentBefore === CONCURRENCY, 5_000, 10);
      const { r, ms } = await timed(post("/v1/employment/epfo/verify", { uan: "100200300400" }));
      expectError(r, 503, "SOURCE_UNAVAILABLE");
      expect(r.headers["retry-after"]).toBeDefined();
      expect(ms).toBeLessThan(300);
      for (const h of await Promise.all(held)) expectError(h, 504, "SOURCE_TIMEOUT");
    });
  });

  describe("KYC, charged from the live wallet", () => {
    const kyc = (path: string, body: Record<string, unknown>) =>
      request(env.server.url, path, { method: "POST", body: { merchantId, ...body }, headers: kycHeaders });
    const liveWallet = () => db.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId, mode: "live" } } });
    async function ledgerMatchesBalance() {
      const w = await liveWallet();
      const rows = await db.ledgerEntry.findMany({ where: { merchantId, mode: "live" }, select: { amountPaise: true } });
      expect(rows.reduce((sum, r) => sum + r.amountPaise, 0)).toBe(w.balancePaise);
      expect(await db.walletHold.count({ where: { merchantId, state: "HELD" } })).toBe(0);
      return w.balancePaise;
    }

    it("checks a PAN's date of birth through the vendor with the registered name, charging once", async () => {
      vendor.panRecords.set("DDDPK4321M", { name: "KAVYA KRISHNAN", dob: "1992-07-19" });
      const before = await ledgerMatchesBalance();
      const right = await kyc("/api/kyc/pan/verify", { pan: "DDDPK4321M", name: "Kavya Krishnan", dob: "1992-07-19" });
      expect(right.status, JSON.stringify(right.json)).toBe(200);
      expect(right.json.data).toMatchObject({ status: "VALID", registeredName: "KAVYA KRISHNAN", dobMatch: true, nameMatch: { score: 100, result: "MATCH" } });
      expect(vendor.requests.at(-1)).toMatchObject({ path: "/pan-lite", body: { pan: "DDDPK4321M", name: "KAVYA KRISHNAN", dob: "1992-07-19" } });
      const wrong = await kyc("/api/kyc/pan/verify", { pan: "DDDPK4321M", dob: "1992-07-20" });
      expect(wrong.json.data.dobMatch).toBe(false);
      expect(await ledgerMatchesBalance()).toBe(before - 200);
    });

    it("never charges a KYC call the vendor failed, and releases its hold", async () => {
      const before = await ledgerMatchesBalance();
      const charges = await db.kycTransaction.count({ where: { merchantId, mode: "live" } });
      vendor.fail("pan", "500", { times: 1 });
      expectError(await kyc("/api/kyc/pan/verify", { pan: "DDDPK4321M" }), 503, "SOURCE_UNAVAILABLE");
      vendor.fail("bank", "hang");
      expectError(await kyc("/api/kyc/bank/verify", { accountNumber: "026291800001191", ifsc: "YESB0000262" }), 504, "SOURCE_TIMEOUT");
      vendor.clear();
      expect(await ledgerMatchesBalance()).toBe(before);
      expect(await db.kycTransaction.count({ where: { merchantId, mode: "live" } })).toBe(charges);
    });

    it("verifies an Aadhaar holder by OTP through the vendor; the vendor's reference stays with Parakh", async () => {
      const aadhaar = freshAadhaar();
      const before = await ledgerMatchesBalance();
      const sent = await kyc("/api/kyc/aadhaar/generate-otp", { aadhaarNumber: aadhaar });
      expect(sent.status, JSON.stringify(sent.json)).toBe(200);
      expect(sent.json.data.message).toBe("OTP sent to the mobile number linked with this Aadhaar number.");
      expect(vendor.requests.at(-1)).toMatchObject({ path: "/offline-aadhaar/otp", body: { aadhaar_number: aadhaar } });
      const stored = await db.kycOtpRequest.findUniqueOrThrow({ where: { id: sent.json.data.requestId } });
      expect(JSON.stringify(sent.json)).not.toContain(stored.sourceReference);

      const ok = await kyc("/api/kyc/aadhaar/verify-otp", { aadhaarNumber: aadhaar, otp: FAKE_OTP, requestId: sent.json.data.requestId });
      expect(ok.status, JSON.stringify(ok.json)).toBe(200);
      expect(ok.json.data).toMatchObject({ name: "RAHUL KUMAR SHARMA", dob: "1994-03-15", gender: "M" });
      expect(JSON.stringify(ok.json)).not.toContain(stored.sourceReference);
      expect(JSON.stringify(ok.json)).not.toMatch(/xml|share_code|shareCode/i);
      expect(vendor.requests.at(-1)).toMatchObject({ path: "/offline-aadhaar/verify", body: { otp: FAKE_OTP, ref_id: stored.sourceReference } });
      // Nor is it kept: not in the stored KYC result (encrypted, so the output schema never strips it), nor anywhere else.
      const txn = await db.kycTransaction.findUniqueOrThrow({ where: { id: ok.json.data.kycTransactionId } });
      const kept = JSON.parse(decrypt(txn.resultEnc!, serverKeys(env.server).encryptionKey)) as Record<string, unknown>;
      expect(kept.name).toBe("RAHUL KUMAR SHARMA");
      expect(JSON.stringify(Object.keys(kept))).not.toMatch(/xml|share/i);
      expect(await everyStoredText(db, target)).not.toContain("offline-aadhaar.xml");
      expect(await ledgerMatchesBalance()).toBe(before - 300);
    });

    it("locks the request at the third wrong OTP: the right one then never reaches the vendor, and nothing is charged", async () => {
      const aadhaar = freshAadhaar();
      const before = await ledgerMatchesBalance();
      const sent = await kyc("/api/kyc/aadhaar/generate-otp", { aadhaarNumber: aadhaar });
      expect(sent.status).toBe(200);
      const requestId = sent.json.data.requestId;
      const wrong = () => kyc("/api/kyc/aadhaar/verify-otp", { aadhaarNumber: aadhaar, otp: "111111", requestId });
      expectError(await wrong(), 422, "INVALID_OTP");
      expectError(await wrong(), 422, "INVALID_OTP");
      expectError(await wrong(), 429, "OTP_ATTEMPTS_EXCEEDED");
      const calls = vendor.count("/offline-aadhaar/verify");
      expect(calls).toBeGreaterThanOrEqual(3);
      expectError(await kyc("/api/kyc/aadhaar/verify-otp", { aadhaarNumber: aadhaar, otp: FAKE_OTP, requestId }), 429, "OTP_ATTEMPTS_EXCEEDED");
      expect(vendor.count("/offline-aadhaar/verify")).toBe(calls);
      expect(await ledgerMatchesBalance()).toBe(before);
    });

    it("answers an Aadhaar without a linked mobile with 422 AADHAAR_MOBILE_NOT_LINKED, uncharged", async () => {
      const aadhaar = freshAadhaar();
      vendor.aadhaarWithoutMobile.add(aadhaar);
      const before = await ledgerMatchesBalance();
      expectError(await kyc("/api/kyc/aadhaar/generate-otp", { aadhaarNumber: aadhaar }), 422, "AADHAAR_MOBILE_NOT_LINKED");
      expect(await ledgerMatchesBalance()).toBe(before);
    });

    it("verifies a bank account through the vendor, scoring the name itself", async () => {
      const before = await ledgerMatchesBalance();
      const r = await kyc("/api/kyc/bank/verify", { accountNumber: "026291800001191", ifsc: "yesb0000262", name: "Rahul Sharma" });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.data).toMatchObject({ accountExists: true, accountStatus: "VALID", nameAtBank: "RAHUL KUMAR SHARMA" });
      expect(vendor.requests.at(-1)!.body).toMatchObject({ bank_account: "026291800001191", ifsc: "YESB0000262" });
      vendor.fail("bank", "not-on-record", { times: 1 });
      const missing = await kyc("/api/kyc/bank/verify", { accountNumber: "026291800009999", ifsc: "YESB0000262" });
      expect(missing.status).toBe(200);
      expect(missing.json.data).toMatchObject({ accountExists: false, accountStatus: "INVALID", nameAtBank: null });
      expect(await ledgerMatchesBalance()).toBe(before - 400);
    });

    it("reads a business's legal form in a bank account's name (PVT LTD is Private Limited), a person's name as before", async () => {
      vendor.bankNames.set("026291800004444", "KOHLI ENGINEERING PVT LTD");
      const r = await kyc("/api/kyc/bank/verify", { accountNumber: "026291800004444", ifsc: "YESB0000262", name: "Kohli Engineering Private Limited" });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.data).toMatchObject({ nameAtBank: "KOHLI ENGINEERING PVT LTD", nameMatch: { score: 100, result: "MATCH" } });
      const other = await kyc("/api/kyc/bank/verify", { accountNumber: "026291800004444", ifsc: "YESB0000262", name: "Zoya Engineering Private Limited" });
      expect(other.json.data.nameMatch.result).toBe("NO_MATCH");
      // A person's account: an initial for KUMAR, (1 + 0.6 + 1) × 2 / 6 as for any PAN holder.
      const person = await kyc("/api/kyc/bank/verify", { accountNumber: "026291800001191", ifsc: "YESB0000262", name: "Rahul K Sharma" });
      expect(person.json.data.nameMatch).toEqual({ score: 86.67, result: "PARTIAL" });
    });

    it("opens the bank breaker after 5 failures: the next call fails at once, reaches no vendor and is not charged", async () => {
      // A success first: the failures before it no longer count.
      expect((await kyc("/api/kyc/bank/verify", { accountNumber: "026291800001191", ifsc: "YESB0000262" })).status).toBe(200);
      const before = await ledgerMatchesBalance();
      vendor.fail("bank", "500");
      const sentBefore = vendor.count("/bank-account/sync");
      for (let i = 0; i < 5; i++)
        expectError(await kyc("/api/kyc/bank/verify", { accountNumber: "026291800001191", ifsc: "YESB0000262" }), 503, "SOURCE_UNAVAILABLE");
      // A 500 on a POST may have been processed: never retried, so 5 calls were 5 requests.
      expect(vendor.count("/bank-account/sync") - sentBefore).toBe(5);
      const { r, ms } = await timed(kyc("/api/kyc/bank/verify", { accountNumber: "026291800001191", ifsc: "YESB0000262" }));
      expectError(r, 503, "SOURCE_UNAVAILABLE");
      expect(Number(r.headers["retry-after"])).toBeGreaterThan(0);
      expect(ms).toBeLessThan(300);
      expect(vendor.count("/bank-account/sync") - sentBefore).toBe(5);
      expect(await ledgerMatchesBalance()).toBe(before);
    });
  });

  describe("batches", () => {
    const pans = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(4, "0")}K`);
    const get = (path: string) => request(env.server.url, path, { headers: liveAuth });
    async function finished(batchId: string) {
      return waitFor(
        `batch ${batchId} to complete`,
        async () => {
          const r = await get(`/v1/identity/pan/batch/${batchId}`);
          return r.json.data.status === "COMPLETED" ? r.json.data : null;
        },
        60_000,
        100,
      );
    }
    async function results(batchId: string) {
      const items: { index: number; result: { pan: string } | null; error: { code: string } | null }[] = [];
      let cursor: string | null = null;
      do {
        const r = await get(`/v1/identity/pan/batch/${batchId}/results?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        expect(r.status).toBe(200);
        items.push(...r.json.data.items);
        cursor = r.json.data.next_cursor;
      } while (cursor);
      return items;
    }

    it("runs a 1,000-PAN live batch through the vendor's bulk verification, every item once", async () => {
      const items = pans("ABCPB", 1000);
      const before = vendor.requests.length;
      const r = await post("/v1/identity/pan/batch", { items: items.map((pan) => ({ pan })) });
      expect(r.status, JSON.stringify(r.json)).toBe(202);
      const done = await finished(r.json.data.batch_id);
      const got = await results(r.json.data.batch_id);
      expect(done).toMatchObject({ total: 1000, processed: 1000, succeeded: 1000, failed: 0 });
      expect(got.map((i) => i.result?.pan)).toEqual(items);
      // Each PAN reached the vendor once, in one bulk request.
      const bulk = vendor.requests.slice(before).filter((q) => q.method === "POST" && q.path === "/pan/bulk");
      expect(bulk).toHaveLength(1);
      const sent = [
        ...bulk.flatMap((q) => (q.body.entries as { pan: string }[]).map((e) => e.pan)),
        ...vendor.requests
          .slice(before)
          .filter((q) => q.path === "/pan")
          .map((q) => q.body.pan as string),
      ];
      expect(sent.length).toBe(1000);
      expect(new Set(sent).size).toBe(1000);
    });

    it("keeps the vendor's score on a batch item's record, never in its result", async () => {
      const r = await post("/v1/identity/pan/batch", { items: [{ pan: "ABCPS0001K", name: "Rahul Sharma" }, { pan: "ABCPS0002K" }] });
      expect(r.status, JSON.stringify(r.json)).toBe(202);
      const batchId = r.json.data.batch_id;
      await finished(batchId);
      const page = await get(`/v1/identity/pan/batch/${batchId}/results`);
      expect(page.status).toBe(200);
      expect(page.text).not.toMatch(/source/i);
      const rows = await db.verification.findMany({ where: { batchId }, orderBy: { subject: "asc" } });
      expect(rows.map((v) => [v.subject, v.sourceNameMatch])).toEqual([
        ["ABCPS0001K", 100],
        ["ABCPS0002K", null],
      ]);
      // Parakh's own score is the one the merchant sees.
      expect(rows[0]!.nameMatch).toBe(page.json.data.items[0].result.name_match);
    });

    // Last of the PAN calls: the outage leaves the PAN breaker open.
    it("ends the items a vendor outage catches with SOURCE_UNAVAILABLE after the retry budget, losing none", async () => {
      const items = pans("ABCPC", 1000);
      // The bulk answer fails every entry, so every item runs as a single call, under the bulkhead.
      for (const pan of items) vendor.bulkFailed.add(pan);
      const before = vendor.count("/pan");
      const r = await post("/v1/identity/pan/batch", { items: items.map((pan) => ({ pan })) });
      expect(r.status).toBe(202);
      // The outage begins once the vendor has answered 200 of them.
      await waitFor("the batch to be under way", async () => (vendor.count("/pan") - before >= 200 ? true : null), 30_000, 1);
      vendor.fail("pan", "503");
      const done = await finished(r.json.data.batch_id);
      const got = await results(r.json.data.batch_id);
      expect(got.map((i) => i.index)).toEqual(items.map((_, i) => i));
      const failed = got.filter((i) => i.error !== null);
      expect(failed.length).toBeGreaterThan(0);
      for (const i of failed) expect(i.error!.code).toBe("SOURCE_UNAVAILABLE");
      expect(done.succeeded + done.failed).toBe(1000);
      expect(done.failed).toBe(failed.length);
      expect(done.succeeded).toBeGreaterThanOrEqual(200);
      vendor.bulkFailed.clear();
    });
  });

  it("keeps the vendor's client secret, Aadhaar numbers and OTPs out of the log and the database", async () => {
    const aadhaars = vendor.requests.filter((q) => q.path === "/offline-aadhaar/otp").map((q) => String(q.body.aadhaar_number));
    expect(aadhaars.length).toBeGreaterThan(0);
    const secrets = [CLIENT_SECRET, FAKE_OTP, ...aadhaars];
    for (const secret of secrets) expect(env.server.logs()).not.toContain(secret);
    if (target === "sqlite") {
      const file = env.server.databaseUrl.replace(/^file:/, "");
      for (const f of [file, `${file}-wal`]) {
        if (!fs.existsSync(f)) continue;
        const bytes = fs.readFileSync(f);
        for (const secret of secrets) expect(bytes.includes(secret), `${secret} in ${f}`).toBe(false);
      }
    } else {
      const dump = JSON.stringify([
        await db.auditLog.findMany(),
        await db.kycOtpRequest.findMany(),
        await db.kycTransaction.findMany(),
        await db.idempotencyRecord.findMany(),
      ]);
      for (const secret of secrets) expect(dump).not.toContain(secret);
    }
  });
});

describe("live verification settings at start", () => {
  it("refuses to start with the vendor chosen and a credential missing, naming the setting", async () => {
    const start = startServer({ env: { LIVE_VERIFICATION_PROVIDER: "cashfree", CASHFREE_VERIFICATION_CLIENT_ID: CLIENT_ID } });
    await expect(start).rejects.toThrow(/CASHFREE_VERIFICATION_CLIENT_SECRET/);
  });

  it("refuses a vendor address over plain http unless it is loopback", async () => {
    const env = { LIVE_VERIFICATION_PROVIDER: "cashfree", CASHFREE_VERIFICATION_CLIENT_ID: CLIENT_ID, CASHFREE_VERIFICATION_CLIENT_SECRET: CLIENT_SECRET };
    await expect(startServer({ env: { ...env, CASHFREE_VERIFICATION_BASE_URL: "http://api.cashfree.com/verification" } })).rejects.toThrow(
      /CASHFREE_VERIFICATION_BASE_URL/,
    );
  });
});
