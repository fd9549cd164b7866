import { describe, expect, it } from "vitest";
import { newId, newPaymentId, newSortableId, type IdPrefix } from "@/server/lib/ids";
import { redactedBodyText, redactedJson, redactString, redactValue, storedFreeText } from "@/server/services/audit/redact";

const SECRET_KEYS = [
  "secretKey",
  "x-secret-key",
  "x-api-secret",
  "password",
  "otp",
  "aadhaarNumber",
  "aadhaar_number",
  "photo",
  "address",
  "fullAddress",
  "cardNumber",
  "card_number",
  "cvv",
  "signing_secret",
  "signingSecret",
  "authorization",
  "_token",
];

describe("redactValue", () => {
  it.each(SECRET_KEYS)("redacts %s at the top level", (key) => {
    const out = redactValue({ [key]: "sensitive-123456" }) as Record<string, unknown>;
    expect(out[key]).toBe("[REDACTED]");
  });

  it.each(SECRET_KEYS)("redacts %s nested in objects and arrays", (key) => {
    const input = { data: { list: [{ deeper: [{ [key]: "sensitive-123456" }] }] } };
    const text = JSON.stringify(redactValue(input));
    expect(text).not.toContain("sensitive-123456");
    expect(text).toContain(`"${key}":"[REDACTED]"`);
  });

  it("redacts whole objects under a secret-like key (address, photo)", () => {
    const out = redactValue({
      address: { house: "12", street: "MG Road", pincode: "560001" },
      photo: "/9j/4AAQSkZJRg==",
    });
    expect(out).toEqual({ address: "[REDACTED]", photo: "[REDACTED]" });
  });

  it("keeps the identifiers a merchant needs to read the log", () => {
    const input = {
      pan: "ABCPK1234F",
      name: "RAKESH KUMAR SINGH",
      uan: "100200300400",
      pf_number: "MH/BAN/0000064/000/0000123",
      maskedAadhaar: "XXXXXXXX1234",
      orderId: "ORDER_1",
      amount: "499.00",
    };
    expect(redactValue(input)).toEqual(input);
  });

  it("redacts inside a realistic KYC response while keeping the rest", () => {
    const response = {
      success: true,
      message: "Aadhaar verified",
      data: {
        kycTransactionId: "kyc_txn_abc",
        maskedAadhaar: "XXXXXXXX1234",
        name: "ASHA DEVI",
        address: { house: "1", street: "X", pincode: "110001" },
        fullAddress: "1, X, Delhi 110001",
        photo: "base64jpeg",
        careOf: "S/O RAM",
      },
    };
    const out = redactValue(response) as { data: Record<string, unknown> };
    expect(out.data).toEqual({
      kycTransactionId: "kyc_txn_abc",
      maskedAadhaar: "XXXXXXXX1234",
      name: "ASHA DEVI",
      address: "[REDACTED]",
      fullAddress: "[REDACTED]",
      photo: "[REDACTED]",
      careOf: "[REDACTED]",
    });
  });

  it("leaves primitives and null values alone", () => {
    expect(redactValue("text")).toBe("text");
    expect(redactValue(5)).toBe(5);
    expect(redactValue(null)).toBeNull();
    expect(redactValue({ otp: null })).toEqual({ otp: null });
  });

  it("does not mutate its input", () => {
    const input = { otp: "123456", nested: { password: "pw" } };
    redactValue(input);
    expect(input).toEqual({ otp: "123456", nested: { password: "pw" } });
  });
});

describe("redactedBodyText", () => {
  it("stores JSON bodies redacted", () => {
    const raw = JSON.stringify({ merchantId: "mer_1", aadhaarNumber: "234567890009", otp: "123456" });
    const stored = redactedBodyText(raw)!;
    expect(JSON.parse(stored)).toEqual({ merchantId: "mer_1", aadhaarNumber: "[REDACTED]", otp: "[REDACTED]" });
    expect(stored).not.toContain("234567890009");
    expect(stored).not.toContain("123456");
  });

  it("accepts a Buffer", () => {
    const stored = redactedBodyText(Buffer.from(JSON.stringify({ cvv: "123", pan: "ABCPK1234F" })))!;
    expect(JSON.parse(stored)).toEqual({ cvv: "[REDACTED]", pan: "ABCPK1234F" });
  });

  it("does not store non-JSON text verbatim", () => {
    const raw = "aadhaarNumber=234567890009&otp=123456";
    const stored = redactedBodyText(raw)!;
    expect(stored).not.toContain("234567890009");
    expect(stored).not.toContain("123456");
    expect(JSON.parse(stored)).toEqual({ unparsed: true, bytes: Buffer.byteLength(raw) });
  });

  it("is null for an empty or missing body", () => {
    expect(redactedBodyText("")).toBeNull();
    expect(redactedBodyText(Buffer.alloc(0))).toBeNull();
    expect(redactedBodyText(null)).toBeNull();
    expect(redactedBodyText(undefined)).toBeNull();
  });
});

