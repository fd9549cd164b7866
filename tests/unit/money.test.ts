import { describe, expect, it } from "vitest";
import { formatPaise, formatRupees, parseAmountToPaise } from "@/lib/money";

describe("parseAmountToPaise", () => {
  it.each<[unknown, number]>([
    ["499", 49900],
    [499, 49900],
    ["499.5", 49950],
    [499.5, 49950],
    ["499.50", 49950],
    ["499.05", 49905],
    ["100000", 10000000],
    ["100000.00", 10000000],
    ["0", 0],
    [0, 0],
  ])("parses %j as %i paise", (input, paise) => {
    expect(parseAmountToPaise(input)).toBe(paise);
  });

  it("avoids float multiplication error (4.35 * 100 is 434.99… in binary)", () => {
    expect(4.35 * 100).not.toBe(435); // the trap a naive implementation falls into
    expect(parseAmountToPaise(10.1)).toBe(1010);
    expect(parseAmountToPaise(1.1)).toBe(110);
    expect(parseAmountToPaise(4.35)).toBe(435);
    expect(parseAmountToPaise(0.07)).toBe(7);
  });

  it("always returns an integer", () => {
    for (const v of [10.1, 4.35, 8.2, "0.01", "99999.99"]) {
      expect(Number.isInteger(parseAmountToPaise(v))).toBe(true);
    }
  });

  it("trims surrounding whitespace in strings", () => {
    expect(parseAmountToPaise(" 5 ")).toBe(500);
    expect(parseAmountToPaise("\t12.30\n")).toBe(1230);
  });

  it("rejects a float that is not exactly two fraction digits (0.1 + 0.2)", () => {
    expect(parseAmountToPaise(0.1 + 0.2)).toBeNull();
  });

  it.each<[string, unknown]>([
    ["exponent string", "1e3"],
    ["exponent string with sign", "1E+3"],
    ["number that stringifies with an exponent", 1e21],
    ["very large number", 1e20],
    ["negative number", -1],
    ["negative string", "-1"],
    ["plus sign", "+5"],
    ["letters", "abc"],
    ["digits with letters", "12abc"],
    ["empty string", ""],
    ["blank string", "   "],
    ["three fraction digits (string)", "1.234"],
    ["three fraction digits (number)", 1.005],
    ["leading zero", "05"],
    ["no whole part", ".5"],
    ["trailing dot", "5."],
    ["comma grouping", "1,000"],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["-Infinity", Number.NEGATIVE_INFINITY],
    ["null", null],
    ["undefined", undefined],
    ["boolean", true],
    ["object", { amount: 5 }],
    ["array", [5]],
    ["bigint", BigInt(5)],
  ])("rejects %s", (_why, input) => {
    expect(parseAmountToPaise(input)).toBeNull();
  });
});

describe("formatPaise", () => {
  it.each<[number, string]>([
    [49900, "499.00"],
    [49950, "499.50"],
    [49905, "499.05"],
    [99, "0.99"],
    [5, "0.05"],
    [0, "0.00"],
    [10000000, "100000.00"],
    [-5, "-0.05"],
    [-49900, "-499.00"],
  ])("%i → %s", (paise, text) => {
    expect(formatPaise(paise)).toBe(text);
  });

  it("round-trips with parseAmountToPaise", () => {
    for (const paise of [1, 99, 100, 49950, 9999999, 10000000]) {
      expect(parseAmountToPaise(formatPaise(paise))).toBe(paise);
    }
  });
});

describe("formatRupees", () => {
  it.each<[number, string]>([
    [49900, "₹499.00"],
    [99, "₹0.99"],
    [0, "₹0.00"],
    [100000, "₹1,000.00"],
    [9999999, "₹99,999.99"],
    [10000000, "₹1,00,000.00"],
    [12345678, "₹1,23,456.78"],
    [1234567890, "₹1,23,45,678.90"],
    [-49900, "-₹499.00"],
  ])("%i → %s (Indian grouping)", (paise, text) => {
    expect(formatRupees(paise)).toBe(text);
  });
});

describe("KYC fees and masking", () => {
  it("keeps fees in whole paise and shows them with two decimals", async () => {
    const { DEFAULT_KYC_FEES, KYC_KINDS } = await import("@/lib/kyc");
    for (const k of KYC_KINDS) expect(Number.isInteger(DEFAULT_KYC_FEES[k])).toBe(true);
    expect(KYC_KINDS.map((k) => formatPaise(DEFAULT_KYC_FEES[k]))).toEqual(["3.00", "1.00", "2.00"]);
    // 200 charges of ₹1.00 from ₹10,000.00 leave exactly ₹9,800.00: integer arithmetic, no float drift.
    let balance = 1_000_000;
    for (let i = 0; i < 200; i++) balance -= DEFAULT_KYC_FEES.PAN;
    expect(formatPaise(balance)).toBe("9800.00");
    expect(parseAmountToPaise("0.10")! * 3).toBe(30);
  });

  it("masks account numbers", async () => {
    const { maskAccountNumber } = await import("@/lib/kyc");
    expect(maskAccountNumber("50100123456789")).toBe("XXXXXXXXXX6789");
    expect(maskAccountNumber("123456789")).toBe("XXXXX6789");
  });
});
