import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { withVerhoeffDigit } from "@/lib/aadhaar";
import type { AadhaarProvider } from "@/server/providers/aadhaar/types";
import { request, type HttpResult } from "../helpers/http";
import { cli, createMerchantViaCli, serverKeys, startServer, type MerchantFixture } from "../helpers/server";
import { DB_TARGETS, startFor, type Started } from "../helpers/targets";
import { waitFor } from "../helpers/wait";

const HAPPY = "234567890009";

/** A valid Aadhaar number nobody used before, avoiding the sandbox's outcome digits. */
function freshAadhaar(): string {
  for (;;) {
    const first11 = `${2 + crypto.randomInt(8)}${String(crypto.randomInt(1e10)).padStart(10, "0")}`;
    if (["9991", "9992", "9998"].includes(first11.slice(7, 11))) continue;
    return withVerhoeffDigit(first11);
  }
}

/** A valid number the sandbox answers with the outcome of `serial` (e.g. 9991: no linked mobile), not a documented one. */
function aadhaarWithSerial(serial: string): string {
  return withVerhoeffDigit(`${2 + crypto.randomInt(8)}${String(crypto.randomInt(1e6)).padStart(6, "0")}${serial}`);
}

describe.each(DB_TARGETS)("KYC API on %s", (target) => {
  let env: Started;
  let m: MerchantFixture;
  let db: Db;

  const headers = (who: MerchantFixture = m) => ({ "x-api-key": who.sandbox.publicKey, "x-api-secret": who.sandbox.secretKey });
  const post = (path: string, body: Record<string, unknown>, opts: { who?: MerchantFixture; extra?: Record<string, string> } = {}) =>
    request(env.server.url, path, {
      method: "POST",
      body: { merchantId: (opts.who ?? m).merchantId, ...body },
      headers: { ...headers(opts.who), ...opts.extra },
    });
  const generate = (aadhaarNumber: string, who?: MerchantFixture) => post("/api/kyc/aadhaar/generate-otp", { aadhaarNumber }, { who });
  const verify = (body: Record<string, unknown>, opts: { who?: MerchantFixture; extra?: Record<string, string> } = {}) =>
    post("/api/kyc/aadhaar/verify-otp", body, opts);
  const panKyc = (body: Record<string, unknown>, opts: { who?: MerchantFixture; extra?: Record<string, string> } = {}) =>
    post("/api/kyc/pan/verify", body, opts);
  const bankKyc = (body: Record<string, unknown>, opts: { who?: MerchantFixture } = {}) => post("/api/kyc/bank/verify", body, opts);

  async function wallet(who: MerchantFixture = m, mode = "sandbox") {
    return db.wallet.findUniqueOrThrow({ where: { merchantId_mode: { merchantId: who.merchantId, mode } } });
  }
  async function ledgerSum(who: MerchantFixture = m, mode = "sandbox") {
    const rows = await db.ledgerEntry.findMany({ where: { merchantId: who.merchantId, mode }, select: { amountPaise: true } });
    return rows.reduce((s, r) => s + r.amountPaise, 0);
  }
  /** Sets the sandbox wallet to exactly `paise` through the operator CLI (a ledgered debit or credit). */
  async function setBalance(who: MerchantFixture, paise: number) {
    const w = await wallet(who);
    const diff = paise - w.balancePaise;
    if (diff === 0) return;
    const args = [
      "wallet",
      diff > 0 ? "credit" : "debit",
      "--merchant",
      who.merchantId,
      "--mode",
      "sandbox",
      "--amount",
      (Math.abs(diff) / 100).toFixed(2),
      "--reason",
      "test setup",
    ];
    const r = await cli(env.server.env, args);
    expect(r.code, r.stderr).toBe(0);
  }
  /** Moves a number's OTP requests back in time (the resend and window rules read createdAt). */
  async function age(ms: number) {
    const rows = await db.kycOtpRequest.findMany({ where: { merchantId: m.merchantId } });
    for (const r of rows) await db.kycOtpRequest.update({ where: { id: r.id }, data: { createdAt: new Date(r.createdAt.getTime() - ms) } });
  }
  /** Moves every merchant's OTP requests for the number of `requestId` back in time. */
  async function ageNumber(requestId: string, ms: number) {
    const { aadhaarHash } = await db.kycOtpRequest.findUniqueOrThrow({ where: { id: requestId } });
    const rows = await db.kycOtpRequest.findMany({ where: { aadhaarHash } });
    for (const r of rows) await db.kycOtpRequest.update({ where: { id: r.id }, data: { createdAt: new Date(r.createdAt.getTime() - ms) } });
  }
  /** The server's keys, for calling the services in this process on its database. */
  const secrets = () => serverKeys(env.server);
  async function otpService() {
    process.env.DATA_DIR = env.server.dataDir;
    return import("@/server/services/kyc/aadhaar-otp");
  }
  const retryAfter = (r: HttpResult) => Number(r.headers["retry-after"]);
  const expectError = (r: HttpResult, status: number, code: string) => {
    expect(r.status, r.text).toBe(status);
    expect(r.json).toMatchObject({ success: false, error: { code } });
    expect(r.json.requestId).toMatch(/^req_/);
  };

  beforeAll(async () => {
    env = await startFor(target);
    m = await createMerchantViaCli(env.server.env);
    db = createPrismaClient(env.server.databaseUrl);
  });
  afterAll(async () => {
    await db?.$disconnect();
    await env?.stop();
  });

  describe("Aadhaar OTP", () => {
    it("sends an OTP, then verifies it charged once with the eKYC record", async () => {
      const before = await wallet();
      const g = await generate(HAPPY);
      expect(g.status, g.text).toBe(200);
      expect(g.json).toMatchObject({ success: true, message: expect.stringMatching(/ending \d{4}/) });
      const d = g.json.data;
      expect(Object.keys(d).sort()).toEqual(["expiresAt", "message", "requestId", "resendAvailableAt"]);
      expect(d.requestId).toMatch(/^kyc_req_[A-Za-z0-9]{16}$/);
      expect(new Date(d.expiresAt).getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
      expect(new Date(d.resendAvailableAt).getTime() - Date.now()).toBeLessThanOrEqual(60_000);
      expect(new Date(d.resendAvailableAt).getTime() - Date.now()).toBeGreaterThan(50_000);
      expect(d.message).not.toContain(HAPPY);
      // Generating is never charged.
      expect((await wallet()).balancePaise).toBe(before.balancePaise);

      const v = await verify({ aadhaarNumber: HAPPY, otp: "123456", requestId: d.requestId });
      expect(v.status, v.text).toBe(200);
      expect(v.json.success).toBe(true);
      expect(typeof v.json.message).toBe("string");
      const k = v.json.data;
      expect(Object.keys(k).sort()).toEqual(
        [
          "address",
          "careOf",
          "charge",
          "dob",
          "fullAddress",
          "gender",
          "kycTransactionId",
          "maskedAadhaar",
          "name",
          "photo",
          "requestId",
          "status",
          "verifiedAt",
          "walletBalance",
          "yearOfBirth",
        ].sort(),
      );
      expect(k).toMatchObject({ requestId: d.requestId, status: "VERIFIED", maskedAadhaar: "XXXXXXXX0009", charge: { amount: "3.00", currency: "INR" } });
      expect(Object.keys(k.address).sort()).toEqual(
        ["country", "district", "house", "landmark", "locality", "pincode", "postOffice", "state", "street", "subDistrict", "vtc"].sort(),
      );
      expect(k.dob).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(k.dob.slice(0, 4)).toBe(k.yearOfBirth);
      expect(Buffer.from(k.photo, "base64").subarray(0, 2).toString("hex")).toBe("ffd8");
      expect(k.kycTransactionId).toMatch(/^kyc_txn_/);
      const after = await wallet();
      expect(after.balancePaise).toBe(before.balancePaise - 300);
      expect(after.availablePaise).toBe(after.balancePaise);
      expect(k.walletBalance).toBe((after.balancePaise / 100).toFixed(2));
      expect(await ledgerSum()).toBe(after.balancePaise);

      const txn = await db.kycTransaction.findUniqueOrThrow({ where: { id: k.kycTransactionId } });
      expect(txn).toMatchObject({ kind: "AADHAAR_OTP", outcome: "VERIFIED", subjectMasked: "XXXXXXXX0009", feePaise: 300, otpRequestId: d.requestId });
      const entry = await db.ledgerEntry.findUniqueOrThrow({ where: { id: txn.ledgerEntryId } });
      expect(entry).toMatchObject({ amountPaise: -300, balanceAfterPaise: after.balancePaise, reason: "KYC_AADHAAR", reference: k.kycTransactionId });
      // The OTP is single use.
      expectError(await verify({ aadhaarNumber: HAPPY, otp: "123456", requestId: d.requestId }), 409, "OTP_ALREADY_USED");
      // Without a requestId only an open request counts: none is left.
      expectError(await verify({ aadhaarNumber: HAPPY, otp: "123456" }), 404, "OTP_REQUEST_NOT_FOUND");
      expect((await wallet()).balancePaise).toBe(after.balancePaise);
    });

    it.each([
      ["234567890008", "a wrong check digit"],
      ["134567890009", "a first digit of 1"],
      ["23456789000", "11 digits"],
      ["2345678900090", "13 digits"],
      ["23456789000a", "a letter"],
      [234567890009, "a number instead of a string"],
    ])("refuses %s (%s) with 400 INVALID_AADHAAR", async (aadhaarNumber, _why) => {
      const r = await generate(aadhaarNumber as string);
      expectError(r, 400, "INVALID_AADHAAR");
      expect(r.json.error.field).toBe("aadhaarNumber");
    });

    it("accepts the number grouped with spaces", async () => {
      const n = freshAadhaar();
      const r = await generate(`${n.slice(0, 4)} ${n.slice(4, 8)} ${n.slice(8)}`);
      expect(r.status, r.text).toBe(200);
    });

    it("enforces 60 s between sends and 5 sends per 30 minutes", async () => {
      const n = freshAadhaar();
      expect((await generate(n)).status).toBe(200);
      const soon = await generate(n);
      expectError(soon, 429, "OTP_RESEND_TOO_SOON");
      expect(retryAfter(soon)).toBeGreaterThanOrEqual(55);
      expect(retryAfter(soon)).toBeLessThanOrEqual(60);
      // Half-way through the wait it still holds, and says how much is left.
      await age(30_000);
      const half = await generate(n);
      expectError(half, 429, "OTP_RESEND_TOO_SOON");
      expect(retryAfter(half)).toBeGreaterThanOrEqual(25);
      expect(retryAfter(half)).toBeLessThanOrEqual(30);
      await age(31_000);
      expect((await generate(n)).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        await age(61_000);
        expect((await generate(n)).status).toBe(200);
      }
      await age(61_000);
      const limited = await generate(n);
      expectError(limited, 429, "OTP_GENERATION_LIMIT");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(60);
      // Another merchant's limits are its own.
      const other = await createMerchantViaCli(env.server.env, "Other Store");
      expect((await generate(n, other)).status).toBe(200);
    });

    it("keeps the send limits across two app instances on one database", async () => {
      // Instances of one deployment share their keys (the number's keyed hash must agree).
      const secrets = serverKeys(env.server);
      const second = await startServer({
        databaseUrl: env.server.databaseUrl,
        env: { HASH_KEY: secrets.hashKey, ENCRYPTION_KEY: secrets.encryptionKey, NEXTAUTH_SECRET: secrets.nextAuthSecret },
      });
      try {
        const n = freshAadhaar();
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            request(i % 2 ? second.url : env.server.url, "/api/kyc/aadhaar/generate-otp", {
              method: "POST",
              body: { merchantId: m.merchantId, aadhaarNumber: n },
              headers: headers(),
            }),
          ),
        );
        expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(429)]);
        for (const a of answers.filter((x) => x.status === 429)) expect(a.json.error.code).toBe("OTP_RESEND_TOO_SOON");
        // The one sent can be verified on either instance.
        const { requestId } = answers.find((a) => a.status === 200)!.json.data;
        const ok = await request(second.url, "/api/kyc/aadhaar/verify-otp", {
          method: "POST",
          body: { merchantId: m.merchantId, aadhaarNumber: n, otp: "123456", requestId },
          headers: headers(),
        });
        expect(ok.status, ok.text).toBe(200);
      } finally {
        await second.stop();
      }
    });

    it("counts wrong OTPs, locks on the third, and charges none of it", async () => {
      const n = freshAadhaar();
      const { requestId } = (await generate(n)).json.data;
      const before = (await wallet()).balancePaise;
      const w1 = await verify({ aadhaarNumber: n, otp: "000000" });
      expectError(w1, 422, "INVALID_OTP");
      expect(w1.json.error.attemptsRemaining).toBe(2);
      const w2 = await verify({ aadhaarNumber: n, otp: "111111", requestId });
      expect(w2.json.error.attemptsRemaining).toBe(1);
      expectError(await verify({ aadhaarNumber: n, otp: "222222" }), 429, "OTP_ATTEMPTS_EXCEEDED");
      // Locked: even the right OTP is refused.
      expectError(await verify({ aadhaarNumber: n, otp: "123456", requestId }), 429, "OTP_ATTEMPTS_EXCEEDED");
      expect((await wallet()).balancePaise).toBe(before);
      expect(await db.walletHold.count({ where: { merchantId: m.merchantId, state: "HELD" } })).toBe(0);
    });

    it("locks after three wrong OTPs even when they are sent in parallel", async () => {
      const n = freshAadhaar();
      const { requestId } = (await generate(n)).json.data;
      // Waves of parallel wrong guesses: each may lose the claim (409) but none may reset the count.
      const codes: string[] = [];
      for (let wave = 0; wave < 4; wave++) {
        const answers = await Promise.all(["000001", "000002", "000003"].map((otp) => verify({ aadhaarNumber: n, otp, requestId })));
        codes.push(...answers.map((a) => a.json.error.code as string));
      }
      expect(codes.filter((c) => c === "INVALID_OTP").length).toBeLessThanOrEqual(2);
      expect((await db.kycOtpRequest.findUniqueOrThrow({ where: { id: requestId } })).state).toBe("LOCKED");
      expectError(await verify({ aadhaarNumber: n, otp: "123456", requestId }), 429, "OTP_ATTEMPTS_EXCEEDED");
    });

    it("answers 410 for an expired OTP and 404 when no open request is named or left", async () => {
      const n = freshAadhaar();
      const { requestId } = (await generate(n)).json.data;
      await db.kycOtpRequest.update({ where: { id: requestId }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expectError(await verify({ aadhaarNumber: n, otp: "123456", requestId }), 410, "OTP_EXPIRED");
      expectError(await verify({ aadhaarNumber: n, otp: "123456" }), 404, "OTP_REQUEST_NOT_FOUND");
      expectError(await verify({ aadhaarNumber: freshAadhaar(), otp: "123456" }), 404, "OTP_REQUEST_NOT_FOUND");
      expectError(await verify({ aadhaarNumber: n, otp: "123456", requestId: "kyc_req_doesnotexist00" }), 404, "OTP_REQUEST_NOT_FOUND");
      // A requestId of another number is not found for this one.
      const other = freshAadhaar();
      const otherReq = (await generate(other)).json.data.requestId;
      expectError(await verify({ aadhaarNumber: n, otp: "123456", requestId: otherReq }), 404, "OTP_REQUEST_NOT_FOUND");
    });

    it.each([
      [{ otp: "12345" }, "five digits"],
      [{ otp: 123456 }, "a number"],
      [{ otp: "12345a" }, "a letter"],
      [{}, "missing"],
    ])("refuses an OTP %j (%s) with 400 VALIDATION_ERROR", async (body, _what) => {
      expectError(await verify({ aadhaarNumber: HAPPY, ...body }), 400, "VALIDATION_ERROR");
    });

    it.each([
      ["234567899917", 422, "AADHAAR_MOBILE_NOT_LINKED"],
      ["234567899929", 422, "AADHAAR_LOCKED"],
      ["234567899986", 503, "SOURCE_UNAVAILABLE"],
    ])("sandbox %s answers %i %s", async (n, status, code) => {
      expectError(await generate(n), status, code);
      // Nothing was sent: no usable request, and no wait before asking again.
      const rows = await db.kycOtpRequest.findMany({ where: { maskedAadhaar: `XXXXXXXX${n.slice(8)}`, merchantId: m.merchantId } });
      expect(rows.filter((r) => r.state !== "REFUSED")).toEqual([]);
      expectError(await generate(n), status, code);
    });

    it("answers 402 before the source when the wallet is short, and the OTP stays usable", async () => {
      const poor = await createMerchantViaCli(env.server.env, "Poor Store");
      await setBalance(poor, 299);
      const n = freshAadhaar();
      const { requestId } = (await generate(n, poor)).json.data;
      expectError(await verify({ aadhaarNumber: n, otp: "123456", requestId }, { who: poor }), 402, "INSUFFICIENT_BALANCE");
      expect((await db.kycOtpRequest.findUniqueOrThrow({ where: { id: requestId } })).state).toBe("OPEN");
      await setBalance(poor, 300);
      const ok = await verify({ aadhaarNumber: n, otp: "123456", requestId }, { who: poor });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.json.data.walletBalance).toBe("0.00");
      expect(await ledgerSum(poor)).toBe(0);
    });

    it("gives one success among concurrent right OTPs, charged once; the others are told it is running or used", async () => {
      const n = freshAadhaar();
      const { requestId } = (await generate(n)).json.data;
      const before = (await wallet()).balancePaise;
      const answers = await Promise.all(Array.from({ length: 5 }, () => verify({ aadhaarNumber: n, otp: "123456", requestId })));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
      for (const a of answers.filter((x) => x.status === 409)) expect(["OTP_VERIFICATION_IN_PROGRESS", "OTP_ALREADY_USED"]).toContain(a.json.error.code);
      const after = await wallet();
      expect(after.balancePaise).toBe(before - 300);
      expect(after.availablePaise).toBe(after.balancePaise);
      expect(await db.kycTransaction.count({ where: { otpRequestId: requestId } })).toBe(1);
    });

    it("answers 409 OTP_VERIFICATION_IN_PROGRESS while another verify of the request is with the source, then OTP_ALREADY_USED", async () => {
      const n = freshAadhaar();
      const { requestId } = (await generate(n)).json.data;
      const before = (await wallet()).balancePaise;
      const { verifyAadhaarOtp } = await otpService();
      const { sandboxAadhaarProvider } = await import("@/server/providers/sandbox/aadhaar");
      const { createAtomicWriter } = await import("@/server/db/atomic-write");
      const store = createAtomicWriter(db, env.server.databaseUrl);
      // The winner runs in this process against a source that answers only when told to.
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const slowSource: AadhaarProvider = {
        sendOtp: (number) => sandboxAadhaarProvider.sendOtp(number),
        submitOtp: async (number, reference, otp) => {
          await answered;
          return sandboxAadhaarProvider.submitOtp(number, reference, otp);
        },
      };
      const keys = secrets();
      const winner = verifyAadhaarOtp(
        keys.hashKey,
        { db, store, encryptionKey: keys.encryptionKey, retentionDays: 30 },
        slowSource,
        { merchantId: m.merchantId, mode: "sandbox", requestId: "req_race_winner", feePaise: 300 },
        { aadhaarNumber: n, otp: "123456", requestId },
      );
      try {
        await waitFor("the winner's claim", async () => (await db.kycOtpRequest.findUniqueOrThrow({ where: { id: requestId } })).state === "VERIFYING");
        const key = `otp-race-${crypto.randomUUID()}`;
        const losers = await Promise.all([
          ...Array.from({ length: 3 }, () => verify({ aadhaarNumber: n, otp: "123456", requestId })),
          verify({ aadhaarNumber: n, otp: "123456" }),
          verify({ aadhaarNumber: n, otp: "123456", requestId }, { extra: { "Idempotency-Key": key } }),
        ]);
        for (const l of losers) {
          expectError(l, 409, "OTP_VERIFICATION_IN_PROGRESS");
          expect(retryAfter(l)).toBeGreaterThanOrEqual(1);
        }
        expect((await wallet()).availablePaise).toBe(before - 300); // only the winner's hold
        answer();
        const won = await winner;
        expect(won).toMatchObject({ requestId, status: "VERIFIED", charge: { amount: "3.00" } });
        // Now it is used; the key's retry ran again instead of replaying "in progress".
        const retried = await verify({ aadhaarNumber: n, otp: "123456", requestId }, { extra: { "Idempotency-Key": key } });
        expectError(retried, 409, "OTP_ALREADY_USED");
        expect(retried.headers["idempotent-replayed"]).toBeUndefined();
      } finally {
        answer();
        await winner.catch(() => undefined);
        store.close();
      }
      const after = await wallet();
      expect(after.balancePaise).toBe(before - 300);
      expect(after.availablePaise).toBe(after.balancePaise);
      expect(await db.kycTransaction.count({ where: { otpRequestId: requestId } })).toBe(1);
      expect((await db.kycOtpRequest.findUniqueOrThrow({ where: { id: requestId } })).state).toBe("VERIFIED");
    });
  });

  describe("OTP limits across merchants", () => {
    let second: MerchantFixture;
    let third: MerchantFixture;
    beforeAll(async () => {
      second = await createMerchantViaCli(env.server.env, "Second Store");
      third = await createMerchantViaCli(env.server.env, "Third Store");
    });

    it("sends one number at most one OTP a minute from all merchants together, counted per mode", async () => {
      const n = freshAadhaar();
      const first = await generate(n);
      expect(first.status, first.text).toBe(200);
      const other = await generate(n, second);
      expectError(other, 429, "OTP_GENERATION_LIMIT");
      expect(retryAfter(other)).toBeGreaterThanOrEqual(55);
      expect(retryAfter(other)).toBeLessThanOrEqual(60);
      // The first merchant's own wait answers first for its own number.
      expectError(await generate(n), 429, "OTP_RESEND_TOO_SOON");
      // Nothing was reserved for the refused merchant.
      expect(await db.kycOtpRequest.count({ where: { merchantId: second.merchantId, maskedAadhaar: `XXXXXXXX${n.slice(8)}` } })).toBe(0);

      // Live counts on its own: a sandbox send does not hold up a live one, but live sends limit each other.
      const { generateAadhaarOtp } = await otpService();
      const { sandboxAadhaarProvider } = await import("@/server/providers/sandbox/aadhaar");
      const liveSource: AadhaarProvider = { sendOtp: (x) => sandboxAadhaarProvider.sendOtp(x), submitOtp: (...a) => sandboxAadhaarProvider.submitOtp(...a) };
      const live = (who: MerchantFixture) =>
        generateAadhaarOtp(db, secrets().hashKey, liveSource, { merchantId: who.merchantId, mode: "live", requestId: "", feePaise: 300 }, n);
      expect((await live(second)).data.requestId).toMatch(/^kyc_req_/);
      await expect(live(third)).rejects.toMatchObject({ code: "OTP_GENERATION_LIMIT" });

      // A minute on, another merchant may send.
      await ageNumber(first.json.data.requestId, 61_000);
      const later = await generate(n, second);
      expect(later.status, later.text).toBe(200);
    });

    it("sends one number at most 10 OTPs per 24 hours from all merchants together", async () => {
      const n = freshAadhaar();
      const shops = [m, second, third];
      let firstId = "";
      for (let i = 0; i < 10; i++) {
        const r = await generate(n, shops[i % 3]);
        expect(r.status, `send ${i + 1}: ${r.text}`).toBe(200);
        firstId ||= r.json.data.requestId;
        // An hour and a minute later: past the minute and every merchant's own 30-minute window.
        await ageNumber(firstId, 61 * 60_000);
      }
      for (const who of shops) {
        const refused = await generate(n, who);
        expectError(refused, 429, "OTP_GENERATION_LIMIT");
        // The oldest was sent 10 × 61 minutes ago: room again 24 hours after it.
        expect(retryAfter(refused)).toBeGreaterThan(86_400 - 610 * 60 - 120);
        expect(retryAfter(refused)).toBeLessThanOrEqual(86_400 - 610 * 60);
      }
      // Once the oldest is more than 24 hours old, one more may go.
      await ageNumber(firstId, 14 * 3_600_000);
      const again = await generate(n, second);
      expect(again.status, again.text).toBe(200);
      await ageNumber(firstId, 61_000);
      const full = await generate(n, third);
      expectError(full, 429, "OTP_GENERATION_LIMIT");
      expect(retryAfter(full)).toBeGreaterThan(60);
    });

    it("counts the sandbox's documented numbers only toward each merchant's own limits", async () => {
      for (const who of [m, second, third]) {
        const r = await generate("999999990019", who);
        expect(r.status, r.text).toBe(200);
      }
      expectError(await generate("999999990019", second), 429, "OTP_RESEND_TOO_SOON");
    });
  });

  describe("OTPs sent without a verify", () => {
    it("allows a merchant 100 OTPs a minute that no verify-otp has followed, then 429 RATE_LIMITED", async () => {
      const busy = await createMerchantViaCli(env.server.env, "Busy Store");
      const sent: { n: string; requestId: string }[] = [];
      for (let batch = 0; batch < 10; batch++) {
        const numbers = Array.from({ length: 10 }, () => freshAadhaar());
        const answers = await Promise.all(numbers.map((n) => generate(n, busy)));
        answers.forEach((a, i) => {
          expect(a.status, a.text).toBe(200);
          sent.push({ n: numbers[i]!, requestId: a.json.data.requestId });
        });
      }
      const over = await generate(freshAadhaar(), busy);
      expectError(over, 429, "RATE_LIMITED");
      expect(retryAfter(over)).toBeGreaterThanOrEqual(1);
      expect(retryAfter(over)).toBeLessThanOrEqual(60);
      // Another merchant is not held up.
      expect((await generate(freshAadhaar())).status).toBe(200);

      // A verify-otp frees its send's place.
      const ok = await verify({ aadhaarNumber: sent[0]!.n, otp: "123456", requestId: sent[0]!.requestId }, { who: busy });
      expect(ok.status, ok.text).toBe(200);
      // A lookup the source refuses (no linked mobile) takes a place too.
      expectError(await generate(aadhaarWithSerial("9991"), busy), 422, "AADHAAR_MOBILE_NOT_LINKED");
      expectError(await generate(freshAadhaar(), busy), 429, "RATE_LIMITED");

      // A minute later every place is free again.
      const rows = await db.kycOtpRequest.findMany({ where: { merchantId: busy.merchantId } });
      for (const r of rows) await db.kycOtpRequest.update({ where: { id: r.id }, data: { createdAt: new Date(r.createdAt.getTime() - 61_000) } });
      const later = await generate(freshAadhaar(), busy);
      expect(later.status, later.text).toBe(200);
    });
  });

  describe("PAN and bank KYC", () => {
    it("answers PAN KYC with dob and name matching, charged ₹1.00", async () => {
      const before = (await wallet()).balancePaise;
      const r = await panKyc({ pan: "abcpk1234f", name: "Arjun Kapoor", dob: "1990-01-01" });
      expect(r.status, r.text).toBe(200);
      const d = r.json.data;
      expect(Object.keys(d).sort()).toEqual(
        ["aadhaarSeedingStatus", "category", "charge", "dobMatch", "kycTransactionId", "nameMatch", "pan", "registeredName", "status", "walletBalance"].sort(),
      );
      expect(d).toMatchObject({
        pan: "ABCPK1234F",
        status: "VALID",
        category: "INDIVIDUAL",
        dobMatch: true,
        aadhaarSeedingStatus: "LINKED",
        charge: { amount: "1.00" },
      });
      expect(d.nameMatch).toEqual({ score: expect.any(Number), result: expect.stringMatching(/^(MATCH|PARTIAL|NO_MATCH)$/) });
      expect((await wallet()).balancePaise).toBe(before - 100);
      expect((await panKyc({ pan: "ABCPK1234F", dob: "1991-02-03" })).json.data).toMatchObject({ dobMatch: false, nameMatch: null });
      expect((await panKyc({ pan: "ABCPK1234F" })).json.data.dobMatch).toBeNull();
    });

    it("reads a company's legal form either way in PAN KYC's name match", async () => {
      // ABCCK1234F is the sandbox's KOHLI ENGINEERING PRIVATE LIMITED.
      const r = await panKyc({ pan: "ABCCK1234F", name: "Kohli Engineering Pvt. Ltd." });
      expect(r.status, r.text).toBe(200);
      expect(r.json.data).toMatchObject({
        category: "COMPANY",
        registeredName: "KOHLI ENGINEERING PRIVATE LIMITED",
        nameMatch: { score: 100, result: "MATCH" },
      });
      expect((await panKyc({ pan: "ABCCK1234F", name: "Zoya Engineering Pvt. Ltd." })).json.data.nameMatch.result).toBe("NO_MATCH");
    });

    it("charges an INVALID PAN (an answer) but not a source failure", async () => {
      const before = (await wallet()).balancePaise;
      const invalid = await panKyc({ pan: "ABCPK9991F", dob: "1990-01-01" });
      expect(invalid.status).toBe(200);
      expect(invalid.json.data).toMatchObject({ status: "INVALID", registeredName: null, dobMatch: null });
      expectError(await panKyc({ pan: "ABCPK9998F" }), 503, "SOURCE_UNAVAILABLE");
      expectError(await panKyc({ pan: "ABCPK9997F" }), 504, "SOURCE_TIMEOUT");
      expect((await wallet()).balancePaise).toBe(before - 100);
      expect(await db.walletHold.count({ where: { merchantId: m.merchantId, state: "HELD" } })).toBe(0);
    });

    it.each([
      [{ pan: "ABCPK0000F" }, "INVALID_PAN"],
      [{ pan: "ABCXK1234F" }, "INVALID_PAN"],
      [{ pan: "ABCPK1234F", dob: "1990-02-30" }, "VALIDATION_ERROR"],
      [{ pan: "ABCPK1234F", dob: "01-01-1990" }, "VALIDATION_ERROR"],
      [{ pan: "ABCPK1234F", name: "" }, "VALIDATION_ERROR"],
    ])("refuses PAN KYC %j with %s", async (body, code) => {
      expectError(await panKyc(body), 400, code);
    });

    it("answers bank KYC for each sandbox account status, charged ₹2.00 each", async () => {
      const before = (await wallet()).balancePaise;
      const valid = await bankKyc({ accountNumber: "50100123456789", ifsc: "hdfc0001234", name: "Someone" });
      expect(valid.status, valid.text).toBe(200);
      const d = valid.json.data;
      expect(Object.keys(d).sort()).toEqual(
        ["accountExists", "accountStatus", "bankReference", "charge", "ifscDetails", "kycTransactionId", "nameAtBank", "nameMatch", "walletBalance"].sort(),
      );
      expect(d).toMatchObject({ accountExists: true, accountStatus: "VALID", ifscDetails: { bank: "HDFC Bank" }, charge: { amount: "2.00" } });
      expect(d.nameAtBank).toMatch(/^[A-Z .]+$/);
      expect((await bankKyc({ accountNumber: "123456780000", ifsc: "SBIN0000001" })).json.data).toMatchObject({
        accountExists: false,
        accountStatus: "INVALID",
      });
      expect((await bankKyc({ accountNumber: "123456781111", ifsc: "SBIN0000001" })).json.data.accountStatus).toBe("BLOCKED");
      expect((await bankKyc({ accountNumber: "123456782222", ifsc: "SBIN0000001" })).json.data.accountStatus).toBe("PENDING");
      expectError(await bankKyc({ accountNumber: "123456789998", ifsc: "SBIN0000001" }), 503, "SOURCE_UNAVAILABLE");
      expect((await wallet()).balancePaise).toBe(before - 4 * 200);
      const txn = await db.kycTransaction.findUniqueOrThrow({ where: { id: d.kycTransactionId } });
      expect(txn.subjectMasked).toBe("XXXXXXXXXX6789 @ HDFC0001234");
    });

    it.each([
      [{ accountNumber: "12345678", ifsc: "SBIN0000001" }, "INVALID_ACCOUNT_NUMBER"],
      [{ accountNumber: "1234567890123456789", ifsc: "SBIN0000001" }, "INVALID_ACCOUNT_NUMBER"],
      [{ accountNumber: "12345678901a", ifsc: "SBIN0000001" }, "INVALID_ACCOUNT_NUMBER"],
      [{ accountNumber: "123456789012", ifsc: "SBIN1000001" }, "INVALID_IFSC"],
      [{ accountNumber: "123456789012", ifsc: "SBI0000001" }, "INVALID_IFSC"],
      [{ accountNumber: "123456789012" }, "VALIDATION_ERROR"],
    ])("refuses bank KYC %j with %s", async (body, code) => {
      expectError(await bankKyc(body), 400, code);
    });
  });

  describe("who may call", () => {
    it("refuses browsers with 403 BROWSER_REQUEST_FORBIDDEN and sends no CORS headers", async () => {
      const r = await panKyc({ pan: "ABCPK1234F" }, { extra: { Origin: "https://shop.example" } });
      expectError(r, 403, "BROWSER_REQUEST_FORBIDDEN");
      expect(Object.keys(r.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
      const preflight = await request(env.server.url, "/api/kyc/pan/verify", {
        method: "OPTIONS",
        headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "POST" },
      });
      expect(preflight.status).toBeGreaterThanOrEqual(400);
      expect(Object.keys(preflight.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
    });

    it("needs the key pair (401) of the body's merchant (403 MERCHANT_MISMATCH)", async () => {
      const r = await request(env.server.url, "/api/kyc/pan/verify", { method: "POST", body: { merchantId: m.merchantId, pan: "ABCPK1234F" } });
      expectError(r, 401, "UNAUTHORIZED");
      const swapped = await request(env.server.url, "/api/kyc/pan/verify", {
        method: "POST",
        body: { merchantId: m.merchantId, pan: "ABCPK1234F" },
        // Another last character (a key that already ends in "x" must still change).
        headers: { "x-api-key": m.sandbox.publicKey, "x-api-secret": m.sandbox.secretKey.replace(/.$/, (c) => (c === "x" ? "y" : "x")) },
      });
      expectError(swapped, 401, "UNAUTHORIZED");
      expectError(await panKyc({ pan: "ABCPK1234F", merchantId: "mer_someoneelse0000" }), 403, "MERCHANT_MISMATCH");
      expectError(await panKyc({ pan: "ABCPK1234F", merchantId: undefined }), 400, "VALIDATION_ERROR");
    });

    it("answers live calls 503 from the unconfigured source, without a charge", async () => {
      const shop = await createMerchantViaCli(env.server.env, "Live Store");
      expect((await cli(env.server.env, ["merchant", "go-live", "--merchant", shop.merchantId])).code).toBe(0);
      const key = await cli(env.server.env, ["key", "create", "--merchant", shop.merchantId, "--mode", "live", "--json"]);
      expect(key.code, key.stderr).toBe(0);
      const live = { ...shop, sandbox: { ...shop.sandbox, publicKey: key.json.publicKey, secretKey: key.json.secretKey } };
      expect(
        (await cli(env.server.env, ["wallet", "credit", "--merchant", shop.merchantId, "--mode", "live", "--amount", "100", "--reason", "first top-up"])).code,
      ).toBe(0);
      const consent = { consent: true, purpose: "Customer onboarding: KYC before account opening" };
      expectError(await panKyc({ pan: "ABCPK1234F", ...consent }, { who: live }), 503, "SOURCE_UNAVAILABLE");
      expectError(await post("/api/kyc/aadhaar/generate-otp", { aadhaarNumber: HAPPY, ...consent }, { who: live }), 503, "SOURCE_UNAVAILABLE");
      expect((await wallet(shop, "live")).balancePaise).toBe(10_000);
    });
  });

  describe("money under concurrency", () => {
    it("lets exactly 50 of 200 parallel charged calls through on a wallet that affords 50", async () => {
      const shop = await createMerchantViaCli(env.server.env, "Race Store");
      await setBalance(shop, 50 * 100);
      const answers = await Promise.all(Array.from({ length: 200 }, () => panKyc({ pan: "ABCPK1234F" }, { who: shop })));
      const counts = answers.reduce<Record<number, number>>((acc, a) => ((acc[a.status] = (acc[a.status] ?? 0) + 1), acc), {});
      expect(counts).toEqual({ 200: 50, 402: 150 });
      for (const a of answers.filter((x) => x.status === 402)) expect(a.json.error.code).toBe("INSUFFICIENT_BALANCE");
      const w = await wallet(shop);
      expect(w.balancePaise).toBe(0);
      expect(w.availablePaise).toBe(0);
      expect(await ledgerSum(shop)).toBe(0);
      expect(await db.kycTransaction.count({ where: { merchantId: shop.merchantId } })).toBe(50);
      // Sandbox PAN KYC is answered from fixtures first and charged after: no hold is placed at all.
      expect(await db.walletHold.count({ where: { merchantId: shop.merchantId } })).toBe(0);
      // Every answer's balance is distinct: no two debits saw the same balance.
      const balances = answers.filter((a) => a.status === 200).map((a) => a.json.data.walletBalance);
      expect(new Set(balances).size).toBe(50);
    });

    it("replays an Idempotency-Key without a second charge, and stores the answer encrypted", async () => {
      const before = (await wallet()).balancePaise;
      const key = `kyc-${crypto.randomUUID()}`;
      const first = await panKyc({ pan: "ABCPK1234F", name: "Arjun" }, { extra: { "Idempotency-Key": key } });
      const again = await panKyc({ pan: "ABCPK1234F", name: "Arjun" }, { extra: { "Idempotency-Key": key } });
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.headers["idempotent-replayed"]).toBe("true");
      expect(again.json).toEqual(first.json);
      expect((await wallet()).balancePaise).toBe(before - 100);
      const stored = await db.idempotencyRecord.findFirstOrThrow({ where: { key } });
      expect(stored.responseBody).not.toContain("ABCPK1234F");
      expect(stored.responseBody).not.toContain(first.json.data.registeredName);
      expect(stored.responseBody!.startsWith("v1.")).toBe(true);
      expectError(await panKyc({ pan: "ABCPK9994F" }, { extra: { "Idempotency-Key": key } }), 422, "IDEMPOTENCY_KEY_MISMATCH");
    });

    it("charges one Idempotency-Key sent many times at once only once", async () => {
      const shop = await createMerchantViaCli(env.server.env, "Same Key Store");
      await setBalance(shop, 1000);
      const key = `kyc-race-${crypto.randomUUID()}`;
      const answers = await Promise.all(Array.from({ length: 12 }, () => panKyc({ pan: "ABCPK1234F" }, { who: shop, extra: { "Idempotency-Key": key } })));
      const ok = answers.filter((a) => a.status === 200);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      for (const a of answers.filter((x) => x.status !== 200)) expectError(a, 409, "IDEMPOTENCY_KEY_IN_USE");
      // The one charged answer, and replays of it.
      expect(new Set(ok.map((a) => a.json.data.kycTransactionId)).size).toBe(1);
      expect(ok.filter((a) => a.headers["idempotent-replayed"] === undefined)).toHaveLength(1);
      expect((await wallet(shop)).balancePaise).toBe(900);
      expect(await ledgerSum(shop)).toBe(900);
      expect(await db.kycTransaction.count({ where: { merchantId: shop.merchantId } })).toBe(1);
    });

    it("answers 402 rather than the source failure when the wallet could not have paid, and charges neither", async () => {
      const shop = await createMerchantViaCli(env.server.env, "Short Wallet Store");
      await setBalance(shop, 99);
      expectError(await panKyc({ pan: "ABCPK9998F" }, { who: shop }), 402, "INSUFFICIENT_BALANCE");
      expectError(await panKyc({ pan: "ABCPK1234F" }, { who: shop }), 402, "INSUFFICIENT_BALANCE");
      await setBalance(shop, 100);
      expectError(await panKyc({ pan: "ABCPK9998F" }, { who: shop }), 503, "SOURCE_UNAVAILABLE");
      expect((await wallet(shop)).balancePaise).toBe(100);
      expect(await db.kycTransaction.count({ where: { merchantId: shop.merchantId } })).toBe(0);
    });

    it("does not store a 402 under its Idempotency-Key: after a top-up the same key runs and charges once", async () => {
      const shop = await createMerchantViaCli(env.server.env, "Empty Wallet Store");
      await setBalance(shop, 0);
      const key = `kyc-402-${crypto.randomUUID()}`;
      const call = () => panKyc({ pan: "ABCPK1234F" }, { who: shop, extra: { "Idempotency-Key": key } });
      expectError(await call(), 402, "INSUFFICIENT_BALANCE");
      expect(await db.idempotencyRecord.count({ where: { merchantId: shop.merchantId, key } })).toBe(0);
      await setBalance(shop, 500);
      const paid = await call();
      expect(paid.status, paid.text).toBe(200);
      expect(paid.headers["idempotent-replayed"]).toBeUndefined();
      const replayed = await call();
      expect(replayed.status).toBe(200);
      expect(replayed.headers["idempotent-replayed"]).toBe("true");
      expect((await wallet(shop)).balancePaise).toBe(400);
      expect(await db.kycTransaction.count({ where: { merchantId: shop.merchantId } })).toBe(1);
    });

    it("releases a hold left by a call that never finished, and not twice", async () => {
      process.env.DATA_DIR = env.server.dataDir;
      const { releaseStaleHolds, STALE_HOLD_MS } = await import("@/server/services/wallet/wallet");
      const { createAtomicWriter } = await import("@/server/db/atomic-write");
      const { placeHold } = await import("@/server/services/wallet/holds");
      const store = createAtomicWriter(db, env.server.databaseUrl);
      const before = await wallet();
      const holdId = `hold_${crypto.randomUUID().replace(/-/g, "")}`;
      expect(
        await placeHold(store, {
          id: holdId,
          merchantId: m.merchantId,
          mode: "sandbox",
          amountPaise: 300,
          reason: "KYC_AADHAAR",
          requestId: null,
          createdAt: new Date(),
        }),
      ).toBe(true);
      expect((await wallet()).availablePaise).toBe(before.availablePaise - 300);
      expect(await releaseStaleHolds(db, store)).toBe(0);
      await db.walletHold.update({ where: { id: holdId }, data: { createdAt: new Date(Date.now() - STALE_HOLD_MS - 1000) } });
      expect(await releaseStaleHolds(db, store)).toBe(1);
      expect(await releaseStaleHolds(db, store)).toBe(0);
      store.close();
      const after = await wallet();
      expect(after.availablePaise).toBe(before.availablePaise);
      expect(after.balancePaise).toBe(before.balancePaise);
    });
  });

  it("sends wallet.low_balance once per crossing of the threshold", async () => {
    const shop = await createMerchantViaCli(env.server.env, "Alert Store");
    await setBalance(shop, 1000);
    await db.wallet.update({ where: { merchantId_mode: { merchantId: shop.merchantId, mode: "sandbox" } }, data: { lowBalanceThresholdPaise: 800 } });
    const events = () => db.webhookEvent.findMany({ where: { merchantId: shop.merchantId, type: "wallet.low_balance" }, orderBy: { createdAt: "asc" } });
    for (let i = 0; i < 2; i++) expect((await panKyc({ pan: "ABCPK1234F" }, { who: shop })).status).toBe(200); // 8.00: not below
    expect(await events()).toHaveLength(0);
    await Promise.all(Array.from({ length: 4 }, () => panKyc({ pan: "ABCPK1234F" }, { who: shop }))); // 4.00, crossing once
    const first = await events();
    expect(first).toHaveLength(1);
    expect(JSON.parse(first[0]!.body)).toMatchObject({ type: "wallet.low_balance", mode: "sandbox", data: { wallet: { threshold: "8.00", currency: "INR" } } });
    // A credit back above the threshold re-arms the alert; the next crossing sends one more.
    await setBalance(shop, 900);
    expect((await panKyc({ pan: "ABCPK1234F" }, { who: shop })).status).toBe(200);
    expect((await panKyc({ pan: "ABCPK1234F" }, { who: shop })).status).toBe(200);
    expect(await events()).toHaveLength(2);
  });

  it("purges full KYC results past their retention and keeps the masked summary", async () => {
    const r = await panKyc({ pan: "ABCPK1234F" });
    const id = r.json.data.kycTransactionId;
    const stored = await db.kycTransaction.findUniqueOrThrow({ where: { id } });
    expect(stored.resultEnc).toMatch(/^v1\./);
    expect(stored.resultExpiresAt!.getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const { purgeKycData } = await import("@/server/services/kyc/maintenance");
    expect((await purgeKycData(db)).results).toBe(0);
    const purged = await purgeKycData(db, new Date(Date.now() + 31 * 86_400_000));
    expect(purged.results).toBeGreaterThanOrEqual(1);
    const after = await db.kycTransaction.findUniqueOrThrow({ where: { id } });
    expect(after).toMatchObject({ resultEnc: null, resultExpiresAt: null, subjectMasked: "ABCPKXXXXF", outcome: "VALID", feePaise: 100 });
  });

  it("keeps no Aadhaar number, photo, address or OTP in any table, the request log or the server log", async () => {
    const n = freshAadhaar();
    const g = await generate(n);
    expect(g.status).toBe(200);
    expectError(await verify({ aadhaarNumber: n, otp: "654321" }), 422, "INVALID_OTP");
    const key = `kyc-${crypto.randomUUID()}`;
    const v = await verify({ aadhaarNumber: n, otp: "123456" }, { extra: { "Idempotency-Key": key } });
    expect(v.status, v.text).toBe(200);
    const replay = await verify({ aadhaarNumber: n, otp: "123456" }, { extra: { "Idempotency-Key": key } });
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    const k = v.json.data;
    const secrets = [n, `${n.slice(0, 4)} ${n.slice(4, 8)} ${n.slice(8)}`, k.photo, k.fullAddress, k.address.house, k.address.street, k.careOf].filter(
      (s: string) => s && s.length >= 6,
    );
    // Let the audit writer's group commit land.
    await new Promise((r) => setTimeout(r, 300));
    const tables: string[] =
      target === "sqlite"
        ? (await db.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)).map((t) => t.name)
        : (await db.$queryRawUnsafe<{ table_name: string }[]>(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)).map(
            (t) => t.table_name,
          );
    expect(tables).toContain("KycTransaction");
    let rows = 0;
    for (const table of tables) {
      const all = await db.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT * FROM "${table}"`);
      for (const row of all) {
        rows++;
        const text = JSON.stringify(row, (_k, v) => (typeof v === "bigint" ? String(v) : v));
        for (const s of secrets) expect(text.includes(s), `${table} holds ${s.slice(0, 24)}…`).toBe(false);
        for (const value of Object.values(row)) expect(value, `${table} holds the OTP as a value`).not.toBe("123456");
        expect(text).not.toMatch(/"otp\\?"\s*:\s*\\?"(123456|654321)/);
      }
    }
    expect(rows).toBeGreaterThan(50);
    // A number sent in a query string is redacted in the request log too.
    expect(
      (
        await request(env.server.url, `/api/kyc/pan/verify?aadhaar=${n}`, {
          method: "POST",
          body: { merchantId: m.merchantId, pan: "ABCPK1234F" },
          headers: headers(),
        })
      ).status,
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const paths = await db.auditLog.findMany({ where: { merchantId: m.merchantId, path: { startsWith: "/api/kyc/pan/verify?" } }, select: { path: true } });
    expect(paths.length).toBeGreaterThan(0);
    for (const p of paths) expect(p.path).not.toContain(n);
    const logs = env.server.logs();
    for (const s of secrets) expect(logs.includes(s), `server log holds ${s.slice(0, 24)}…`).toBe(false);
    expect(logs).not.toMatch(/otp\W{0,4}(123456|654321)/i);
  });
});
