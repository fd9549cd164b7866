import { describe, expect, it } from "vitest";
import { isValidAadhaar, withVerhoeffDigit } from "@/lib/aadhaar";
import { formatPfNumber, isValidUan, parsePfNumber } from "@/lib/epfo";
import { PAN_CATEGORIES, type PanCategoryLetter } from "@/lib/pan";
import { AppError } from "@/server/errors";
import { SANDBOX_AADHAAR_PHOTO, SANDBOX_PLACES, sandboxAadhaarProvider } from "@/server/providers/sandbox/aadhaar";
import type { AadhaarEkyc } from "@/server/providers/aadhaar/types";
import { SANDBOX_BANK_NAMES, sandboxBankProvider } from "@/server/providers/sandbox/bank";
import { createSandboxEpfoProvider, sandboxEpfoProvider } from "@/server/providers/sandbox/epfo";
import type { EpfoMember } from "@/server/providers/epfo/types";
import { sandboxPanProvider } from "@/server/providers/sandbox/pan";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const NAME_TEXT = /^[A-Z][A-Z&' -]*[A-Z]$/;

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("expected a rejection");
}

describe("sandbox PAN provider", () => {
  it("ABCPK1234F is a VALID individual, Aadhaar linked, surname starting with K", async () => {
    const r = await sandboxPanProvider.lookup("ABCPK1234F");
    expect(r.pan).toBe("ABCPK1234F");
    expect(r.status).toBe("VALID");
    expect(r.category).toBe("INDIVIDUAL");
    expect(r.aadhaarSeedingStatus).toBe("LINKED");
    expect(r.remarks).toBeNull();
    const tokens = r.name!.split(" ");
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    expect(tokens.length).toBeLessThanOrEqual(3);
    expect(tokens.at(-1)!.startsWith("K")).toBe(true);
  });

  it("answers at once (lookupLocal) exactly as lookup does, the source failures included", async () => {
    for (const pan of ["ABCPK1234F", "ABCCK9991F", "ABCPK9992F", "ABCPM9993F", "ABCPK9994F", "AAAHA0001Z"]) {
      expect(sandboxPanProvider.lookupLocal!(pan)).toEqual(await sandboxPanProvider.lookup(pan));
    }
    for (const [pan, code] of [
      ["ABCPK9997F", "SOURCE_TIMEOUT"],
      ["ABCPK9998F", "SOURCE_UNAVAILABLE"],
    ]) {
      expect(() => sandboxPanProvider.lookupLocal!(pan!)).toThrow(expect.objectContaining({ code }));
      expect((await rejection(sandboxPanProvider.lookup(pan!))).code).toBe(code);
    }
  });

  it("is deterministic", async () => {
    for (const pan of ["ABCPK1234F", "ZZZCX0001A", "QWEHR5555Q", "ABCPK9992F"]) {
      expect(await sandboxPanProvider.lookup(pan)).toEqual(await sandboxPanProvider.lookup(pan));
    }
  });

  it("different PANs give varied names", async () => {
    const names = new Set<string>();
    for (let i = 1; i <= 200; i++) {
      names.add((await sandboxPanProvider.lookup(`ABCPS${String(i).padStart(4, "0")}Z`)).name!);
    }
    expect(names.size).toBeGreaterThan(100);
  });

  it("individual surnames start with the 5th letter, for every letter A–Z", async () => {
    for (const letter of LETTERS) {
      for (let i = 0; i < 25; i++) {
        const pan = `AB${LETTERS[i % 26]}P${letter}${String(1000 + i * 37).padStart(4, "0")}${LETTERS[(i * 7) % 26]}`;
        const r = await sandboxPanProvider.lookup(pan);
        expect(r.status).toBe("VALID");
        expect(r.name, pan).toMatch(/^[A-Z]+( [A-Z]+){1,2}$/);
        expect(r.name!.split(" ").at(-1)!.charAt(0), `${pan} → ${r.name}`).toBe(letter);
      }
    }
  });

  const suffix: Record<string, RegExp> = {
    COMPANY: / (PRIVATE LIMITED|LIMITED)$/,
    HUF: / HUF$/,
    FIRM: / (& SONS|ENTERPRISES|& ASSOCIATES|BROTHERS|& CO|TRADING COMPANY)$/,
    AOP: / (CO-OPERATIVE HOUSING SOCIETY|RESIDENTS WELFARE ASSOCIATION|CONSORTIUM|JOINT VENTURE)$/,
    TRUST: / TRUST$/,
    BOI: / (CO-OWNERS|LEGAL HEIRS)$/,
    LOCAL_AUTHORITY: / (MUNICIPAL CORPORATION|MUNICIPAL COUNCIL|NAGAR PANCHAYAT|ZILLA PARISHAD|CANTONMENT BOARD)$/,
    ARTIFICIAL_JURIDICAL_PERSON: / (UNIVERSITY|TEMPLE DEVASTHANAM|INSTITUTE OF TECHNOLOGY)$/,
    GOVERNMENT: / (DISTRICT TREASURY OFFICE|DIVISION PUBLIC WORKS DEPARTMENT|REGIONAL TRANSPORT OFFICE|COLLECTORATE)$/,
  };

  it("non-individuals: category from the 4th letter, entity name starting with the 5th letter, Aadhaar not applicable", async () => {
    for (const catLetter of Object.keys(PAN_CATEGORIES) as PanCategoryLetter[]) {
      if (catLetter === "P") continue;
      const category = PAN_CATEGORIES[catLetter];
      for (const letter of LETTERS) {
        for (const serial of ["1234", "0042", "9994"]) {
          const pan = `XYZ${catLetter}${letter}${serial}K`;
          const r = await sandboxPanProvider.lookup(pan);
          expect(r.category).toBe(category);
          expect(r.status).toBe("VALID");
          expect(r.aadhaarSeedingStatus).toBe("NOT_APPLICABLE");
          expect(r.name, pan).toMatch(NAME_TEXT);
          expect(r.name!.charAt(0), `${pan} → ${r.name}`).toBe(letter);
          expect(r.name, `${pan} → ${r.name}`).toMatch(suffix[category]!);
        }
      }
    }
  });

  it("serial 9991 → INVALID, no name", async () => {
    for (const pan of ["ABCPK9991F", "ABCCK9991F"]) {
      const r = await sandboxPanProvider.lookup(pan);
      expect(r.status).toBe("INVALID");
      expect(r.name).toBeNull();
      expect(r.aadhaarSeedingStatus).toBe("NOT_APPLICABLE");
    }
    expect((await sandboxPanProvider.lookup("ABCCK9991F")).category).toBe("COMPANY");
  });

  it("serial 9992 → DEACTIVATED, 9993 → DELETED, with the holder's name", async () => {
    const d = await sandboxPanProvider.lookup("ABCPK9992F");
    expect(d.status).toBe("DEACTIVATED");
    expect(d.name!.split(" ").at(-1)!.charAt(0)).toBe("K");
    expect(d.aadhaarSeedingStatus).toBe("NOT_LINKED");
    const x = await sandboxPanProvider.lookup("ABCPM9993F");
    expect(x.status).toBe("DELETED");
    expect(x.name!.split(" ").at(-1)!.charAt(0)).toBe("M");
  });

  it("serial 9994 → VALID individual with Aadhaar not linked", async () => {
    const r = await sandboxPanProvider.lookup("ABCPK9994F");
    expect(r.status).toBe("VALID");
    expect(r.category).toBe("INDIVIDUAL");
    expect(r.aadhaarSeedingStatus).toBe("NOT_LINKED");
    expect(r.name).not.toBeNull();
  });

  it("serial 9997 → SOURCE_TIMEOUT, 9998 → SOURCE_UNAVAILABLE, with Retry-After", async () => {
    const t = await rejection(sandboxPanProvider.lookup("ABCPK9997F"));
    expect(t.code).toBe("SOURCE_TIMEOUT");
    expect(t.status).toBe(504);
    expect(t.retryAfterSeconds).toBe(5);
    const u = await rejection(sandboxPanProvider.lookup("ABCCK9998F"));
    expect(u.code).toBe("SOURCE_UNAVAILABLE");
    expect(u.status).toBe(503);
    expect(u.retryAfterSeconds).toBe(30);
  });

  it("other 999x serials are ordinary", async () => {
    for (const serial of ["9990", "9995", "9996", "9999"]) {
      const r = await sandboxPanProvider.lookup(`ABCPK${serial}F`);
      expect(r.status).toBe("VALID");
      expect(r.aadhaarSeedingStatus).toBe("LINKED");
    }
  });

  it("refuses a PAN that is not normalized and valid", async () => {
    expect((await rejection(sandboxPanProvider.lookup("abcpk1234f"))).code).toBe("INVALID_PAN");
    expect((await rejection(sandboxPanProvider.lookup("ABCPK0000F"))).code).toBe("INVALID_PAN");
  });
});

