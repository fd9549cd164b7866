import { describe, expect, it } from "vitest";
import { PAN_CATEGORIES, PAN_CATEGORY_VALUES, PAN_PATTERN, isValidPan, maskPan, normalizePan, panCategory } from "@/lib/pan";

describe("normalizePan", () => {
  it("trims and upper-cases", () => {
    expect(normalizePan("  abcpk1234f\n")).toBe("ABCPK1234F");
    expect(normalizePan("ABCPK1234F")).toBe("ABCPK1234F");
  });
});

describe("PAN_PATTERN / isValidPan", () => {
  it("is the documented pattern", () => {
    expect(PAN_PATTERN).toBe("^[A-Z]{3}[PCHFATBLJG][A-Z][0-9]{4}[A-Z]$");
  });

  it.each(["ABCPK1234F", "AAACB0001Z", "ZZZGZ9999Z", "ABCHX0010A", "ABCJQ1000B"])("accepts %s", (pan) => {
    expect(isValidPan(pan)).toBe(true);
  });

  it.each([
    ["serial 0000", "ABCPK0000F"],
    ["category letter not issued (D)", "ABCDK1234F"],
    ["category letter not issued (X)", "ABCXK1234F"],
    ["lower case (not normalized)", "abcpk1234f"],
    ["surrounding space (not normalized)", " ABCPK1234F"],
    ["too short", "ABCPK1234"],
    ["too long", "ABCPK1234FF"],
    ["digit where a letter belongs", "AB1PK1234F"],
    ["letter in the serial", "ABCPK12A4F"],
    ["digit as check letter", "ABCPK12345"],
    ["empty", ""],
  ])("rejects %s", (_why, pan) => {
    expect(isValidPan(pan)).toBe(false);
  });

  it("accepts every issued category letter and no other", () => {
    for (const letter of "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
      expect(isValidPan(`ABC${letter}K1234F`)).toBe("PCHFATBLJG".includes(letter));
    }
  });
});

describe("PAN_CATEGORIES / panCategory", () => {
  it("maps the ten category letters (P, C, H, F, A, T, B, L, J, G)", () => {
    expect(PAN_CATEGORIES).toEqual({
      P: "INDIVIDUAL",
      C: "COMPANY",
      H: "HUF",
      F: "FIRM",
      A: "AOP",
      T: "TRUST",
      B: "BOI",
      L: "LOCAL_AUTHORITY",
      J: "ARTIFICIAL_JURIDICAL_PERSON",
      G: "GOVERNMENT",
    });
    expect(PAN_CATEGORY_VALUES).toHaveLength(10);
    expect(new Set(PAN_CATEGORY_VALUES).size).toBe(10);
  });

  it("reads the 4th letter", () => {
    expect(panCategory("ABCPK1234F")).toBe("INDIVIDUAL");
    expect(panCategory("ABCCK1234F")).toBe("COMPANY");
    expect(panCategory("ABCHK1234F")).toBe("HUF");
    expect(panCategory("ABCGK1234F")).toBe("GOVERNMENT");
    expect(panCategory("ABCJK1234F")).toBe("ARTIFICIAL_JURIDICAL_PERSON");
  });

  it("throws on a letter that is not a category", () => {
    expect(() => panCategory("ABCDK1234F")).toThrow(RangeError);
  });
});

describe("maskPan (how every dashboard screen shows a PAN)", () => {
  it.each([
    ["ABCPK1234F", "ABCPKXXXXF"],
    ["AAACB0001Z", "AAACBXXXXZ"],
    ["ZZZGZ9999Z", "ZZZGZXXXXZ"],
    // As the API reads it: trimmed and upper-cased first.
    [" abcpk1234f ", "ABCPKXXXXF"],
    // Shaped like a PAN but never issued (serial 0000, no such holder type): still someone's mistyped PAN.
    ["ABCPK0000F", "ABCPKXXXXF"],
    ["ABCXK1234F", "ABCXKXXXXF"],
  ])("hides the serial of %j: %s", (input, shown) => {
    expect(maskPan(input)).toBe(shown);
  });

  it.each(["NOTAPAN", "ABCPK1234", "ABCPK1234FF", "ABCP1K234F", "1234567890", "", "ABCPK 1234F"])("shows %j as typed: not shaped like a PAN", (input) => {
    expect(maskPan(input)).toBe(input);
  });
});
