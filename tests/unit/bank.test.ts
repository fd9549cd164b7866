import { describe, expect, it } from "vitest";
import { ACCOUNT_NUMBER_PATTERN, IFSC_PATTERN, isValidAccountNumber, isValidIfsc } from "@/lib/bank";

describe("IFSC_PATTERN / isValidIfsc", () => {
  it("is the documented pattern", () => {
    expect(IFSC_PATTERN).toBe("^[A-Z]{4}0[A-Z0-9]{6}$");
  });

  it.each(["SBIN0000001", "HDFC0000240", "ICIC0001234", "UTIB0ABC123", "KKBK0ZZZZZZ", "ABCD0000000"])("accepts %s", (ifsc) => {
    expect(isValidIfsc(ifsc)).toBe(true);
  });

  it.each([
    ["fifth character not 0", "SBIN1000001"],
    ["fifth character the letter O", "SBINO000001"],
    ["lower case", "sbin0000001"],
    ["mixed case branch", "SBIN0abc123"],
    ["too short", "SBIN000001"],
    ["too long", "SBIN00000012"],
    ["digit in the bank code", "SB1N0000001"],
    ["surrounding space", " SBIN0000001"],
    ["trailing newline", "SBIN0000001\n"],
    ["dash in the branch", "SBIN0-00001"],
    ["empty", ""],
  ])("refuses %s", (_label, ifsc) => {
    expect(isValidIfsc(ifsc)).toBe(false);
  });
});

describe("isValidAccountNumber", () => {
  it("is 9 to 18 digits", () => {
    expect(ACCOUNT_NUMBER_PATTERN).toBe("^[0-9]{9,18}$");
    expect(isValidAccountNumber("12345678")).toBe(false);
    expect(isValidAccountNumber("123456789")).toBe(true);
    expect(isValidAccountNumber("123456789012345678")).toBe(true);
    expect(isValidAccountNumber("1234567890123456789")).toBe(false);
  });

  it("keeps leading zeros as digits", () => {
    expect(isValidAccountNumber("000012345678")).toBe(true);
  });

  it.each([
    ["empty", ""],
    ["spaces", "1234 5678 9012"],
    ["dashes", "1234-5678-9012"],
    ["a letter", "12345678901A"],
    ["surrounding space", " 123456789012"],
    ["trailing newline", "123456789012\n"],
    ["sign", "+123456789012"],
    ["decimal point", "1234567890.12"],
    ["full-width digits", "１２３４５６７８９０"],
  ])("refuses %s", (_label, n) => {
    expect(isValidAccountNumber(n)).toBe(false);
  });
});
