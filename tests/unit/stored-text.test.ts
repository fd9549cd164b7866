import { describe, expect, it } from "vitest";
import { findUnstorableField, isStorableText, mayHoldUnstorableEscapes, unstorableIn } from "@/lib/stored-text";

describe("text no database stores as sent", () => {
  it("is U+0000 and unpaired surrogates only", () => {
    expect(unstorableIn("a\u0000b")).toBe("U+0000");
    expect(unstorableIn("\ud800")).toBe("an unpaired surrogate");
    expect(unstorableIn("x\udc00")).toBe("an unpaired surrogate");
    expect(unstorableIn("\udc00\ud800")).toBe("an unpaired surrogate"); // reversed pair
    // Everything else is text: a proper pair, other controls, line and paragraph separators, bidi overrides, U+FFFD.
    for (const ok of ["😀", "\ud83d\ude00", "\u0001\u001f\u007f\u0085", "\u2028\u2029", "\u202e\u2066", "\ufffd", "", "नमस्ते"]) {
      expect(isStorableText(ok), JSON.stringify(ok)).toBe(true);
    }
  });

  it("names the first bad field in document order, keys included, as dotted paths", () => {
    expect(findUnstorableField({ a: "ok", b: { c: ["x", "y\u0000"] }, d: "\u0000" })).toEqual({ field: "b.c.1", message: "b.c.1 must not contain U+0000" });
    expect(findUnstorableField({ "k\u0000": 1 })).toEqual({ field: "k\\u0000", message: "k\\u0000 must not contain U+0000 in its name" });
    expect(findUnstorableField({ n: 1, t: true, z: null, s: "fine" })).toBeNull();
    expect(findUnstorableField("\ud800")).toEqual({ field: "body", message: "body must not contain an unpaired surrogate" });
    // A top-level key skipped (a batch's items, checked one by one); the same key deeper is not skipped.
    expect(findUnstorableField({ items: ["\u0000"], x: "ok" }, new Set(["items"]))).toBeNull();
    expect(findUnstorableField({ meta: { items: ["\u0000"] } }, new Set(["items"]))?.field).toBe("meta.items.0");
  });

  it("needs a walk only for JSON text with a \\u escape", () => {
    expect(mayHoldUnstorableEscapes(Buffer.from('{"name":"a\\u0000"}'))).toBe(true);
    expect(mayHoldUnstorableEscapes(Buffer.from('{"name":"\\uD800"}'))).toBe(true);
    expect(mayHoldUnstorableEscapes(Buffer.from('{"name":"Asha 😀\\n"}'))).toBe(false);
    // What JSON.parse makes of text without escapes can never hold them.
    // (A surrogate's own UTF-8 bytes are invalid UTF-8 and decode to U+FFFD; raw control bytes are not JSON.)
    for (const raw of [Buffer.from('"\\n\\t"'), Buffer.from('"😀"'), Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])]) {
      const parsed: string = JSON.parse(raw.toString("utf8"));
      expect(isStorableText(parsed)).toBe(true);
    }
    expect(() => JSON.parse(Buffer.from([0x22, 0x00, 0x22]).toString("utf8"))).toThrow(SyntaxError);
  });
});
