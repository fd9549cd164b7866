import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { decrypt, encrypt, hashPassword, hmacSha256Hex, safeEqual, sha256Hex, verifyPassword } from "@/server/lib/crypto";
import { passwordHashCost } from "@/server/config";

const KEY = crypto.randomBytes(32).toString("base64");
const OTHER_KEY = crypto.randomBytes(32).toString("base64");

/** Replaces the first character of a base64url segment with a different one (changes the top bits). */
function flipFirstChar(segment: string): string {
  return (segment[0] === "A" ? "B" : "A") + segment.slice(1);
}

describe("encrypt / decrypt (AES-256-GCM)", () => {
  it("round-trips text, including unicode and empty strings", () => {
    for (const text of ["hello", "", "₹499.00 — नमस्ते", JSON.stringify({ name: "ASHA", dob: "1990-01-01" })]) {
      expect(decrypt(encrypt(text, KEY), KEY)).toBe(text);
    }
  });

  it("has the v1.<iv>.<tag>.<ciphertext> base64url shape", () => {
    const payload = encrypt("secret data", KEY);
    const parts = payload.split(".");
    expect(parts).toHaveLength(4);
    expect(parts[0]).toBe("v1");
    for (const p of parts.slice(1)) expect(p).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(parts[1]!, "base64url")).toHaveLength(12);
    expect(Buffer.from(parts[2]!, "base64url")).toHaveLength(16);
    expect(payload).not.toContain("secret data");
  });

  it("uses a fresh IV each time", () => {
    expect(encrypt("same", KEY)).not.toBe(encrypt("same", KEY));
  });

  it("never repeats an IV over many encryptions, each readable by plain AES-256-GCM with the raw key", () => {
    const ivs = new Set<string>();
    for (let i = 0; i < 1500; i++) {
      const [, iv, tag, ct] = encrypt(`message ${i}`, KEY).split(".");
      ivs.add(iv!);
      const decipher = crypto.createDecipheriv("aes-256-gcm", Buffer.from(KEY, "base64"), Buffer.from(iv!, "base64url"));
      decipher.setAuthTag(Buffer.from(tag!, "base64url"));
      expect(Buffer.concat([decipher.update(Buffer.from(ct!, "base64url")), decipher.final()]).toString("utf8")).toBe(`message ${i}`);
    }
    expect(ivs.size).toBe(1500);
  });

  it.each([1, 2, 3])("detects tampering with segment %i (iv, tag, ciphertext)", (index) => {
    const parts = encrypt("tamper me please", KEY).split(".");
    parts[index] = flipFirstChar(parts[index]!);
    expect(() => decrypt(parts.join("."), KEY)).toThrow();
  });

  it("throws with the wrong key", () => {
    const payload = encrypt("for key one", KEY);
    expect(() => decrypt(payload, OTHER_KEY)).toThrow();
  });

  it("refuses an unrecognised format", () => {
    expect(() => decrypt("plain text", KEY)).toThrow("Unrecognised ciphertext");
    const [, iv, tag, ct] = encrypt("x", KEY).split(".");
    expect(() => decrypt(["v2", iv, tag, ct].join("."), KEY)).toThrow("Unrecognised ciphertext");
  });
});

describe("safeEqual", () => {
  it("compares strings", () => {
    expect(safeEqual("sk_test_abc", "sk_test_abc")).toBe(true);
    expect(safeEqual("sk_test_abc", "sk_test_abd")).toBe(false);
    expect(safeEqual("short", "longer string")).toBe(false);
    expect(safeEqual("", "")).toBe(true);
    expect(safeEqual("", "a")).toBe(false);
    expect(safeEqual("é", "e")).toBe(false);
  });
});