describe("sandbox EPFO provider", () => {
  const NOW = new Date("2026-03-15T10:00:00Z");
  const epfo = createSandboxEpfoProvider({ now: () => NOW });
  const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d)$/;
  const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
  // Only a live source may leave the month out; the sandbox always gives it.
  const monthIndex = (ym: string | null) => Number(ym!.slice(0, 4)) * 12 + Number(ym!.slice(5, 7)) - 1;

  function checkConsistent(m: EpfoMember, now: Date = NOW): void {
    const h = m.employment_history;
    expect(h.length).toBeGreaterThanOrEqual(1);
    expect(h.length).toBeLessThanOrEqual(3);
    expect(isValidUan(m.uan)).toBe(true);
    expect(m.member_name).toMatch(/^[A-Z]+( [A-Z]+){1,2}$/);
    // Top level describes the newest employment.
    expect(m.pf_number).toBe(h[0]!.pf_number);
    expect(m.employer).toBe(h[0]!.employer);
    expect(m.last_contribution_month).toBe(h[0]!.last_contribution_month);
    expect(m.date_of_exit).toBe(h[0]!.date_of_exit);
    expect(new Set(h.map((e) => e.employer)).size).toBe(h.length);
    const nowMonth = now.getUTCFullYear() * 12 + now.getUTCMonth();
    for (let i = 0; i < h.length; i++) {
      const e = h[i]!;
      const parts = parsePfNumber(e.pf_number)!;
      expect(parts).not.toBeNull();
      expect(formatPfNumber(parts)).toBe(e.pf_number);
      expect(e.establishment_id).toBe(`${parts.region}${parts.office}${parts.establishment}`);
      expect(e.employer).toMatch(/^[A-Z][A-Z ]+ (PVT LTD|PRIVATE LIMITED|LIMITED|LLP)$/);
      expect(e.date_of_joining).toMatch(DATE);
      expect(e.last_contribution_month).toMatch(MONTH);
      expect(monthIndex(e.last_contribution_month)).toBeGreaterThanOrEqual(monthIndex(e.date_of_joining));
      expect(monthIndex(e.last_contribution_month)).toBeLessThan(nowMonth);
      if (e.date_of_exit !== null) {
        expect(e.date_of_exit).toMatch(DATE);
        expect(e.date_of_exit > e.date_of_joining).toBe(true);
        expect(e.is_current).toBe(false);
        // Last contribution is the exit month or the one before.
        const gap = monthIndex(e.date_of_exit) - monthIndex(e.last_contribution_month);
        expect(gap === 0 || gap === 1).toBe(true);
      }
      if (i > 0) {
        expect(e.date_of_exit).not.toBeNull();
        // Newest first, and each exit is before the next (newer) joining.
        expect(e.date_of_exit! < h[i - 1]!.date_of_joining).toBe(true);
        expect(e.is_current).toBe(false);
      }
    }
    if (m.member_status === "ACTIVE") {
      expect(h[0]!.is_current).toBe(true);
      expect(h[0]!.date_of_exit).toBeNull();
      expect(monthIndex(m.last_contribution_month)).toBe(nowMonth - 1);
    }
  }

  it("is deterministic for a UAN", async () => {
    const a = await epfo.byUan("100200300400");
    const b = await createSandboxEpfoProvider({ now: () => new Date(NOW) }).byUan("100200300400");
    expect(a).toEqual(b);
    expect(a!.uan).toBe("100200300400");
  });

  it("every ordinary UAN is ACTIVE with 1–3 consistent employments; all three counts occur", async () => {
    const counts = new Set<number>();
    for (let i = 0; i < 400; i++) {
      const uan = String(100_000_000_000 + i * 104_729).padStart(12, "0");
      if (/999[1238]$/.test(uan)) continue;
      const m = (await epfo.byUan(uan))!;
      expect(m, uan).not.toBeNull();
      expect(m.member_status).toBe("ACTIVE");
      expect(m.date_of_exit).toBeNull();
      expect(m.last_contribution_month).toBe("2026-02");
      checkConsistent(m);
      counts.add(m.employment_history.length);
    }
    expect([...counts].sort()).toEqual([1, 2, 3]);
  });

  it("ACTIVE last contribution is the month before now (across a year end)", async () => {
    const jan = createSandboxEpfoProvider({ now: () => new Date("2027-01-03T00:00:00Z") });
    const m = (await jan.byUan("100200300400"))!;
    expect(m.last_contribution_month).toBe("2026-12");
    const { last_contribution_month: _a, employment_history: h1, ...rest1 } = m;
    const { last_contribution_month: _b, employment_history: h2, ...rest2 } = (await epfo.byUan("100200300400"))!;
    // Only the running month moves with the clock.
    expect(rest1).toEqual(rest2);
    expect(h1.map((e) => e.date_of_joining)).toEqual(h2.map((e) => e.date_of_joining));
  });

  it("the default provider uses the real clock", async () => {
    const m = (await sandboxEpfoProvider.byUan("100200300400"))!;
    const now = new Date();
    const prev = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    expect(m.last_contribution_month).toBe(prev.toISOString().slice(0, 7));
  });

  it("UAN ending 9991 → not found", async () => {
    expect(await epfo.byUan("100200309991")).toBeNull();
    expect(await epfo.byUan("000000009991")).toBeNull();
  });

  it("UAN ending 9992 → EXITED with date_of_exit", async () => {
    for (const uan of ["100200309992", "555555559992", "123456789992"]) {
      const m = (await epfo.byUan(uan))!;
      expect(m.member_status).toBe("EXITED");
      expect(m.date_of_exit).toMatch(DATE);
      expect(m.employment_history.every((e) => !e.is_current)).toBe(true);
      const gap = monthIndex(m.date_of_exit!) - monthIndex(m.last_contribution_month);
      expect(gap === 0 || gap === 1).toBe(true);
      checkConsistent(m);
    }
  });

  it("UAN ending 9993 → INACTIVE: no exit date, nothing paid in for over 36 months", async () => {
    for (const uan of ["100200309993", "555555559993", "123456789993"]) {
      const m = (await epfo.byUan(uan))!;
      expect(m.member_status).toBe("INACTIVE");
      expect(m.date_of_exit).toBeNull();
      expect(m.employment_history[0]!.date_of_exit).toBeNull();
      expect(m.employment_history[0]!.is_current).toBe(false);
      const nowMonth = NOW.getUTCFullYear() * 12 + NOW.getUTCMonth();
      expect(nowMonth - monthIndex(m.last_contribution_month)).toBeGreaterThan(36);
      checkConsistent(m);
    }
  });

  it("UAN ending 9998 → SOURCE_UNAVAILABLE", async () => {
    const err = await rejection(epfo.byUan("100200309998"));
    expect(err.code).toBe("SOURCE_UNAVAILABLE");
    expect(err.retryAfterSeconds).toBe(30);
  });

  it("refuses a malformed UAN", async () => {
    expect((await rejection(epfo.byUan("12345"))).code).toBe("INVALID_UAN");
  });

  it("a PF number answers as the account it names, in either input form", async () => {
    const slash = "MH/BAN/0000064/000/0000123";
    const a = (await epfo.byPfNumber(slash))!;
    const b = (await epfo.byPfNumber("mhban00000640000000123"))!;
    const c = (await epfo.byPfNumber(parsePfNumber(slash)!))!;
    expect(a).toEqual(b);
    expect(a).toEqual(c);
    expect(a.pf_number).toBe(slash);
    expect(a.employment_history[0]!.pf_number).toBe(slash);
    expect(a.employment_history[0]!.establishment_id).toBe("MHBAN0000064");
    expect(a.member_status).toBe("ACTIVE");
    expect(a.uan).toMatch(/^\d{12}$/);
    expect(a.uan).not.toMatch(/999\d$/);
    checkConsistent(a);
  });

  it("PF lookups: derived UANs are valid, never special, and the employer belongs to the establishment", async () => {
    const employers = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const member = String(1 + i * 31_337).padStart(7, "0");
      if (/999[1238]$/.test(member)) continue;
      const pf = `MH/BAN/0000064/000/${member}`;
      const m = (await epfo.byPfNumber(pf))!;
      expect(m.pf_number).toBe(pf);
      expect(m.uan).toMatch(/^\d{12}$/);
      expect(m.uan).not.toMatch(/999\d$/);
      expect(m.member_status).toBe("ACTIVE");
      checkConsistent(m);
      employers.add(m.employer);
    }
    expect(employers.size).toBe(1);
  });

  it("PF member digits ending 9991/9992/9993/9998 mirror the UAN outcomes", async () => {
    expect(await epfo.byPfNumber("MH/BAN/0000064/000/0009991")).toBeNull();
    const exited = (await epfo.byPfNumber("DLCPM12345670010009992"))!;
    expect(exited.member_status).toBe("EXITED");
    expect(exited.pf_number).toBe("DL/CPM/1234567/001/0009992");
    expect(exited.date_of_exit).toMatch(DATE);
    checkConsistent(exited);
    const inactive = (await epfo.byPfNumber("KN/BNG/0000001/000/1239993"))!;
    expect(inactive.member_status).toBe("INACTIVE");
    expect(inactive.date_of_exit).toBeNull();
    checkConsistent(inactive);
    const err = await rejection(epfo.byPfNumber("MH/BAN/0000064/000/0009998"));
    expect(err.code).toBe("SOURCE_UNAVAILABLE");
  });

  it("refuses a malformed PF number", async () => {
    expect((await rejection(epfo.byPfNumber("MH/BAN/64/000/123"))).code).toBe("INVALID_PF_NUMBER");
  });

  it("generated PF numbers in a history can be looked up themselves", async () => {
    const m = (await epfo.byUan("100200300401"))!;
    for (const e of m.employment_history) {
      const byPf = (await epfo.byPfNumber(e.pf_number))!;
      expect(byPf).not.toBeNull();
      expect(byPf.pf_number).toBe(e.pf_number);
      expect(byPf.employer).toBe(e.employer);
    }
  });
});

