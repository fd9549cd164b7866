import { describe, expect, it } from "vitest";
import { AADHAAR_PATTERN, isValidAadhaar, maskAadhaar, withVerhoeffDigit } from "@/lib/aadhaar";
import { verhoeffDigit, verhoeffValid } from "@/lib/verhoeff";

/** Small seeded generator so a failure names a reproducible number. */
function digitsFrom(seed: number, count: number): string {
  let x = seed >>> 0 || 1;
  let out = "";
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out += String(x % 10);
  }
  return out;
}

describe("isValidAadhaar", () => {
  it.each(["234567890009", "999999990019", "234567899917", "234567899929", "234567899986"])("accepts the documented sandbox number %s", (n) => {
    expect(isValidAadhaar(n)).toBe(true);
  });

  it("refuses every wrong check digit", () => {
    const first11 = "23456789000";
    const good = withVerhoeffDigit(first11);
    for (let d = 0; d <= 9; d++) {
      const n = first11 + String(d);
      expect(isValidAadhaar(n), n).toBe(n === good);
    }
  });

  it("refuses a first digit of 0 or 1, even with a correct check digit", () => {
    for (const first of ["0", "1"]) {
      const n = withVerhoeffDigit(`${first}3456789000`);
      expect(verhoeffValid(n)).toBe(true);
      expect(isValidAadhaar(n), n).toBe(false);
    }
  });

  it("catches a changed digit and a swap of adjacent digits", () => {
    const n = "234567890009";
    const changed = `${n.slice(0, 5)}${(Number(n[5]) + 1) % 10}${n.slice(6)}`;
    const swapped = `${n.slice(0, 2)}${n[3]}${n[2]}${n.slice(4)}`;
    expect(isValidAadhaar(changed)).toBe(false);
    expect(isValidAadhaar(swapped)).toBe(false);
  });

  it.each([
    ["too short", "23456789000"],
    ["too long", "2345678900090"],
    ["empty", ""],
    ["spaces", "2345 6789 0009"],
    ["surrounding space", " 234567890009"],
    ["a letter", "23456789000A"],
    ["dashes", "2345-6789-0009"],
    ["full-width digits", "２３４５６７８９０００９"],
    ["sign", "+23456789000"],
  ])("refuses %s", (_label, n) => {
    expect(isValidAadhaar(n)).toBe(false);
  });

  it("AADHAAR_PATTERN is the shape without the check digit", () => {
    expect(AADHAAR_PATTERN).toBe("^[2-9][0-9]{11}$");
    expect(new RegExp(AADHAAR_PATTERN).test("234567890001")).toBe(true);
    expect(new RegExp(AADHAAR_PATTERN).test("134567890009")).toBe(false);
  });
});

describe("maskAadhaar", () => {
  it("keeps only the last four digits", () => {
    expect(maskAadhaar("234567891234")).toBe("XXXXXXXX1234");
    expect(maskAadhaar("234567890009")).toBe("XXXXXXXX0009");
    expect(maskAadhaar("234567890009")).toHaveLength(12);
  });
});

describe("withVerhoeffDigit", () => {
  it("round-trips: the result is valid, and no other last digit is", () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const first11 = String(2 + (seed % 8)) + digitsFrom(seed, 10);
      const n = withVerhoeffDigit(first11);
      expect(n.slice(0, 11)).toBe(first11);
      expect(isValidAadhaar(n), n).toBe(true);
      const wrong = first11 + String((Number(n[11]) + 1 + (seed % 9)) % 10);
      expect(isValidAadhaar(wrong), wrong).toBe(false);
    }
  });

  it("reproduces the documented fixtures", () => {
    for (const n of ["234567890009", "999999990019", "234567899917", "234567899929", "234567899986"]) {
      expect(withVerhoeffDigit(n.slice(0, 11))).toBe(n);
    }
  });

  it("refuses anything but 11 digits", () => {
    for (const bad of ["", "2345678900", "234567890001", "2345678900A"]) expect(() => withVerhoeffDigit(bad)).toThrow(RangeError);
  });
});

describe("verhoeffDigit", () => {
  it("makes any digit string valid, of any length", () => {
    for (let len = 1; len <= 20; len++) {
      const digits = digitsFrom(len * 7919, len);
      expect(verhoeffValid(digits + verhoeffDigit(digits)), digits).toBe(true);
    }
  });

  it("matches known values", () => {
    // The textbook example: 236 → 3.
    expect(verhoeffDigit("236")).toBe("3");
    expect(verhoeffDigit("12345")).toBe("1");
  });

  it("refuses non-digits", () => {
    expect(() => verhoeffDigit("")).toThrow(RangeError);
    expect(() => verhoeffDigit("12a")).toThrow(RangeError);
  });
});
