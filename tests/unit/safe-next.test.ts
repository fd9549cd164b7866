import { describe, expect, it } from "vitest";
import { safeNextPath } from "@/lib/safe-next";

describe("safeNextPath", () => {
  it.each([
    ["/dashboard/keys", "/dashboard/keys"],
    ["/dashboard/payments?status=FAILED#top", "/dashboard/payments?status=FAILED#top"],
  ])("keeps the site's own path %s", (value, expected) => {
    expect(safeNextPath(value, "/dashboard")).toBe(expected);
  });

  it.each(["//evil.example", "/\\evil.example", "/\t/evil.example", "/%5Cevil.example", "https://evil.example/x", "javascript:alert(1)", "", null])(
    "never leaves the site for %j",
    (value) => {
      const out = safeNextPath(value, "/dashboard");
      expect(new URL(out, "https://parakh.example").origin).toBe("https://parakh.example");
    },
  );
});
