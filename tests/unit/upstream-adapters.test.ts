import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configFrom } from "@/server/config";
import { AppError } from "@/server/errors";
import { createLiveProviders, type ProviderSet } from "@/server/providers";
import { bankCheckFromAnswer } from "@/server/providers/cashfree/bank";
import { isoDate, score } from "@/server/providers/cashfree/secure-id";
import { panRecordFromAnswer } from "@/server/providers/cashfree/pan";
import type { UpstreamLogger } from "@/server/providers/upstream/client";
import { FAKE_OTP, FakeCashfreeVerification, FIXTURE_DIR, loadValidators, startFakeCashfreeVerification } from "../helpers/fake-cashfree-verification";
import { settingsEnv } from "../helpers/settings-env";

const CREDENTIALS = { clientId: "CF_TEST_CLIENT", clientSecret: "cfsk_live_do_not_log_me" };
const quiet: UpstreamLogger = { warn: () => undefined, error: () => undefined };

let fake: FakeCashfreeVerification;
let live: ProviderSet;

async function refusal(call: () => Promise<unknown>): Promise<AppError> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("the call answered instead of failing");
}

beforeEach(async () => {
  fake = await startFakeCashfreeVerification(CREDENTIALS);
  live = createLiveProviders({ provider: "cashfree", cashfree: { baseUrl: fake.url, ...CREDENTIALS }, timeoutMs: 2_000, maxConcurrency: 8 }, quiet, {
    retryDelayMs: 20,
  });
});

afterEach(async () => {
  await fake.close();
  expect(fake.problems).toEqual([]);
});

