import { describe, expect, it } from "vitest";
import { newId, newPaymentId, newSortableId, randomToken } from "@/server/lib/ids";
import { requestIdFrom } from "@/server/rest/request-id";

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

describe("newSortableId", () => {
  // Eight base-62 digits in byte order (0-9, A-Z, a-z); the date's digits computed with Python's integers.
  it.each([
    [0, "00000000"],
    [61, "0000000z"],
    [62, "00000010"],
    [62 ** 2 + 10, "0000010A"],
    [Date.UTC(2026, 10, 28), "0VcDmUTo"],
    [62 ** 8 - 1, "zzzzzzzz"],
  ])("writes %i ms as %s, then 12 random alphanumerics", (ms, time) => {
    const id = newSortableId("aud", ms);
    expect(id.slice(0, 12)).toBe(`aud_${time}`);
    expect(id).toMatch(/^aud_[0-9A-Za-z]{8}[A-Za-z0-9]{12}$/);
  });

  it("sorts as text (byte order) in the order of its times", () => {
    // Ascending times, across every digit boundary.
    const times = [0, 1, 9, 10, 35, 36, 61, 62, 3843, 3844, 1_700_000_000_000, 1_800_000_000_000, 62 ** 8 - 1];
    const ids = times.map((t) => newSortableId("ver", t));
    expect([...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))).toEqual(ids);
  });

  it("is unique within one millisecond", () => {
    const ids = Array.from({ length: 500 }, () => newSortableId("aud", 1_800_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
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
