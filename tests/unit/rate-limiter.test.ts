import { describe, expect, it } from "vitest";
import { RateLimiter } from "@/server/services/rate-limiter";

const T0 = 1_700_000_000_000;

describe("RateLimiter (token bucket, explicit clock)", () => {
  it("allows a burst of N, then answers a positive retry-after in whole seconds", () => {
    const rl = new RateLimiter(5);
    for (let i = 0; i < 5; i++) expect(rl.take("k", T0)).toBe(0);
    const retry = rl.take("k", T0);
    expect(retry).toBeGreaterThan(0);
    expect(Number.isInteger(retry)).toBe(true);
    // Still limited at the same instant.
    expect(rl.take("k", T0)).toBeGreaterThan(0);
  });

  it("a refused request does not consume a token", () => {
    const rl = new RateLimiter(1);
    expect(rl.take("k", T0)).toBe(0);
    for (let i = 0; i < 10; i++) expect(rl.take("k", T0)).toBeGreaterThan(0);
    expect(rl.take("k", T0 + 1000)).toBe(0);
  });

  it("refills at N per second", () => {
    const rl = new RateLimiter(10);
    for (let i = 0; i < 10; i++) rl.take("k", T0);
    expect(rl.take("k", T0)).toBeGreaterThan(0);
    // 100 ms at 10/s = one token.
    expect(rl.take("k", T0 + 100)).toBe(0);
    expect(rl.take("k", T0 + 100)).toBeGreaterThan(0);
    // A full second refills the whole burst, and no more.
    const later = T0 + 100 + 1000;
    for (let i = 0; i < 10; i++) expect(rl.take("k", later)).toBe(0);
    expect(rl.take("k", later)).toBeGreaterThan(0);
  });

  it("never holds more than the burst, however long it idles", () => {
    const rl = new RateLimiter(3);
    rl.take("k", T0);
    const muchLater = T0 + 60 * 60 * 1000;
    for (let i = 0; i < 3; i++) expect(rl.take("k", muchLater)).toBe(0);
    expect(rl.take("k", muchLater)).toBeGreaterThan(0);
  });

  it("waiting the retry-after it gave is enough", () => {
    const rl = new RateLimiter(2);
    rl.take("k", T0);
    rl.take("k", T0);
    const retry = rl.take("k", T0) as number;
    expect(retry).toBeGreaterThan(0);
    expect(rl.take("k", T0 + retry * 1000)).toBe(0);
  });

  it("limit 0 never limits", () => {
    const rl = new RateLimiter(0);
    for (let i = 0; i < 1000; i++) expect(rl.take("k", T0)).toBe(0);
  });

  it("keys are independent", () => {
    const rl = new RateLimiter(2);
    rl.take("a", T0);
    rl.take("a", T0);
    expect(rl.take("a", T0)).toBeGreaterThan(0);
    expect(rl.take("b", T0)).toBe(0);
    expect(rl.take("b", T0)).toBe(0);
    expect(rl.take("b", T0)).toBeGreaterThan(0);
  });

  it("limiters are independent of each other", () => {
    const one = new RateLimiter(1);
    const two = new RateLimiter(1);
    expect(one.take("k", T0)).toBe(0);
    expect(two.take("k", T0)).toBe(0);
  });
});
