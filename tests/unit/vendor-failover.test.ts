/**
 * Several vendors per family (contract C6): Setu's connectors against a fake held to Setu's pages,
 * the same records giving the same Parakh answer through either vendor, and the family routers'
 * failover (breaker open, no business answer, a hanging vendor) inside one deadline.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configFrom } from "@/server/config";
import { AppError } from "@/server/errors";
import { createLiveProviders, type ProviderSet } from "@/server/providers";
import { bankCheckFromSetu } from "@/server/providers/setu/bank";
import { panRecordFromSetu } from "@/server/providers/setu/pan";
import { upstreamCallCounts, type UpstreamLogger } from "@/server/providers/upstream/client";
import { LocalGates } from "@/server/providers/upstream/gate";
import { panCheckOf } from "@/server/services/identity/verify-pan";
import { nameMatchScore, nameHolderOfPan } from "@/server/services/identity/name-match";
import { startFakeCashfreeVerification, type FakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { loadSetuValidators, setuExamples, startFakeSetu, type FakeSetu } from "../helpers/fake-setu";
import { settingsEnv } from "../helpers/settings-env";

const CASHFREE = { clientId: "CF_TEST_CLIENT", clientSecret: "cfsk_live_do_not_log_me" };
const SETU = { clientId: "setu-client", clientSecret: "setu-secret", panProductInstanceId: "pan-instance", bankProductInstanceId: "bank-instance" };
const quiet: UpstreamLogger = { warn: () => undefined, error: () => undefined };
const consent = { purpose: "Onboarding a seller for payouts", source: "request" as const };

let cashfree: FakeCashfreeVerification;
let setu: FakeSetu;

function live(order: ("cashfree" | "setu")[], timeoutMs = 2_000, extra: { openMs?: number } = {}, maxRps = 0): ProviderSet {
  return createLiveProviders(
    {
      provider: "cashfree",
      vendors: { pan: order, bank: order, epfo: ["cashfree"], aadhaar: ["cashfree"] },
      cashfree: { baseUrl: cashfree.url, ...CASHFREE },
      setu: { baseUrl: setu.url, ...SETU },
      firstVendorShare: 0.6,
      timeoutMs,
      maxConcurrency: 64,
      maxRps,
    },
    quiet,
    { retryDelayMs: 10, gates: new LocalGates(), ...extra },
  );
}

async function failure(call: () => Promise<unknown>): Promise<AppError> {
  try {
    await call();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("the call answered instead of failing");
}

beforeEach(async () => {
  cashfree = await startFakeCashfreeVerification(CASHFREE);
  setu = await startFakeSetu(SETU);
});

afterEach(async () => {
  await Promise.all([cashfree.close(), setu.close()]);
  expect(cashfree.problems).toEqual([]);
  expect(setu.problems).toEqual([]);
});

describe("Setu's connectors", () => {
  it("the fake's rules accept every sample Setu's pages give", () => {
    const validators = loadSetuValidators();
    for (const example of setuExamples()) {
      const validate = validators.get(example.endpoint)!.answers.get(example.status)!;
      expect(validate(example.value), `${example.endpoint} ${example.name}`).toBe(true);
    }
  });

  it("read Setu's samples by the documented tables", () => {
    const sample = (endpoint: string, name: RegExp) =>
      setuExamples().find((e) => e.endpoint === endpoint && name.test(e.name))!.value as Record<string, unknown>;
    const pan = (name: RegExp) => sample("POST /api/verify/pan", name);
    // Setu's sample PAN has a 4th letter no PAN has (Parakh refuses it before any call): an HUF's PAN stands in.
    expect(panRecordFromSetu("ABCHE1234A", pan(/^valid PAN/))).toEqual({
      pan: "ABCHE1234A",
      status: "VALID",
      name: "KUMAR GAURAV RATHOD",
      category: "HUF",
      aadhaarSeedingStatus: "LINKED",
      dob: null,
      remarks: null,
      sourceNameMatchScore: null,
    });
    // Setu's "PAN is invalid" has no id, traceId or data.
    expect(pan(/found but invalid/)).toEqual({ verification: "failed", message: "PAN is invalid" });
    expect(panRecordFromSetu("ABCPE1234B", pan(/found but invalid/))).toMatchObject({
      status: "INVALID",
      name: null,
      aadhaarSeedingStatus: "NOT_APPLICABLE",
    });
    const bank = (name: RegExp) => sample("POST /api/verify/ban/pennyless", name);
    expect(bankCheckFromSetu(bank(/^valid bank account/))).toEqual({
      accountExists: true,
      accountStatus: "VALID",
      nameAtBank: "PAVANKUMAR KAMAT BIZ",
      bankReference: "4c93e6bb-8017-4fc4-b44b-4cf186c9c6d5",
      ifscDetails: { bank: "AXIS BANK", branch: "KAPODRA, SURAT", city: "SURAT", state: "GUJARAT" },
    });
    // "Invalid bank details" comes as HTTP 200 with status ERROR.
    expect(bankCheckFromSetu(bank(/^invalid bank details/))).toEqual({
      accountExists: false,
      accountStatus: "INVALID",
      nameAtBank: null,
      bankReference: "061b26e1-cb3c-4373-a761-ad03d6251f04",
      ifscDetails: { bank: null, branch: null, city: null, state: null },
    });
    // Setu's error objects say nothing of the account.
    expect(bankCheckFromSetu(bank(/^invalid payload/))).toBeNull();
    expect(bankCheckFromSetu(bank(/upstream's failure/))).toBeNull();
  });

  it('answer a PAN Setu does not know (404 "PAN not found.") and an account it cannot verify as invalid; any other 404 is no answer', async () => {
    const providers = live(["setu"]);
    expect(await providers.pan.lookup("ABCPK1234F", { consent })).toMatchObject({ status: "INVALID", name: null, vendor: "setu" });
    expect(await providers.bank.verifyAccount("000011112222", "YESB0000262", { consent })).toMatchObject({
      accountExists: false,
      accountStatus: "INVALID",
      vendor: "setu",
    });
    // A 404 without Setu's verification field (a proxy's page, a wrong path) is not a PAN not on record.
    setu.fail("pan", "gateway-404", 1);
    expect((await failure(() => providers.pan.lookup("ABCPK1234F", { consent }))).code).not.toBe("INVALID_PAN");
    // With Cashfree first and a gateway 404 at Setu, nothing was answered as invalid.
    setu.panRecords.set("ABCPK1234F", { name: "ASHA KUMARI" });
    setu.fail("pan", "gateway-404", 1);
    cashfree.fail("pan", "500");
    const both = live(["setu", "cashfree"]);
    expect((await failure(() => both.pan.lookup("ABCPK1234F", { consent }))).code).toBe("SOURCE_UNAVAILABLE");
  });

  it("send consent Y and the purpose as the reason, with the product's own instance; without consent Setu is not called", async () => {
    const providers = live(["setu"]);
    setu.panRecords.set("ABCPK1234F", { name: "Asha Kumari" });
    await providers.pan.lookup("ABCPK1234F", { name: "Asha Kumari", consent });
    expect(setu.requests[0]!.body).toEqual({ pan: "ABCPK1234F", consent: "Y", reason: consent.purpose });
    expect((await failure(() => providers.pan.lookup("ABCPK1234F", {}))).code).toBe("SOURCE_UNAVAILABLE");
    expect((await failure(() => providers.bank.verifyAccount("026291800001191", "YESB0000262"))).code).toBe("SOURCE_UNAVAILABLE");
    expect(setu.count()).toBe(1);
  });
});

describe("the same record through either vendor", () => {
  // Underlying records, each put behind both fakes in the vendor's own wire.
  const PANS = [
    { pan: "ABCPK1234F", name: "ASHA KUMARI", seeding: "linked", sent: "Asha Kumari" },
    { pan: "BCDPS2345G", name: "RAKESH KUMAR SINGH", seeding: "not linked", sent: "Rakesh K Singh" },
    { pan: "CDECT3456H", name: "TATA TRUST", seeding: "not linked", sent: "Tata Trust" },
    { pan: "DEFCM4567J", name: "MEHTA INDUSTRIES LIMITED", seeding: "linked", sent: "Mehta Industries Ltd" },
    { pan: "EFGPN5678K", name: null, seeding: "not linked", sent: "Nobody" },
  ] as const;

  it("answers PAN checks field by field alike: name, status, category, seeding, Parakh's name match", async () => {
    for (const r of PANS) {
      if (r.name) {
        cashfree.panRecords.set(r.pan, { name: r.name, dob: "1990-01-01", seeding: r.seeding === "linked" ? "Y" : "N" });
        setu.panRecords.set(r.pan, { name: r.name, seeding: r.seeding === "linked" ? "LINKED" : "NOT LINKED" });
      } else {
        cashfree.panRecords.set(r.pan, { name: "X", dob: "1990-01-01", status: "INVALID" });
      }
    }
    const viaCashfree = live(["cashfree"]);
    const viaSetu = live(["setu"]);
    for (const r of PANS) {
      const a = panCheckOf(await viaCashfree.pan.lookup(r.pan, { name: r.sent, consent }), r.sent).answer;
      const b = panCheckOf(await viaSetu.pan.lookup(r.pan, { name: r.sent, consent }), r.sent).answer;
      expect(b, r.pan).toEqual(a);
      // Hand-written expectations, so both cannot be wrong alike.
      expect(a.name).toBe(r.name);
      expect(a.status).toBe(r.name ? "VALID" : "INVALID");
      expect(a.aadhaar_seeding_status).toBe(
        !r.name ? "NOT_APPLICABLE" : r.seeding === "linked" ? "LINKED" : r.pan.charAt(3) === "P" ? "NOT_LINKED" : "NOT_APPLICABLE",
      );
      if (r.name) expect(a.name_match).toBe(nameMatchScore(r.sent, r.name, nameHolderOfPan(a.category)));
    }
  });

  it("answers bank checks alike: exists, status, the name at the bank (the branch's state is Setu's alone)", async () => {
    cashfree.bankNames.set("026291800001191", "Rahul Kumar Sharma");
    setu.accounts.set("026291800001191", "Rahul Kumar Sharma");
    const a = await live(["cashfree"]).bank.verifyAccount("026291800001191", "YESB0000262", { consent });
    const b = await live(["setu"]).bank.verifyAccount("026291800001191", "YESB0000262", { consent });
    const same = (c: typeof a) => ({ accountExists: c.accountExists, accountStatus: c.accountStatus, nameAtBank: c.nameAtBank, bank: c.ifscDetails.bank });
    expect(same(b)).toEqual(same(a));
    expect(same(a)).toEqual({ accountExists: true, accountStatus: "VALID", nameAtBank: "RAHUL KUMAR SHARMA", bank: "YES BANK" });
    cashfree.fail("bank", "not-on-record");
    const c = await live(["cashfree"]).bank.verifyAccount("000011112222", "YESB0000262", { consent });
    const d = await live(["setu"]).bank.verifyAccount("000011112222", "YESB0000262", { consent });
    expect(same(d)).toEqual({ ...same(c), bank: null });
    expect(same(c)).toMatchObject({ accountExists: false, accountStatus: "INVALID", nameAtBank: null });
  });
});

describe("failover", () => {
  beforeEach(() => {
    setu.panRecords.set("ABCPK1234F", { name: "ASHA KUMARI" });
    setu.accounts.set("026291800001191", "Rahul Kumar Sharma");
  });

  it("a 5xx, a 429, a cut connection or a refused account at the first vendor: the second answers, and the record names it", async () => {
    const providers = live(["cashfree", "setu"]);
    for (const fault of ["500", "503", "429", "reset", "401"] as const) {
      cashfree.fail("pan", fault);
      expect(await providers.pan.lookup("ABCPK1234F", { consent }), fault).toMatchObject({ status: "VALID", name: "ASHA KUMARI", vendor: "setu" });
    }
    cashfree.fail("bank", "500");
    expect(await providers.bank.verifyAccount("026291800001191", "YESB0000262", { consent })).toMatchObject({ accountStatus: "VALID", vendor: "setu" });
    cashfree.clear();
    expect(await providers.pan.lookup("ABCPK1234F", { consent })).toMatchObject({ vendor: "cashfree" });
  });

  it("never after a business answer: not on record at the first vendor is the answer", async () => {
    const providers = live(["cashfree", "setu"]);
    cashfree.fail("pan", "not-on-record");
    expect(await providers.pan.lookup("ABCPK1234F", { consent })).toMatchObject({ status: "INVALID", vendor: "cashfree" });
    cashfree.fail("bank", "not-on-record");
    expect(await providers.bank.verifyAccount("026291800001191", "YESB0000262", { consent })).toMatchObject({ accountStatus: "INVALID", vendor: "cashfree" });
    cashfree.fail("pan", "invalid-pan");
    expect((await failure(() => providers.pan.lookup("ABCPK1234F", { consent }))).code).toBe("INVALID_PAN");
    expect(setu.count()).toBe(0);
  });

  it("when every vendor fails, the last failure is the answer", async () => {
    const providers = live(["cashfree", "setu"]);
    cashfree.fail("pan", "500");
    setu.fail("pan", "503");
    const err = await failure(() => providers.pan.lookup("ABCPK1234F", { consent }));
    expect(err.code).toBe("SOURCE_UNAVAILABLE");
    expect(err.retryAfterSeconds).toBeGreaterThan(0);
  });

  it("a hanging first vendor gets its share of the deadline; the second still answers inside the whole call's", async () => {
    const providers = live(["cashfree", "setu"], 1_000);
    cashfree.fail("pan", "hang");
    const started = performance.now();
    expect(await providers.pan.lookup("ABCPK1234F", { consent })).toMatchObject({ vendor: "setu" });
    const took = performance.now() - started;
    // 60% of 1,000 ms at Cashfree, then Setu: the whole call ends inside its deadline (plus the event loop's slack).
    expect(took).toBeGreaterThanOrEqual(590);
    expect(took).toBeLessThan(1_000 + 500);
  });

  it("an open breaker moves on at once without calling the vendor, counted in the failovers", async () => {
    const providers = live(["cashfree", "setu"], 2_000, { openMs: 60_000 });
    cashfree.fail("pan", "500");
    for (let i = 0; i < 5; i++) await providers.pan.lookup("ABCPK1234F", { consent });
    const before = cashfree.count("/pan");
    expect(await providers.pan.lookup("ABCPK1234F", { consent })).toMatchObject({ vendor: "setu" });
    expect(cashfree.count("/pan")).toBe(before);
    const counts = upstreamCallCounts().find((c) => c.vendor === "cashfree" && c.family === "pan")!;
    expect(counts.failovers).toBeGreaterThanOrEqual(6);
  });
});

describe("a vendor at its rate limit (UPSTREAM_MAX_RPS)", () => {
  it("is passed over without a call; past every vendor's limit the answer is 503 with Retry-After, at once", async () => {
    setu.panRecords.set("ABCPK1234F", { name: "ASHA KUMARI" });
    const providers = live(["cashfree", "setu"], 2_000, {}, 2);
    const settled = await Promise.allSettled(Array.from({ length: 6 }, () => providers.pan.lookup("ABCPK1234F", { consent })));
    // Each vendor's bucket holds one second's worth: Cashfree takes 2 calls, Setu the next 2, and the last 2 find both at their limit.
    const answered = settled.flatMap((r) => (r.status === "fulfilled" ? [r.value.vendor] : []));
    expect(answered.sort()).toEqual(["cashfree", "cashfree", "setu", "setu"]);
    const refused = settled.flatMap((r) => (r.status === "rejected" ? [r.reason as AppError] : []));
    expect(refused.map((e) => [e.code, e.retryAfterSeconds])).toEqual([
      ["SOURCE_UNAVAILABLE", 1],
      ["SOURCE_UNAVAILABLE", 1],
    ]);
    expect(cashfree.count("/pan")).toBe(2);
    expect(setu.count()).toBe(2);
  });
});

describe("settings", () => {
  const base = () => settingsEnv("parakh-vendors-");

  it("a family's vendors default to LIVE_VERIFICATION_PROVIDER; a vendor named without its credentials stops start-up naming the setting", () => {
    const cf = { LIVE_VERIFICATION_PROVIDER: "cashfree", CASHFREE_VERIFICATION_CLIENT_ID: "id", CASHFREE_VERIFICATION_CLIENT_SECRET: "secret" };
    expect(configFrom({ ...base(), ...cf }).liveVerification.vendors).toEqual({
      pan: ["cashfree"],
      epfo: ["cashfree"],
      aadhaar: ["cashfree"],
      bank: ["cashfree"],
    });
    expect(() => configFrom({ ...base(), ...cf, LIVE_PAN_VENDORS: "cashfree,setu" })).toThrow(/SETU_CLIENT_ID: required when LIVE_PAN_VENDORS names setu/);
    expect(() => configFrom({ ...base(), ...cf, LIVE_BANK_VENDORS: "setu", SETU_CLIENT_ID: "a", SETU_CLIENT_SECRET: "b" })).toThrow(
      /SETU_BANK_PRODUCT_INSTANCE_ID: required when LIVE_BANK_VENDORS names setu/,
    );
    expect(() => configFrom({ ...base(), LIVE_PAN_VENDORS: "setu,setu" })).toThrow(/LIVE_PAN_VENDORS/);
    expect(() => configFrom({ ...base(), LIVE_EPFO_VENDORS: "setu" })).toThrow(/LIVE_EPFO_VENDORS/);
    expect(() => configFrom({ ...base(), SETU_BASE_URL: "http://dg.setu.co" })).toThrow(/SETU_BASE_URL: must be https/);
    const both = configFrom({
      ...base(),
      ...cf,
      LIVE_PAN_VENDORS: "setu, cashfree",
      SETU_CLIENT_ID: "a",
      SETU_CLIENT_SECRET: "b",
      SETU_PAN_PRODUCT_INSTANCE_ID: "p",
    });
    expect(both.liveVerification.vendors.pan).toEqual(["setu", "cashfree"]);
    expect(both.liveVerification.firstVendorShare).toBe(0.6);
  });
});
