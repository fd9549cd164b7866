import { describe, expect, it } from "vitest";
import { base32Decode, base32Encode, generateRecoveryCodes, generateTotpSecret, otpauthUrl, totpAt, verifyTotp } from "@/server/services/accounts/totp";

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

  it("accepts one step of clock drift either side, not two", () => {
    const secret = generateTotpSecret();
    const now = 1_700_000_000_000;
    expect(verifyTotp(secret, totpAt(secret, now), now)).toBe(true);
    expect(verifyTotp(secret, totpAt(secret, now - 30_000), now)).toBe(true);
    expect(verifyTotp(secret, totpAt(secret, now + 30_000), now)).toBe(true);
    const far = totpAt(secret, now - 90_000);
    if (far !== totpAt(secret, now) && far !== totpAt(secret, now - 30_000) && far !== totpAt(secret, now + 30_000)) {
      expect(verifyTotp(secret, far, now)).toBe(false);
    }
    expect(verifyTotp(secret, "12345", now)).toBe(false);
    expect(verifyTotp(secret, "abcdef", now)).toBe(false);
  });

  it("makes 160-bit secrets, ten distinct recovery codes and an otpauth URL", () => {
    expect(base32Decode(generateTotpSecret())).toHaveLength(20);
    const codes = generateRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}$/);
    expect(otpauthUrl("ABC", "a@b.c")).toBe("otpauth://totp/Parakh:a%40b.c?secret=ABC&issuer=Parakh&algorithm=SHA1&digits=6&period=30");
  });
});