describe("redactedJson size cap", () => {
  const CAP = 256 * 1024;

  it("keeps bodies up to 256 KiB whole", () => {
    const value = { blob: "a".repeat(CAP - 20) };
    const text = redactedJson(value)!;
    expect(text.length).toBeLessThanOrEqual(CAP);
    expect(JSON.parse(text)).toEqual(value);
  });

  it("truncates bodies over 256 KiB with a marker", () => {
    const items = Array.from({ length: 40_000 }, (_, i) => ({ pan: "ABCPK1234F", reference_id: `ref_${i}` }));
    const full = JSON.stringify({ items });
    expect(full.length).toBeGreaterThan(CAP);

    const stored = redactedJson({ items })!;
    const parsed = JSON.parse(stored) as { truncated: boolean; originalBytes: number; head: string };
    expect(parsed.truncated).toBe(true);
    expect(parsed.originalBytes).toBe(full.length);
    expect(parsed.head).toBe(full.slice(0, CAP / 2));
    expect(stored.length).toBeLessThanOrEqual(CAP + 100);
    expect(stored.length).toBeLessThan(full.length / 2);
  });

  it("counts the cap in bytes, so three-byte characters cannot store three times as much", () => {
    const stored = redactedJson({ name: "一".repeat(200_000) })!;
    expect(Buffer.byteLength(stored)).toBeLessThanOrEqual(CAP + 100);
    expect(JSON.parse(stored)).toMatchObject({ truncated: true, originalBytes: expect.any(Number) });
  });

  it("redacts before truncating", () => {
    const items = Array.from({ length: 20_000 }, () => ({ otp: "987654", aadhaarNumber: "234567890009" }));
    const stored = redactedJson({ items })!;
    expect(JSON.parse(stored).truncated).toBe(true);
    expect(stored).not.toContain("987654");
    expect(stored).not.toContain("234567890009");
  });

  it("is null for undefined", () => {
    expect(redactedJson(undefined)).toBeNull();
  });
});

