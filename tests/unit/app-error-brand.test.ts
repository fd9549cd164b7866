import { describe, expect, it, vi } from "vitest";

// Next's bundle of the pages has its own copy of src/server/errors.ts beside the one the process's
// services were built from. Two fresh imports of the module stand for the two copies here.
async function freshCopy() {
  vi.resetModules();
  return import("@/server/errors");
}

describe("an AppError from another copy of the module", () => {
  it("is recognised by isAppError, code and all, where instanceof fails", async () => {
    const pages = await freshCopy();
    const services = await freshCopy();
    expect(pages.AppError).not.toBe(services.AppError);
    const thrown = new services.AppError("SOURCE_TIMEOUT", "The vendor did not answer.", { retryAfterSeconds: 5 });
    expect(thrown instanceof pages.AppError).toBe(false);
    expect(pages.isAppError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: "SOURCE_TIMEOUT", status: 504, retryAfterSeconds: 5 });
  });

  it("is told apart from look-alikes: a plain error, an object with a code, an unknown code", async () => {
    const { AppError, isAppError } = await freshCopy();
    expect(isAppError(new Error("SOURCE_TIMEOUT"))).toBe(false);
    expect(isAppError({ code: "SOURCE_TIMEOUT", status: 504, message: "x" })).toBe(false);
    expect(isAppError(null)).toBe(false);
    const forged = Object.assign(new AppError("CONFLICT"), { code: "NOT_A_CODE" });
    expect(isAppError(forged)).toBe(false);
  });
});