describe("sandbox Aadhaar provider", () => {
  const OTP = "123456";
  const PERSON = /^[A-Z]+( [A-Z]+){1,2}$/;

  async function ekyc(n: string): Promise<AadhaarEkyc> {
    const sent = await sandboxAadhaarProvider.sendOtp(n);
    const r = await sandboxAadhaarProvider.submitOtp(n, sent.reference, OTP);
    if (r.kind !== "verified") throw new Error(`${n} not verified`);
    return r.ekyc;
  }

  /** Valid numbers spread over the space, none with a special serial. */
  const ordinary = Array.from({ length: 300 }, (_, i) => withVerhoeffDigit(String(20_000_000_000 + i * 263_167_001).slice(0, 11))).filter(
    (n) => !["9991", "9992", "9998"].includes(n.slice(7, 11)),
  );

  it("the happy fixtures send an OTP to a mobile ending in four digits and verify with 123456", async () => {
    for (const n of ["234567890009", "999999990019"]) {
      const sent = await sandboxAadhaarProvider.sendOtp(n);
      expect(sent.mobileLast4).toMatch(/^\d{4}$/);
      expect(sent.reference).toMatch(/^uidai_[0-9a-f]{16}$/);
      const r = await sandboxAadhaarProvider.submitOtp(n, sent.reference, OTP);
      expect(r.kind).toBe("verified");
    }
  });

  it("is deterministic: same number, same mobile and record, across separate OTP requests", async () => {
    for (const n of ["234567890009", "999999990019", ...ordinary.slice(0, 20)]) {
      const a = await sandboxAadhaarProvider.sendOtp(n);
      const b = await sandboxAadhaarProvider.sendOtp(n);
      expect(a.mobileLast4).toBe(b.mobileLast4);
      expect(a.reference).not.toBe(b.reference);
      expect(await ekyc(n)).toEqual(await ekyc(n));
    }
  });

  it("submitOtp needs no memory of sendOtp: any reference verifies", async () => {
    const r = await sandboxAadhaarProvider.submitOtp("234567890009", "uidai_from_before_a_restart", OTP);
    expect(r.kind).toBe("verified");
  });

  it("a wrong OTP is wrong-otp, never an error", async () => {
    const sent = await sandboxAadhaarProvider.sendOtp("234567890009");
    for (const otp of ["000000", "654321", "12345", "1234567", "", " 123456"]) {
      expect(await sandboxAadhaarProvider.submitOtp("234567890009", sent.reference, otp)).toEqual({ kind: "wrong-otp" });
    }
  });

  it("every record is complete and consistent", async () => {
    const places = new Set(SANDBOX_PLACES.map((p) => `${p.pincode}|${p.vtc}|${p.district}|${p.state}`));
    for (const n of ordinary) {
      const e = await ekyc(n);
      expect(e.name, n).toMatch(PERSON);
      expect(e.dob).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      // A real calendar date in range, and the year agrees.
      expect(new Date(`${e.dob}T00:00:00Z`).toISOString().slice(0, 10)).toBe(e.dob);
      expect(e.yearOfBirth).toBe(e.dob.slice(0, 4));
      expect(Number(e.yearOfBirth)).toBeGreaterThanOrEqual(1960);
      expect(Number(e.yearOfBirth)).toBeLessThanOrEqual(2004);
      expect(["M", "F"]).toContain(e.gender);
      const relation = e.gender === "M" ? /^S\/O / : /^(D|W)\/O /;
      expect(e.careOf, n).toMatch(relation);
      const relative = e.careOf.slice(4);
      expect(relative).toMatch(PERSON);
      // Same family name, another person.
      expect(relative.split(" ").at(-1)).toBe(e.name.split(" ").at(-1));
      expect(relative.split(" ")[0]).not.toBe(e.name.split(" ")[0]);
      const a = e.address;
      for (const key of ["house", "vtc", "postOffice", "subDistrict", "district", "state", "country", "pincode"] as const)
        expect(a[key], `${n} ${key}`).not.toBe("");
      expect(a.country).toBe("India");
      expect(a.pincode).toMatch(/^[1-9]\d{5}$/);
      expect(places.has(`${a.pincode}|${a.vtc}|${a.district}|${a.state}`)).toBe(true);
      const parts = Object.values(a).filter((p) => p !== "");
      expect(e.fullAddress.startsWith(`${a.house}, `)).toBe(true);
      expect(e.fullAddress.endsWith(`, ${a.state}, India, ${a.pincode}`)).toBe(true);
      for (const part of parts) expect(e.fullAddress).toContain(part);
      expect(e.fullAddress).not.toMatch(/, ,|^,|,$/);
      expect(e.photo).toBe(SANDBOX_AADHAAR_PHOTO);
    }
  });

  it("records vary: names, both genders, many places and birth years", async () => {
    const records = await Promise.all(ordinary.map(ekyc));
    expect(new Set(records.map((e) => e.name)).size).toBeGreaterThan(ordinary.length * 0.8);
    expect(new Set(records.map((e) => e.gender))).toEqual(new Set(["M", "F"]));
    expect(new Set(records.map((e) => e.address.pincode)).size).toBeGreaterThan(20);
    expect(new Set(records.map((e) => e.yearOfBirth)).size).toBeGreaterThan(30);
    expect(records.some((e) => e.address.landmark === "")).toBe(true);
    expect(records.some((e) => e.careOf.startsWith("W/O "))).toBe(true);
    expect(records.some((e) => e.careOf.startsWith("D/O "))).toBe(true);
  });

  it("the photo is a small baseline JPEG, base64 without a data: prefix", () => {
    expect(SANDBOX_AADHAAR_PHOTO).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const bytes = Buffer.from(SANDBOX_AADHAAR_PHOTO, "base64");
    expect(bytes.toString("base64")).toBe(SANDBOX_AADHAAR_PHOTO);
    expect(bytes.subarray(0, 3).toString("hex")).toBe("ffd8ff");
    expect(bytes.subarray(-2).toString("hex")).toBe("ffd9");
    // SOF0: baseline DCT, every decoder reads it.
    expect(bytes.includes(Buffer.from([0xff, 0xc0]))).toBe(true);
    expect(SANDBOX_AADHAAR_PHOTO.length).toBeLessThan(4096);
  });

  it("9991 → AADHAAR_MOBILE_NOT_LINKED, 9992 → AADHAAR_LOCKED, 9998 → SOURCE_UNAVAILABLE with Retry-After", async () => {
    const notLinked = await rejection(sandboxAadhaarProvider.sendOtp("234567899917"));
    expect(notLinked.code).toBe("AADHAAR_MOBILE_NOT_LINKED");
    expect(notLinked.status).toBe(422);
    expect((await rejection(sandboxAadhaarProvider.sendOtp("234567899929"))).code).toBe("AADHAAR_LOCKED");
    const down = await rejection(sandboxAadhaarProvider.sendOtp("234567899986"));
    expect(down.code).toBe("SOURCE_UNAVAILABLE");
    expect(down.retryAfterSeconds).toBe(30);
    expect((await rejection(sandboxAadhaarProvider.submitOtp("234567899986", "uidai_x", OTP))).code).toBe("SOURCE_UNAVAILABLE");
  });

  it("the serial is digits 8–11 whatever the rest of the number", async () => {
    for (const first7 of ["2000000", "5555555", "9876543"]) {
      expect((await rejection(sandboxAadhaarProvider.sendOtp(withVerhoeffDigit(`${first7}9991`)))).code).toBe("AADHAAR_MOBILE_NOT_LINKED");
      expect((await rejection(sandboxAadhaarProvider.sendOtp(withVerhoeffDigit(`${first7}9992`)))).code).toBe("AADHAAR_LOCKED");
      expect((await rejection(sandboxAadhaarProvider.sendOtp(withVerhoeffDigit(`${first7}9998`)))).code).toBe("SOURCE_UNAVAILABLE");
      for (const serial of ["9990", "9993", "9997", "9999"]) {
        const n = withVerhoeffDigit(`${first7}${serial}`);
        expect(isValidAadhaar(n)).toBe(true);
        expect((await ekyc(n)).name).toMatch(PERSON);
      }
    }
  });

  it("refuses an invalid number", async () => {
    expect((await rejection(sandboxAadhaarProvider.sendOtp("234567890001"))).code).toBe("INVALID_AADHAAR");
    expect((await rejection(sandboxAadhaarProvider.submitOtp("134567890009", "uidai_x", OTP))).code).toBe("INVALID_AADHAAR");
  });
});