describe("the fixture schemas", () => {
  it("accept every example the vendor's reference gives, under the fake's reading rules", () => {
    const validators = loadValidators();
    let checked = 0;
    for (const endpoint of validators.values()) {
      for (const example of endpoint.examples) {
        const validate = endpoint.answers.get(example.status)!;
        expect(validate(example.value), `${endpoint.fixture} ${example.status} ${example.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it("refuse a request with an undocumented field or a wrong type, and an answer with a wrong type", () => {
    const pan = loadValidators().get("POST /pan")!;
    expect(pan.request({ pan: "ABCPK1234F" })).toBe(true);
    expect(pan.request({ pan: "ABCPK1234F", dob: "1990-01-01" })).toBe(false);
    expect(pan.request({ pan: 1234 })).toBe(false);
    expect(pan.request({})).toBe(false);
    expect(pan.answers.get(200)!({ valid: "yes" })).toBe(false);
    expect(pan.answers.get(200)!({ registered_name: { first: "A" } })).toBe(false);
  });
});

describe("PAN", () => {
  it("maps a valid PAN: upper-case name, category from the 4th letter, seeding, the vendor's score kept aside", async () => {
    fake.panRecords.set("ABCPK1234F", { name: "Rahul Kumar Sharma", dob: "1990-01-01" });
    const record = await live.pan.lookup("ABCPK1234F", { name: "Rahul Sharma" });
    expect(record).toMatchObject({
      pan: "ABCPK1234F",
      status: "VALID",
      name: "RAHUL KUMAR SHARMA",
      category: "INDIVIDUAL",
      aadhaarSeedingStatus: "LINKED",
      dob: null,
      remarks: null,
      sourceNameMatchScore: 100,
    });
    expect(fake.requests[0]!.body).toEqual({ pan: "ABCPK1234F", name: "Rahul Sharma" });
    expect(fake.requests[0]!.headers["x-api-version"]).toBeTruthy();
  });

  it("not on record → INVALID with no name, as the sandbox answers it", async () => {
    fake.fail("pan", "not-on-record");
    expect(await live.pan.lookup("ABCPK1234F")).toMatchObject({ status: "INVALID", name: null, aadhaarSeedingStatus: "NOT_APPLICABLE" });
  });

  it("tolerates the quirks: a score as a number, a reference id as a string, seeding R", async () => {
    fake.fail("pan", "quirks", { times: 1 });
    const record = await live.pan.lookup("AAACR5055K", { name: "Rahul" });
    expect(record).toMatchObject({ status: "VALID", category: "COMPANY", aadhaarSeedingStatus: "NOT_APPLICABLE", sourceNameMatchScore: 100 });
    expect((await live.pan.lookup("ABCPK1234F")).aadhaarSeedingStatus).toBe("LINKED");
    fake.fail("pan", "quirks", { times: 1 });
    expect((await live.pan.lookup("ABCPK1234F")).aadhaarSeedingStatus).toBe("NOT_LINKED");
  });

  it("checks a date of birth with PAN Lite, sending the registered name", async () => {
    fake.panRecords.set("ABCPK1234F", { name: "RAHUL KUMAR SHARMA", dob: "1990-01-01" });
    expect((await live.pan.lookup("ABCPK1234F", { dob: "1990-01-01" })).dobMatch).toBe(true);
    expect((await live.pan.lookup("ABCPK1234F", { dob: "1991-01-01" })).dobMatch).toBe(false);
    const lite = fake.requests.filter((r) => r.path === "/pan-lite");
    expect(lite).toHaveLength(2);
    expect(lite[0]!.body).toMatchObject({ pan: "ABCPK1234F", name: "RAHUL KUMAR SHARMA", dob: "1990-01-01" });
    // A PAN not on record is not asked about its date.
    fake.fail("pan", "not-on-record", { times: 1 });
    expect((await live.pan.lookup("ABCPK1234F", { dob: "1990-01-01" })).dobMatch).toBeNull();
    expect(fake.count("/pan-lite")).toBe(2);
  });

  it("maps the vendor's status codes by the documented table", () => {
    const cases: [Record<string, unknown>, string, string | null][] = [
      [{ pan_status: "VALID", registered_name: "A B" }, "VALID", null],
      [{ pan_status: "E", registered_name: "A B" }, "VALID", null],
      [{ pan_status: "ED", registered_name: "A B" }, "VALID", "DECEASED"],
      [{ pan_status: "X", registered_name: "A B" }, "DEACTIVATED", null],
      [{ pan_status: "DEACTIVATED", registered_name: "A B" }, "DEACTIVATED", null],
      [{ pan_status: "D" }, "DELETED", null],
      [{ pan_status: "N" }, "INVALID", null],
      [{ pan_status: "F" }, "INVALID", null],
      [{ valid: false }, "INVALID", null],
      [{ valid: true, registered_name: "A B" }, "VALID", null],
    ];
    for (const [body, status, remarks] of cases) expect(panRecordFromAnswer("ABCPK1234F", body), JSON.stringify(body)).toMatchObject({ status, remarks });
    expect(panRecordFromAnswer("ABCPK1234F", { pan_status: "X", aadhaar_seeding_status: "NA" }).aadhaarSeedingStatus).toBe("NOT_LINKED");
    expect(() => panRecordFromAnswer("ABCPK1234F", { message: "?" })).toThrow(/could not be read/);
  });
});

describe("PAN in bulk", () => {
  const bulkOf = () => live.pan.bulk!;
  /** The vendor's own PAN answers (its reference's examples), and a few written out by hand for the status codes they lack. */
  function documentedRecords(): Record<string, unknown>[] {
    const doc = (file: string) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, file), "utf8")) as Record<string, any>;
    const single = doc("pan-verify.json").components.responses.GetVerifyPanResponse.content["application/json"].examples;
    const bulk = doc("pan-bulk-get-status.json").components.responses.GetPanBulkResponse.content["application/json"].examples.SUCCESS.value.entries;
    return [
      ...Object.values(single as Record<string, { value: Record<string, unknown> }>).map((e) => e.value),
      ...(bulk as Record<string, unknown>[]),
      { pan: "ABCPD4321K", registered_name: "Late Ravi Kumar", valid: true, pan_status: "ED", aadhaar_seeding_status: "R", name_match_score: "72.50" },
      { pan: "AAACT2727Q", registered_name: "Tata Steel Limited", valid: true, pan_status: "X", aadhaar_seeding_status: "NA" },
      { pan: "ABCPE1111L", valid: false, pan_status: "D", name_match_score: "" },
      { pan: "ABCPF2222M", registered_name: "Meera Nair", valid: true, aadhaar_seeding_status: "N" },
    ];
  }

  it("reads every entry of a bulk answer exactly as a single call's answer is read, on the vendor's documented records", async () => {
    const filler = "ABCPZ9999Z";
    for (const [n, record] of documentedRecords().entries()) {
      const pan = String(record.pan);
      fake.panAnswers.set(pan, record);
      const name = typeof record.name_provided === "string" ? record.name_provided : null;
      const single = await live.pan.lookup(pan, { name });
      const id = `parakh_bulk_map_${n}`;
      const sent = await bulkOf().submit(id, [
        { pan, name },
        { pan: filler, name: null },
      ]);
      expect(sent).toMatchObject({ sent: true });
      const read = await bulkOf().status(id, (sent as { reference: string | null }).reference);
      expect(read.state).toBe("ANSWERED");
      const entry = (read as { entries: { pan: string | null; record: unknown }[] }).entries.find((e) => e.pan === pan);
      // The bulk reading is the connector's; the single call went through the family's router, which names the vendor.
      expect({ ...(entry?.record as object), vendor: "cashfree" }, JSON.stringify(record)).toEqual(single);
      fake.panAnswers.delete(pan);
    }
  });

  it("sends each PAN with its name (none where the item has none), reads 'being processed' as pending, and a left-out or failed entry as no record", async () => {
    fake.bulkDelayMs = 60_000;
    const sent = await bulkOf().submit("parakh_bulk_1", [
      { pan: "ABCPK1234F", name: "Rahul Sharma" },
      { pan: "ABCPK1235F", name: null },
      { pan: "ABCPK1236F", name: null },
      { pan: "ABCPK1237F", name: null },
    ]);
    expect(sent).toEqual({ sent: true, reference: expect.stringMatching(/^\d+$/) });
    const request = fake.requests.find((r) => r.path === "/pan/bulk")!;
    expect(request.body).toEqual({
      bulk_verification_id: "parakh_bulk_1",
      entries: [{ pan: "ABCPK1234F", name: "Rahul Sharma" }, { pan: "ABCPK1235F" }, { pan: "ABCPK1236F" }, { pan: "ABCPK1237F" }],
    });
    expect(request.headers["x-api-version"]).toBeTruthy();
    expect(await bulkOf().status("parakh_bulk_1", null)).toEqual({ state: "PENDING" });
    fake.bulks.get("parakh_bulk_1")!.readyAt = 0;
    fake.bulkLeftOut.add("ABCPK1236F");
    fake.bulkFailed.add("ABCPK1237F");
    const read = await bulkOf().status("parakh_bulk_1", (sent as { reference: string }).reference);
    expect(read.state).toBe("ANSWERED");
    const entries = (read as { entries: { pan: string | null; nameProvided: string | null; record: { status: string } | null }[] }).entries;
    expect(entries.map((e) => e.pan)).toEqual(["ABCPK1234F", "ABCPK1235F", "ABCPK1237F"]);
    expect(entries[0]).toMatchObject({ nameProvided: "Rahul Sharma", record: { status: "VALID", sourceNameMatchScore: 100 } });
    expect(entries[2]!.record).toBeNull();
    // An id the vendor never took.
    expect(await bulkOf().status("parakh_bulk_unknown", null)).toEqual({ state: "UNKNOWN" });
  });

  it("tells a submission the vendor may have taken (a 500, a timeout) from one it did not (a 503 after its retries, a 400)", async () => {
    const entries = [
      { pan: "ABCPK1234F", name: null },
      { pan: "ABCPK1235F", name: null },
    ];
    fake.fail("pan", "lost-answer", { times: 1 });
    expect(await bulkOf().submit("parakh_bulk_a", entries)).toMatchObject({ sent: false, maybe: true });
    // The vendor took it: read back, it answers.
    expect((await bulkOf().status("parakh_bulk_a", null)).state).toBe("ANSWERED");
    fake.fail("pan", "503");
    expect(await bulkOf().submit("parakh_bulk_b", entries)).toMatchObject({ sent: false, maybe: false });
    // The 503 was retried (it provably did not take effect): three tries.
    expect(fake.requests.filter((r) => r.method === "POST" && r.path === "/pan/bulk")).toHaveLength(1 + 3);
    fake.clear();
    expect(await bulkOf().submit("bad-id", entries)).toMatchObject({ sent: false, maybe: false });
    fake.fail("pan", "hang", { times: 1 });
    expect(await bulkOf().submit("parakh_bulk_c", entries)).toMatchObject({ sent: false, maybe: true });
  });
});

describe("EPFO", () => {
  it("maps the latest employment, the history newest first, and nulls for what the vendor does not give", async () => {
    const member = await live.epfo.byUan("100200300400");
    expect(member).toMatchObject({
      uan: "100200300400",
      pf_number: "MH/BAN/0006423/000/0054321",
      member_name: "RAHUL KUMAR SHARMA",
      employer: "Cashfree India Private Ltd",
      member_status: "ACTIVE",
      last_contribution_month: null,
      date_of_exit: null,
    });
    expect(member!.employment_history.map((e) => [e.pf_number, e.establishment_id, e.date_of_joining, e.date_of_exit, e.is_current])).toEqual([
      ["MH/BAN/0006423/000/0054321", "MHBAN0006423", "2021-08-02", null, true],
      ["KN/BNG/0012345/000/0012345", "KNBNG0012345", "2019-04-01", "2021-06-30", false],
    ]);
    expect(fake.requests[0]!.body).toMatchObject({ uan: "100200300400" });
  });

  it("UAN not on record → null (the service answers 404 UAN_NOT_FOUND)", async () => {
    fake.fail("epfo", "not-on-record");
    expect(await live.epfo.byUan("100200300400")).toBeNull();
  });

  it("a lookup by PF number is 422 LOOKUP_NOT_SUPPORTED without a vendor call", async () => {
    const error = await refusal(() => live.epfo.byPfNumber("MH/BAN/0000064/000/0000123"));
    expect(error.code).toBe("LOOKUP_NOT_SUPPORTED");
    expect(error.status).toBe(422);
    expect(fake.count()).toBe(0);
  });

  it("tolerates the quirks", async () => {
    fake.fail("epfo", "quirks");
    expect((await live.epfo.byUan("100200300400"))!.member_status).toBe("ACTIVE");
  });
});

describe("Aadhaar OTP", () => {
  it("sends the OTP, hands back the vendor's ref_id as the reference, and verifies into the eKYC record", async () => {
    const sent = await live.aadhaar.sendOtp("999941057058");
    expect(sent.reference).toMatch(/^\d+$/);
    // The vendor's answer names no mobile digits, so none are invented.
    expect(sent.mobileLast4).toBe("");
    const result = await live.aadhaar.submitOtp("999941057058", sent.reference, FAKE_OTP);
    expect(fake.requests.at(-1)!.body).toEqual({ otp: FAKE_OTP, ref_id: sent.reference });
    expect(result.kind).toBe("verified");
    if (result.kind !== "verified") return;
    expect(result.ekyc).toMatchObject({
      name: "RAHUL KUMAR SHARMA",
      dob: "1994-03-15",
      yearOfBirth: "1994",
      gender: "M",
      careOf: "S/O SURESH SHARMA",
      address: {
        house: "12",
        street: "MG Road",
        locality: "Kothrud",
        postOffice: "Kothrud",
        vtc: "Pune",
        district: "Pune",
        state: "Maharashtra",
        pincode: "411038",
      },
      fullAddress: "12, MG Road, Near Bus Stand, Kothrud, Pune, Pune City, Maharashtra, India, 411038",
    });
    expect(JSON.stringify(result)).not.toMatch(/xml|share_code|mobile_hash/i);
  });

  it("a wrong OTP is a wrong-OTP answer; an expired one is 410 OTP_EXPIRED", async () => {
    const sent = await live.aadhaar.sendOtp("999941057058");
    expect(await live.aadhaar.submitOtp("999941057058", sent.reference, "000000")).toEqual({ kind: "wrong-otp" });
    fake.expireOtp(sent.reference);
    const error = await refusal(() => live.aadhaar.submitOtp("999941057058", sent.reference, FAKE_OTP));
    expect(error.code).toBe("OTP_EXPIRED");
    expect(error.status).toBe(410);
  });

  it("no linked mobile → 422 AADHAAR_MOBILE_NOT_LINKED; an unknown number → INVALID_AADHAAR", async () => {
    fake.aadhaarWithoutMobile.add("999941057058");
    expect((await refusal(() => live.aadhaar.sendOtp("999941057058"))).code).toBe("AADHAAR_MOBILE_NOT_LINKED");
    fake.fail("aadhaar", "not-on-record");
    expect((await refusal(() => live.aadhaar.sendOtp("999971057059"))).code).toBe("INVALID_AADHAAR");
  });

  it("tolerates the quirks: a numeric ref_id, year and pincode, a dotted date, a spelled-out gender", async () => {
    fake.fail("aadhaar", "quirks");
    const sent = await live.aadhaar.sendOtp("999941057058");
    const result = await live.aadhaar.submitOtp("999941057058", sent.reference, FAKE_OTP);
    expect(result).toMatchObject({ kind: "verified", ekyc: { dob: "1994-03-15", yearOfBirth: "1994", gender: "M", address: { pincode: "411038" } } });
  });
});

describe("bank", () => {
  it("maps a valid account and one that does not exist", async () => {
    expect(await live.bank.verifyAccount("026291800001191", "YESB0000262")).toEqual({
      accountExists: true,
      accountStatus: "VALID",
      nameAtBank: "RAHUL KUMAR SHARMA",
      bankReference: "404223241811",
      ifscDetails: { bank: "YES BANK", branch: "SANTACRUZ, MUMBAI", city: "MUMBAI", state: null },
      vendor: "cashfree",
    });
    expect(fake.requests[0]!.body).toEqual({ bank_account: "026291800001191", ifsc: "YESB0000262" });
    fake.fail("bank", "not-on-record");
    expect(await live.bank.verifyAccount("026291800001191", "YESB0000262")).toMatchObject({ accountExists: false, accountStatus: "INVALID", nameAtBank: null });
  });

  it("tolerates the quirks and maps the status codes by the documented table", async () => {
    fake.fail("bank", "quirks");
    expect((await live.bank.verifyAccount("026291800001191", "YESB0000262")).accountStatus).toBe("VALID");
    const row = (code: string) =>
      bankCheckFromAnswer({ account_status: code === "ACCOUNT_IS_VALID" ? "VALID" : "INVALID", account_status_code: code, name_at_bank: "A B" });
    expect(row("ACCOUNT_BLOCKED")).toMatchObject({ accountStatus: "BLOCKED", accountExists: true });
    expect(row("INVALID_IFSC_FAIL")).toMatchObject({ accountStatus: "INVALID", accountExists: false, nameAtBank: null });
    expect(row("NRE_ACCOUNT_FAIL")).toMatchObject({ accountStatus: "INVALID", accountExists: false });
  });
});

describe("the vendor's loose values", () => {
  it("reads scores and dates in every form the reference shows", () => {
    expect(score("90.00")).toBe(90);
    expect(score(85)).toBe(85);
    expect(score("")).toBeNull();
    expect(score(null)).toBeNull();
    expect(isoDate("2020-02-21")).toBe("2020-02-21");
    expect(isoDate("02-02-1995")).toBe("1995-02-02");
    expect(isoDate("01/02/1990")).toBe("1990-02-01");
    expect(isoDate("01-01-2000.")).toBe("2000-01-01");
    expect(isoDate("31-02-2000")).toBeNull();
  });
});

describe("live verification settings", () => {
  const base = () => settingsEnv("parakh-live-");

  it("default to no live provider, the vendor's production host, 8 s, 64 in flight and no rate limit", () => {
    expect(configFrom(base()).liveVerification).toEqual({
      provider: "none",
      vendors: { pan: [], epfo: [], aadhaar: [], bank: [] },
      cashfree: { baseUrl: "https://api.cashfree.com/verification", clientId: "", clientSecret: "" },
      setu: { baseUrl: "https://dg.setu.co", clientId: "", clientSecret: "", panProductInstanceId: "", bankProductInstanceId: "" },
      firstVendorShare: 0.6,
      timeoutMs: 8000,
      maxConcurrency: 64,
      maxRps: 0,
    });
  });

  it("refuse to start with cashfree chosen and a credential missing, naming it", () => {
    expect(() => configFrom({ ...base(), LIVE_VERIFICATION_PROVIDER: "cashfree", CASHFREE_VERIFICATION_CLIENT_ID: "id" })).toThrow(
      /CASHFREE_VERIFICATION_CLIENT_SECRET: required when LIVE_VERIFICATION_PROVIDER=cashfree/,
    );
    expect(() => configFrom({ ...base(), LIVE_VERIFICATION_PROVIDER: "cashfree" })).toThrow(/CASHFREE_VERIFICATION_CLIENT_ID/);
  });

  it("refuse a plain-http base URL unless it is a loopback address", () => {
    const creds = { LIVE_VERIFICATION_PROVIDER: "cashfree", CASHFREE_VERIFICATION_CLIENT_ID: "id", CASHFREE_VERIFICATION_CLIENT_SECRET: "secret" };
    expect(() => configFrom({ ...base(), ...creds, CASHFREE_VERIFICATION_BASE_URL: "http://vendor.example.com/verification" })).toThrow(
      /CASHFREE_VERIFICATION_BASE_URL: must be https/,
    );
    for (const url of ["http://127.0.0.1:4010", "http://localhost:4010/verification", "http://[::1]:4010"]) {
      expect(configFrom({ ...base(), ...creds, CASHFREE_VERIFICATION_BASE_URL: url }).liveVerification.cashfree.baseUrl).toBe(url.replace(/\/$/, ""));
    }
  });
});
