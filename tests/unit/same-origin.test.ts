import { describe, expect, it } from "vitest";
import { isSameOriginRequest } from "@/server/http/same-origin";

describe("isSameOriginRequest", () => {
  const host = "parakh.example:3000";
  it.each([
    ["1", null, true],
    ["1", "http://parakh.example:3000", true],
    ["1", "https://PARAKH.example:3000", true],
    [null, "http://parakh.example:3000", false],
    ["1", "null", false],
    ["1", "http://parakh.example:3000.evil.test", false],
    ["1", "http://evil.test", false],
    ["1", "not a url", false],
    ["1", "file://parakh.example:3000", false],
  ])("csrf=%s origin=%s → %s", (csrf, origin, expected) => {
    expect(isSameOriginRequest(csrf, origin, host)).toBe(expected);
  });
});
