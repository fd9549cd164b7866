import { describe, expect, it } from "vitest";
import { exponentialBackoff, jobErrorText, MAX_LAST_ERROR_CHARS } from "@/server/jobs/policy";

describe("exponentialBackoff", () => {
  it("doubles per attempt between half and the full delay, and stops at the cap", () => {
    const low = exponentialBackoff({ baseMs: 1_000, maxMs: 60_000 }, () => 0);
    const high = exponentialBackoff({ baseMs: 1_000, maxMs: 60_000 }, () => 1);
    expect([1, 2, 3, 4].map(low)).toEqual([500, 1_000, 2_000, 4_000]);
    expect([1, 2, 3, 4].map(high)).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(high(7)).toBe(60_000);
    expect(high(10_000)).toBe(60_000); // no Infinity/NaN for absurd attempt counts
    expect(low(10_000)).toBe(30_000);
  });

  it("spreads delays with jitter and treats attempt < 1 as the first", () => {
    const backoff = exponentialBackoff({ baseMs: 1_000 });
    const samples = new Set(Array.from({ length: 50 }, () => backoff(5)));
    expect(samples.size).toBeGreaterThan(10);
    for (const s of samples) {
      expect(s).toBeGreaterThanOrEqual(8_000);
      expect(s).toBeLessThanOrEqual(16_000);
    }
    expect(exponentialBackoff({ baseMs: 1_000 }, () => 1)(0)).toBe(1_000);
  });

  it("defaults to 1 s first, capped at 1 h", () => {
    const high = exponentialBackoff({}, () => 1);
    expect(high(1)).toBe(1_000);
    expect(high(30)).toBe(3_600_000);
  });
});

describe("jobErrorText", () => {
  it("keeps name and message, not the stack", () => {
    const err = new TypeError("bad input");
    expect(jobErrorText(err)).toBe("TypeError: bad input");
    expect(jobErrorText(new Error("plain"))).toBe("plain");
    expect(jobErrorText("text")).toBe("text");
    expect(jobErrorText({ code: 7 })).toBe('{"code":7}');
    expect(jobErrorText(undefined)).toBe("undefined");
    expect(jobErrorText(new Error(""))).toBe("Error");
  });

  it("masks secrets and long numbers", () => {
    const text = jobErrorText(
      new Error(
        "POST https://user:hunter2@hooks.example/x?token=abc123&id=9 failed with sk_live_AbCdEf123456 " +
          "whsec_ZZZ999 Authorization: Bearer eyJhbGciOi.payload.sig card 4111111111111111",
      ),
    );
    for (const secret of ["hunter2", "abc123", "AbCdEf123456", "ZZZ999", "eyJhbGciOi", "4111111111111111"]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain("https://[REDACTED]@hooks.example/x?token=[REDACTED]&id=9");
    expect(text).toContain("sk_live_[REDACTED]");
    expect(text).toContain("Bearer [REDACTED]");
    // ids with embedded timestamps are not numbers on their own
    expect(jobErrorText("payment pay_1767225600000_AbC failed")).toBe("payment pay_1767225600000_AbC failed");
  });

  it("truncates long messages", () => {
    const text = jobErrorText(new Error("x".repeat(5_000)));
    expect(text.length).toBe(MAX_LAST_ERROR_CHARS);
    expect(text.endsWith("…")).toBe(true);
  });
});