describe("hashes", () => {
  it("sha256Hex and hmacSha256Hex match known vectors", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // RFC 4231 test case 2
    expect(hmacSha256Hex("Jefe", "what do ya want for nothing?")).toBe("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  });
});

describe("hashPassword / verifyPassword", () => {
  it("hashes at N = 2^15, r = 8, p = 1 by default, and at the cost asked for", async () => {
    expect(await hashPassword("correct horse battery staple")).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    const cheap = await hashPassword("correct horse battery staple", 12);
    expect(cheap).toMatch(/^scrypt\$4096\$8\$1\$/);
    await expect(verifyPassword("correct horse battery staple", cheap)).resolves.toBe(true);
    // The dearest cost allowed still fits scrypt's memory cap when verified.
    const dear = await hashPassword("correct horse battery staple", 16);
    expect(dear).toMatch(/^scrypt\$65536\$8\$1\$/);
    await expect(verifyPassword("correct horse battery staple", dear)).resolves.toBe(true);
  });

  it("verifies RFC 7914's scrypt test vector (P = password, S = NaCl, N = 1024, r = 8, p = 16)", async () => {
    const dk = "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640";
    const stored = ["scrypt", 1024, 8, 16, Buffer.from("NaCl").toString("base64url"), Buffer.from(dk, "hex").toString("base64url")].join("$");
    await expect(verifyPassword("password", stored)).resolves.toBe(true);
    await expect(verifyPassword("passwore", stored)).resolves.toBe(false);
  });

  it("reads PASSWORD_HASH_COST: 15 unset, 12 to 16 allowed, anything else refused", () => {
    expect(passwordHashCost({})).toBe(15);
    expect(passwordHashCost({ PASSWORD_HASH_COST: "12" })).toBe(12);
    expect(passwordHashCost({ PASSWORD_HASH_COST: "16" })).toBe(16);
    for (const bad of ["11", "17", "14.5", "fast"]) expect(() => passwordHashCost({ PASSWORD_HASH_COST: bad })).toThrow();
  });

  it("verifies the right password and refuses a wrong one", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(stored.startsWith("scrypt$")).toBe(true);
    expect(stored).not.toContain("correct horse");
    await expect(verifyPassword("correct horse battery staple", stored)).resolves.toBe(true);
    await expect(verifyPassword("correct horse battery stapl", stored)).resolves.toBe(false);
    await expect(verifyPassword("", stored)).resolves.toBe(false);
  });

  it("salts: two hashes of the same password differ and both verify", async () => {
    const a = await hashPassword("same password");
    const b = await hashPassword("same password");
    expect(a).not.toBe(b);
    await expect(verifyPassword("same password", a)).resolves.toBe(true);
    await expect(verifyPassword("same password", b)).resolves.toBe(true);
  });

  it("normalises unicode (NFKC) so composed and decomposed forms agree", async () => {
    const stored = await hashPassword("caf\u00e9");
    await expect(verifyPassword("cafe\u0301", stored)).resolves.toBe(true);
  });

  it.each(["", "plain", "bcrypt$1$2$3$4$5", "scrypt$32768$8$1$abc$", "scrypt$32768$8$1$$abc"])(
    "returns false for the malformed stored string %j",
    async (stored) => {
      await expect(verifyPassword("anything", stored)).resolves.toBe(false);
    },
  );

  it("never accepts a password against a stored string with non-numeric parameters", async () => {
    await expect(verifyPassword("anything", "scrypt$x$8$1$abc$def")).resolves.toBe(false);
    await expect(verifyPassword("anything", "scrypt$3$8$1$abcdefghijklmnop$abcdefghijklmnopqrstuvwxyz0123456789abcdefg")).resolves.toBe(false);
  });

  // A hash segment that decodes to zero bytes would make any password compare equal.
  it.each(["=", "A", "!!!"])("returns false when the stored hash segment decodes to nothing (%j)", async (hash) => {
    const good = await hashPassword("real password");
    const salt = good.split("$")[4];
    await expect(verifyPassword("wrong password", `scrypt$32768$8$1$${salt}$${hash}`)).resolves.toBe(false);
  });
});
