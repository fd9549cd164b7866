import { describe, expect, it } from "vitest";
import { PF_NUMBER_PATTERN, UAN_PATTERN, establishmentId, formatPfNumber, isValidUan, normalizePfNumber, normalizeUan, parsePfNumber } from "@/lib/epfo";

describe("UAN", () => {
  it("pattern is 12 digits", () => {
    expect(UAN_PATTERN).toBe("^\\d{12}$");
  });

  it.each(["100200300400", "000000000000", "999999999999"])("accepts %s", (uan) => {
    expect(isValidUan(uan)).toBe(true);
  });

  it.each(["10020030040", "1002003004001", "10020030040A", " 100200300400", "1002-0030-0400", "", "١٠٠٢٠٠٣٠٠٤٠٠"])("rejects %j", (uan) => {
    expect(isValidUan(uan)).toBe(false);
  });

  it("normalizeUan trims", () => {
    expect(normalizeUan(" 100200300400\t")).toBe("100200300400");
  });
});

describe("PF number", () => {
  const parts = { region: "MH", office: "BAN", establishment: "0000064", extension: "000", member: "0000123" };

  it("parses the slash form", () => {
    expect(parsePfNumber("MH/BAN/0000064/000/0000123")).toEqual(parts);
  });

  it("parses the compact form", () => {
    expect(parsePfNumber("MHBAN00000640000000123")).toEqual(parts);
  });

  it("trims and upper-cases", () => {
    expect(parsePfNumber("  mh/ban/0000064/000/0000123 ")).toEqual(parts);
    expect(parsePfNumber("mhBan00000640000000123")).toEqual(parts);
  });

  it.each([
    ["mixed slashes", "MH/BAN0000064/000/0000123"],
    ["short member", "MH/BAN/0000064/000/000123"],
    ["long establishment", "MH/BAN/00000640/000/0000123"],
    ["short extension", "MH/BAN/0000064/00/0000123"],
    ["digit in region", "M1/BAN/0000064/000/0000123"],
    ["letter in member", "MH/BAN/0000064/000/000012A"],
    ["spaces for slashes", "MH BAN 0000064 000 0000123"],
    ["backslashes", "MH\\BAN\\0000064\\000\\0000123"],
    ["compact, one digit short", "MHBAN0000064000000012"],
    ["empty", ""],
  ])("rejects %s", (_why, input) => {
    expect(parsePfNumber(input)).toBeNull();
    expect(normalizePfNumber(input)).toBeNull();
  });

  it("formats and normalizes to the slash form", () => {
    expect(formatPfNumber(parts)).toBe("MH/BAN/0000064/000/0000123");
    expect(normalizePfNumber("mhban00000640000000123")).toBe("MH/BAN/0000064/000/0000123");
    expect(normalizePfNumber("DL/CPM/1234567/001/7654321")).toBe("DL/CPM/1234567/001/7654321");
  });

  it("establishment id is region + office + establishment", () => {
    expect(establishmentId(parts)).toBe("MHBAN0000064");
  });

  it("PF_NUMBER_PATTERN documents both forms and agrees with the parser", () => {
    const re = new RegExp(PF_NUMBER_PATTERN);
    for (const input of [
      "MH/BAN/0000064/000/0000123",
      "MHBAN00000640000000123",
      "mh/ban/0000064/000/0000123",
      "MH/BAN0000064/000/0000123",
      "MH/BAN/0000064/000/000012",
      "MHBAN000006400000001234",
      "12BAN00000640000000123",
    ]) {
      expect(re.test(input), input).toBe(parsePfNumber(input) !== null);
    }
    expect(re.test("MHBAN00000640000000123")).toBe(true);
    expect(re.test("MH/BAN0000064/000/0000123")).toBe(false);
  });
});
