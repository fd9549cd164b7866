import { describe, expect, it } from "vitest";
import { dateFromSql, sqliteValue } from "@/server/db/sql-encoding";

describe("DateTime columns read by raw SQL", () => {
  it("reads back what Prisma's SQLite adapter stores, to the millisecond", () => {
    const at = new Date(Date.UTC(2026, 10, 27, 18, 4, 5, 67));
    expect(sqliteValue(at)).toBe("2026-11-27T18:04:05.067+00:00");
    expect(dateFromSql(sqliteValue(at))).toEqual(at);
  });

  it("reads SQLite's own CURRENT_TIMESTAMP text as UTC, whatever the process's time zone", () => {
    expect(dateFromSql("2026-11-27 18:04:05")!.toISOString()).toBe("2026-11-27T18:04:05.000Z");
    expect(dateFromSql("2026-11-27 18:04:05.250")!.toISOString()).toBe("2026-11-27T18:04:05.250Z");
  });

  it("passes PostgreSQL's Dates through, reads epoch milliseconds, and keeps null", () => {
    const at = new Date("2026-01-02T03:04:05.006Z");
    expect(dateFromSql(at)).toBe(at);
    expect(dateFromSql(at.getTime())).toEqual(at);
    expect(dateFromSql(null)).toBeNull();
    expect(dateFromSql(undefined)).toBeNull();
  });
});
