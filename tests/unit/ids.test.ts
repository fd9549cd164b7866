import { describe, expect, it } from "vitest";
import { newId, newPaymentId, newTimeOrderedId, randomToken, requestIdFrom } from "@/server/lib/ids";

describe("randomToken", () => {
  it("defaults to 16 characters of [A-Za-z0-9]", () => {
    for (let i = 0; i < 50; i++) expect(randomToken()).toMatch(/^[A-Za-z0-9]{16}$/);
  });

  it.each([1, 8, 14, 32, 100])("honours length %i", (n) => {
    const t = randomToken(n);
    expect(t).toHaveLength(n);
    expect(t).toMatch(/^[A-Za-z0-9]+$/);
  });

  it("uses the whole alphabet and does not repeat", () => {
    const many = Array.from({ length: 200 }, () => randomToken());
    expect(new Set(many).size).toBe(many.length);
    const seen = new Set(many.join(""));
    // 3200 draws over 62 symbols: every symbol shows up with overwhelming probability.
    expect(seen.size).toBe(62);
  });
});

describe("newId", () => {
  it("is <prefix>_<16 alphanumerics>", () => {
    expect(newId("mer")).toMatch(/^mer_[A-Za-z0-9]{16}$/);
    expect(newId("evt")).toMatch(/^evt_[A-Za-z0-9]{16}$/);
    expect(newId("kyc_txn")).toMatch(/^kyc_txn_[A-Za-z0-9]{16}$/);
  });

  it("accepts a custom length", () => {
    expect(newId("batch", 24)).toMatch(/^batch_[A-Za-z0-9]{24}$/);
  });

  it("is unique", () => {
    const ids = Array.from({ length: 500 }, () => newId("mer"));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("newTimeOrderedId", () => {
  it("has newId's shape", () => {
    for (let i = 0; i < 50; i++) expect(newTimeOrderedId("ver")).toMatch(/^ver_[A-Za-z0-9]{16}$/);
  });

  it("sorts (as text, byte by byte) in the order of its times, whatever its random part", () => {
    // Times from 1970 to 2080 in uneven steps, each id made twice to vary the random part.
    const times = [0, 1, 61, 62, 63, 3843, 3844, 1_700_000_000_000, 1_700_000_000_001, 1_764_288_000_000, 1_764_288_000_999, 3_500_000_000_000];
    const ids = times.flatMap((t) => [newTimeOrderedId("ver", t), newTimeOrderedId("ver", t)]);
    const byText = [...ids].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    expect(byText.map((id) => times[Math.floor(ids.indexOf(id) / 2)])).toEqual(times.flatMap((t) => [t, t]));
  });

  it("writes the time in base 62, digits before upper before lower case", () => {
    // 62^2 + 61 ms: digits 1, 0, z (1*3844 + 0*62 + 61).
    expect(newTimeOrderedId("ver", 3844 + 61).slice(4, 11)).toBe("000010z");
    expect(newTimeOrderedId("ver", 0).slice(4, 11)).toBe("0000000");
  });

  it("is unique within one millisecond", () => {
    const ids = Array.from({ length: 2000 }, () => newTimeOrderedId("ver", 1_764_288_000_000));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("newPaymentId", () => {
  it("is pay_<13-digit ms timestamp>_<alphanumerics>", () => {
    const before = Date.now();
    const id = newPaymentId();
    const after = Date.now();
    const m = /^pay_(\d{13})_([A-Za-z0-9]+)$/.exec(id);
    expect(m).not.toBeNull();
    const ms = Number(m![1]);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
    // At least 64 bits of randomness: 62^11 > 2^64.
    expect(m![2]!.length).toBeGreaterThanOrEqual(11);
  });

  it("is unique within the same millisecond", () => {
    const ids = Array.from({ length: 200 }, () => newPaymentId());
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("requestIdFrom", () => {
  // e2e_1795712038169: a millisecond timestamp that passes Luhn, but no card number starts with 1.
  it.each(["abc", "req_123", "A-b_C-9", "x".repeat(64), "0", "e2e_1795712038169"])("echoes the sane client id %j", (id) => {
    expect(requestIdFrom(id)).toBe(id);
  });

  it.each<[string, string | string[] | undefined]>([
    ["missing", undefined],
    ["empty", ""],
    ["65 characters", "x".repeat(65)],
    ["a space", "abc def"],
    ["a dot", "abc.def"],
    ["a slash", "abc/def"],
    ["a newline (header injection)", "abc\ndef"],
    ["non-ASCII", "réq"],
    ["an array (repeated header)", ["abc", "def"]],
    ["a one-item array", ["abc"]],
    ["a card number", "4111111111111111"],
    ["an Aadhaar number", "234567890009"],
    ["a secret key", "sk_test_Q2x7LmP0aZk3Vb9T"],
    ["a card number inside", "order-4111111111111111-x"],
  ])("makes a new req_ id when the header is %s", (_why, header) => {
    const id = requestIdFrom(header);
    expect(id).toMatch(/^req_[A-Za-z0-9]{16}$/);
    expect(id).not.toBe(header);
  });
});