describe("sandbox bank provider", () => {
  const UPPER_ALNUM_12 = /^[A-Z0-9]{12}$/;

  it("an ordinary account is VALID with a name, a reference and the branch's details", async () => {
    const r = await sandboxBankProvider.verifyAccount("50100012345678", "HDFC0000240");
    expect(r.accountExists).toBe(true);
    expect(r.accountStatus).toBe("VALID");
    expect(r.nameAtBank).toMatch(/^[A-Z]+( [A-Z]+){1,2}$/);
    expect(r.bankReference).toMatch(UPPER_ALNUM_12);
    expect(r.ifscDetails.bank).toBe("HDFC Bank");
    for (const v of Object.values(r.ifscDetails)) expect(v).not.toBe("");
  });

  it("is deterministic for an account and IFSC; the branch follows the IFSC alone", async () => {
    const a = await sandboxBankProvider.verifyAccount("50100012345678", "HDFC0000240");
    expect(await sandboxBankProvider.verifyAccount("50100012345678", "HDFC0000240")).toEqual(a);
    const other = await sandboxBankProvider.verifyAccount("50100012345679", "HDFC0000240");
    expect(other.ifscDetails).toEqual(a.ifscDetails);
    expect(other.bankReference).not.toBe(a.bankReference);
  });

  it("names and references vary with account and IFSC", async () => {
    const names = new Set<string>();
    const refs = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const r = await sandboxBankProvider.verifyAccount(String(1_000_000_000 + i * 7_919_123), i % 2 ? "SBIN0001234" : "ICIC0000999");
      if (r.accountStatus !== "VALID") continue;
      names.add(r.nameAtBank!);
      refs.add(r.bankReference);
      expect(r.bankReference).toMatch(UPPER_ALNUM_12);
    }
    expect(names.size).toBeGreaterThan(150);
    expect(refs.size).toBeGreaterThan(190);
  });

  it("the bank comes from the IFSC code; an unknown code still gets a name", async () => {
    for (const [code, bank] of Object.entries(SANDBOX_BANK_NAMES)) {
      expect((await sandboxBankProvider.verifyAccount("123456789", `${code}0000001`)).ifscDetails.bank).toBe(bank);
    }
    expect(SANDBOX_BANK_NAMES.SBIN).toBe("State Bank of India");
    expect(SANDBOX_BANK_NAMES.UTIB).toBe("Axis Bank");
    expect((await sandboxBankProvider.verifyAccount("123456789", "QWER0000001")).ifscDetails.bank).toBe("QWER BANK");
  });

  it("branch, city and state are a real place", async () => {
    const places = new Set(SANDBOX_PLACES.map((p) => `${p.vtc}|${p.state}`));
    const cities = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const d = (await sandboxBankProvider.verifyAccount("123456789012", `SBIN0${String(i * 97).padStart(6, "0")}`)).ifscDetails;
      expect(places.has(`${d.city}|${d.state}`)).toBe(true);
      expect(d.branch).not.toBe("");
      cities.add(d.city);
    }
    expect(cities.size).toBeGreaterThan(10);
  });

  it("0000 → not found, 1111 → BLOCKED, 2222 → PENDING without a name", async () => {
    const missing = await sandboxBankProvider.verifyAccount("123456780000", "SBIN0000001");
    expect(missing).toMatchObject({ accountExists: false, accountStatus: "INVALID", nameAtBank: null });
    expect(missing.bankReference).toMatch(UPPER_ALNUM_12);
    expect(missing.ifscDetails.bank).toBe("State Bank of India");
    const blocked = await sandboxBankProvider.verifyAccount("123456781111", "SBIN0000001");
    expect(blocked).toMatchObject({ accountExists: true, accountStatus: "BLOCKED" });
    expect(blocked.nameAtBank).toMatch(/^[A-Z]+( [A-Z]+){1,2}$/);
    const pending = await sandboxBankProvider.verifyAccount("123456782222", "SBIN0000001");
    expect(pending).toMatchObject({ accountExists: true, accountStatus: "PENDING", nameAtBank: null });
  });

  it("9998 → SOURCE_UNAVAILABLE with Retry-After", async () => {
    const err = await rejection(sandboxBankProvider.verifyAccount("123456789998", "SBIN0000001"));
    expect(err.code).toBe("SOURCE_UNAVAILABLE");
    expect(err.retryAfterSeconds).toBe(30);
  });

  it("other repeated endings are ordinary", async () => {
    for (const end of ["3333", "9999", "9997", "0001"]) {
      expect((await sandboxBankProvider.verifyAccount(`12345678${end}`, "SBIN0000001")).accountStatus).toBe("VALID");
    }
  });

  it("refuses invalid input", async () => {
    expect((await rejection(sandboxBankProvider.verifyAccount("12345678", "SBIN0000001"))).code).toBe("INVALID_ACCOUNT_NUMBER");
    expect((await rejection(sandboxBankProvider.verifyAccount("123456789", "sbin0000001"))).code).toBe("INVALID_IFSC");
  });
});
