import { describe, expect, it } from "vitest";
import { isUniqueViolation } from "@/server/db/errors";

describe("isUniqueViolation", () => {
  it("knows a unique violation from a Prisma model call, a raw query and either direct driver", () => {
    expect(isUniqueViolation({ code: "P2002" })).toBe(true);
    expect(isUniqueViolation({ code: "P2010", meta: { code: "23505" } })).toBe(true);
    expect(isUniqueViolation({ code: "P2010", message: "UNIQUE constraint failed: Payment.openOrderKey" })).toBe(true);
    expect(isUniqueViolation({ code: "SQLITE_CONSTRAINT_UNIQUE" })).toBe(true);
    expect(isUniqueViolation({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" })).toBe(true);
    expect(isUniqueViolation({ code: "23505" })).toBe(true);
  });

  it("is false for every other failure", () => {
    expect(isUniqueViolation({ code: "P2025" })).toBe(false);
    expect(isUniqueViolation({ code: "P2010", meta: { code: "23503" }, message: "foreign key violation" })).toBe(false);
    expect(isUniqueViolation({ code: "SQLITE_CONSTRAINT_FOREIGNKEY" })).toBe(false);
    expect(isUniqueViolation(new Error("unique"))).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
    expect(isUniqueViolation("P2002")).toBe(false);
  });
});
