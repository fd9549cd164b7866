import { describe, expect, it } from "vitest";
import {
  base32Decode,
  base32Encode,
  generateRecoveryCodes,
  generateTotpSecret,
  matchTotpStep,
  otpauthUrl,
  totpAt,
  verifyTotp,
} from "@/server/services/accounts/totp";

// RFC 6238 appendix B (SHA-1), last six digits of the eight-digit values.
const RFC_SECRET = base32Encode(Buffer.from("12345678901234567890"));

describe("TOTP", () => {
  it.each([
    [59, "287082"],
    [1111111109, "081804"],
    [1111111111, "050471"],
    [1234567890, "005924"],
    [2000000000, "279037"],
  ])("matches the RFC 6238 vector at %i s", (seconds, code) => {
    expect(totpAt(RFC_SECRET, seconds * 1000)).toBe(code);
  });

  it("round-trips base32", () => {
    const buf = Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255, 7]);
    expect(base32Decode(base32Encode(buf))).toEqual(buf);
    expect(RFC_SECRET).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
  });

  // Fixed secret and instants, so the five neighbouring codes are known to differ (asserted below):
  // no skipped assertion when two steps happen to share a code.
  const STEP_MS = 30_000;
  const INSTANTS = [
    1_700_000_000_000, // mid-step
    1_700_000_010_000 - (1_700_000_010_000 % STEP_MS), // the first millisecond of a step
    1_700_000_010_000 - (1_700_000_010_000 % STEP_MS) + STEP_MS - 1, // the last millisecond of a step
    2_000_000_000_000,
  ];

  describe.each(INSTANTS)("clock drift at %i ms", (now) => {
    const step = Math.floor(now / STEP_MS);
    const codeAt = (drift: number) => totpAt(RFC_SECRET, now + drift * STEP_MS);

    it("has five distinct codes around it (precondition)", () => {
      expect(new Set([-2, -1, 0, 1, 2].map(codeAt)).size).toBe(5);
    });

    it.each([
      [-1, true],
      [0, true],
      [1, true],
      [-2, false],
      [2, false],
      [-3, false],
      [3, false],
    ])("a code from %i steps away is accepted: %s", (drift, accepted) => {
      expect(verifyTotp(RFC_SECRET, codeAt(drift), now)).toBe(accepted);
      expect(matchTotpStep(RFC_SECRET, codeAt(drift), now)).toBe(accepted ? step + drift : null);
    });
  });

  it("refuses codes that are not six digits", () => {
    const now = 1_700_000_000_000;
    expect(verifyTotp(RFC_SECRET, "12345", now)).toBe(false);
    expect(verifyTotp(RFC_SECRET, "abcdef", now)).toBe(false);
    expect(verifyTotp(RFC_SECRET, `${totpAt(RFC_SECRET, now)}0`, now)).toBe(false);
  });

  it("makes 160-bit secrets, ten distinct recovery codes and an otpauth URL", () => {
    expect(base32Decode(generateTotpSecret())).toHaveLength(20);
    const codes = generateRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}$/);
    expect(otpauthUrl("ABC", "a@b.c")).toBe("otpauth://totp/Parakh:a%40b.c?secret=ABC&issuer=Parakh&algorithm=SHA1&digits=6&period=30");
  });
});
