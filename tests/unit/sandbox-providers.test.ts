import { describe, expect, it } from "vitest";
import { formatPfNumber, isValidUan, parsePfNumber } from "@/lib/epfo";
import { PAN_CATEGORIES, type PanCategoryLetter } from "@/lib/pan";
import { AppError } from "@/server/errors";
import { createSandboxEpfoProvider, sandboxEpfoProvider } from "@/server/providers/epfo/sandbox";
import type { EpfoMember } from "@/server/providers/epfo/types";
import { sandboxPanProvider } from "@/server/providers/pan/sandbox";

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
  const monthIndex = (ym: string) => Number(ym.slice(0, 4)) * 12 + Number(ym.slice(5, 7)) - 1;

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