describe("redaction by value", () => {
  it.each([
    ["card_no", "4111111111111111"],
    ["ccnum", "4111 1111 1111 1111"],
    ["pan_card", "5555-5555-5555-4444"],
    ["note", "please charge 4000000000000002 today"],
  ])("redacts a Luhn-valid card number sent as %s", (key, value) => {
    const text = JSON.stringify(redactValue({ [key]: value }));
    expect(text).not.toMatch(/4111|5555|4000000000000002/);
    expect(text).toContain("[REDACTED]");
  });

  it("redacts a card number sent as a JSON number", () => {
    expect(redactValue({ cc: 4111111111111111 })).toEqual({ cc: "[REDACTED]" });
  });

  it("redacts CVVs under their other names", () => {
    expect(redactValue({ cvv2: "123", cvc2: "456", securityCode: "789" })).toEqual({ cvv2: "[REDACTED]", cvc2: "[REDACTED]", securityCode: "[REDACTED]" });
  });

  it("redacts secret keys and signing secrets wherever they are", () => {
    const out = JSON.stringify(
      redactValue({ apiKey: "sk_test_AbCdEfGh12345678", hint: "use whsec_Zx9Yw8Vu7 for webhooks", header: "Bearer sk_live_QwErTy123456789012" }),
    );
    expect(out).not.toMatch(/sk_test_A|whsec_Z|sk_live_Q/);
    expect(out.match(/\[REDACTED\]/g)).toHaveLength(3);
  });

  it("redacts Verhoeff-valid 12-digit numbers (Aadhaar), plain or grouped", () => {
    const out = JSON.stringify(redactValue({ id_no: "234567890009", other: "my uid is 9999 9999 0019" }));
    expect(out).not.toMatch(/234567890009|9999 9999 0019/);
  });

  it.each([
    ["no-break spaces", "4111\u00a01111\u00a01111\u00a01111"],
    ["narrow no-break and thin spaces", "4111\u202f1111\u20091111\u20091111"],
    ["zero-width spaces", "4111\u200b1111\u200b1111\u200b1111"],
    ["ideographic spaces", "4111\u30001111\u30001111\u30001111"],
    ["en dashes", "4111\u20131111\u20131111\u20131111"],
    ["minus signs", "4111\u22121111\u22121111\u22121111"],
    ["fullwidth digits", "\uff14\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11"],
  ])("redacts a card number written with %s", (_name, card) => {
    expect(redactString(`paid with ${card} yesterday`)).toBe("paid with [REDACTED] yesterday");
  });

  it("redacts an Aadhaar number in Devanagari digits, or with no-break spaces", () => {
    // 2345 6789 0009 (Verhoeff-valid) in Devanagari digits.
    expect(redactString("आधार २३४५६७८९०००९")).toBe("आधार [REDACTED]");
    expect(redactString("uid 9999\u00a09999\u00a00019")).toBe("uid [REDACTED]");
  });

  it("looks behind an id-like prefix: only our own ids' prefixes are kept as they are", () => {
    expect(redactString("key_sk_live_QwErTy123456789012")).toBe("key_[REDACTED]");
    expect(redactString("req_4111111111111111")).toBe("req_[REDACTED]");
    expect(redactString("pay_whsec_Zx9Yw8Vu7abc")).toBe("pay_[REDACTED]");
    expect(redactString("see batch_x_4111 1111 1111 1111 now")).toBe("see batch_x_[REDACTED] now");
    // Our own ids are unchanged, timestamps included.
    expect(redactString("pay_1763806530129_Xk2P9aQm4TzB7c kyc_txn_b95CJVPVd5zpI6xP")).toBe("pay_1763806530129_Xk2P9aQm4TzB7c kyc_txn_b95CJVPVd5zpI6xP");
  });

  it("keeps every id the app makes readable (10,000 of each kind, made by the id generators)", () => {
    const prefixes: IdPrefix[] = [
      "mer",
      "key",
      "idem",
      "aud",
      "ver",
      "att",
      "kyc_req",
      "kyc_txn",
      "batch",
      "evt",
      "req",
      "job",
      "whe",
      "del",
      "led",
      "hold",
      "rfnd",
    ];
    const changed: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const now = Date.now() + i * 7919;
      for (const id of [newPaymentId(), ...prefixes.map((p) => newId(p)), newSortableId("aud", now), newSortableId("led", now)]) {
        if (redactString(`ref ${id} end`) !== `ref ${id} end`) changed.push(id);
      }
    }
    expect(changed).toEqual([]);
  });

  it("keeps stored free text as written when it holds nothing to redact", () => {
    expect(storedFreeText("Blue shirt, size 40 (order 2 of 3)")).toBe("Blue shirt, size 40 (order 2 of 3)");
    expect(storedFreeText("Card 4111 1111 1111 1111 used")).toBe("Card [REDACTED] used");
    expect(storedFreeText(null)).toBeNull();
    expect(storedFreeText(undefined)).toBeNull();
  });

  it("keeps our own ids, UANs and numbers that are neither cards nor Aadhaar", () => {
    const input = {
      paymentId: "pay_1763806530129_Xk2P9aQm4TzB7c", // the 13-digit timestamp is Luhn-valid
      ref: "see pay_1763806530129_Xk2P9aQm4TzB7c and req_AbC123",
      uan: "234567890009", // Verhoeff-valid, but a UAN is an identifier the merchant sent
      phone: "+91 98765 43210",
      invoice: "4111111111111112", // fails Luhn
      twelve: "134567890009", // starts with 1: never an Aadhaar number
      // A merchant's own id with a millisecond timestamp that happens to pass Luhn: no card starts with 1.
      orderRef: "e2e_1795712038169",
      timestamp: 1795712038169,
      amount: 499.0,
      at: "2026-11-22T10:15:30.123Z",
    };
    expect(redactValue(input)).toEqual(input);
  });
});

describe("field names seen before", () => {
  it("are recognised the same after thousands of other names have passed", () => {
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`Field-${i}`, "plain"]));
    expect(redactValue(many)).toEqual(many);
    const long = `${"-".repeat(100)}secret_key`;
    expect(redactValue({ [long]: "x" })).toEqual({ [long]: "[REDACTED]" });
    expect(redactValue({ [long]: "x" })).toEqual({ [long]: "[REDACTED]" });
    for (const name of ["x-Secret-Key", "CardNumber", "otp"]) {
      expect(redactValue({ [name]: "4111111111111111", orderId: "A-1" })).toEqual({ [name]: "[REDACTED]", orderId: "A-1" });
    }
  });
});
