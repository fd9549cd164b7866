import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AtomicWriter } from "@/server/db/atomic-write";
import type { Db } from "@/server/db/client";
import { conditionalUpdates } from "@/server/db/conditional-update";
import type { DbProvider } from "@/server/db/provider";
import { DB_TARGETS } from "../helpers/db-targets";
import { openTestWriter } from "../helpers/test-db";

// The SQL the leases' conditional updates become must do what Prisma's own updateMany does with the
// same arguments: each case runs both ways on twin rows and compares the rows afterwards.
describe.each<DbProvider>(DB_TARGETS)("conditional updates on %s", (provider) => {
  let db: Db;
  let writer: AtomicWriter;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ db, writer, close } = await openTestWriter(provider, "parakh-conditional-"));
  });
  afterAll(() => close?.());

  const t0 = new Date("2026-11-27T10:00:00.000Z");
  const minutes = (n: number) => new Date(t0.getTime() + n * 60_000);
  const twins = async (suffix: string, row: { status: string; runAt: Date; lockedBy?: string | null; lockedUntil?: Date | null; attempts?: number }) => {
    for (const side of ["prisma", "sql"]) {
      await db.job.create({ data: { id: `job_${side}_${suffix}`, type: "test.conditional", payload: "{}", maxAttempts: 5, ...row } });
    }
  };
  const strip = (r: Record<string, unknown>) => {
    const { id: _id, updatedAt: _u, createdAt: _c, ...rest } = r;
    return rest;
  };

  it.each([
    ["a due row is claimed with an increment", { status: "QUEUED", runAt: minutes(-1), attempts: 2 }, true],
    ["a row not yet due is left alone", { status: "QUEUED", runAt: minutes(5), attempts: 2 }, false],
    [
      "a row held under a lease that ran out is taken over",
      { status: "RUNNING", runAt: minutes(-9), lockedBy: "w1", lockedUntil: minutes(-1), attempts: 2 },
      true,
    ],
    ["a row held under a live lease is left alone", { status: "RUNNING", runAt: minutes(-9), lockedBy: "w1", lockedUntil: minutes(3), attempts: 2 }, false],
    ["a row read at another attempt count is left alone", { status: "QUEUED", runAt: minutes(-1), attempts: 3 }, false],
  ] as const)("%s", async (name, row, claimed) => {
    const suffix = name.replace(/\W+/g, "_");
    await twins(suffix, row);
    const args = (side: string) => ({
      where: {
        id: `job_${side}_${suffix}`,
        attempts: 2,
        OR: [
          { status: "QUEUED", runAt: { lte: t0 } },
          { status: "RUNNING", lockedUntil: { lt: t0 } },
        ],
      },
      data: { status: "RUNNING", lockedBy: "w2/abc", lockedUntil: minutes(1), attempts: { increment: 1 } },
    });
    const viaPrisma = await db.job.updateMany(args("prisma"));
    const viaSql = await conditionalUpdates(writer, "Job", { updatedAt: true }).updateMany(args("sql"));
    expect(viaSql.count).toBe(viaPrisma.count);
    expect(viaSql.count).toBe(claimed ? 1 : 0);
    const [p, s] = await Promise.all(["prisma", "sql"].map((side) => db.job.findUniqueOrThrow({ where: { id: `job_${side}_${suffix}` } })));
    expect(strip(s!)).toEqual(strip(p!));
  });

  it("releases a held row by its token, writing nulls, a decrement and a date", async () => {
    await twins("release", { status: "RUNNING", runAt: minutes(-2), lockedBy: "w2/abc", lockedUntil: minutes(1), attempts: 3 });
    const args = (side: string) => ({
      where: { id: `job_${side}_release`, status: "RUNNING", lockedBy: "w2/abc" },
      data: { status: "QUEUED", runAt: minutes(7), lastError: "try later", attempts: { decrement: 1 }, lockedBy: null, lockedUntil: null },
    });
    expect((await conditionalUpdates(writer, "Job", { updatedAt: true }).updateMany(args("sql"))).count).toBe(1);
    expect((await db.job.updateMany(args("prisma"))).count).toBe(1);
    const [p, s] = await Promise.all(["prisma", "sql"].map((side) => db.job.findUniqueOrThrow({ where: { id: `job_${side}_release` } })));
    expect(strip(s!)).toEqual(strip(p!));
    expect(s!.updatedAt.getTime()).toBeGreaterThan(t0.getTime());
    // Another claim's token changes nothing.
    const other = { where: { id: "job_sql_release", status: "RUNNING", lockedBy: "w9/zzz" }, data: { status: "DONE" } };
    expect((await conditionalUpdates(writer, "Job").updateMany(other)).count).toBe(0);
  });

  it("leaves out keys whose value is undefined, as Prisma does", async () => {
    await twins("undefined", { status: "RUNNING", runAt: minutes(-2), lockedBy: "w3/def", lockedUntil: minutes(1), attempts: 1 });
    const args = (side: string) => ({
      where: { id: `job_${side}_undefined`, status: "RUNNING", lockedBy: "w3/def", attempts: undefined },
      data: { status: "DONE", lastError: undefined, runAt: undefined, lockedBy: null, lockedUntil: null },
    });
    expect((await conditionalUpdates(writer, "Job", { updatedAt: true }).updateMany(args("sql"))).count).toBe(1);
    expect((await db.job.updateMany(args("prisma"))).count).toBe(1);
    const [p, s] = await Promise.all(["prisma", "sql"].map((side) => db.job.findUniqueOrThrow({ where: { id: `job_${side}_undefined` } })));
    expect(strip(s!)).toEqual(strip(p!));
    expect(s!.runAt).toEqual(minutes(-2));
  });

  it("refuses what it does not understand instead of guessing", async () => {
    const rows = conditionalUpdates(writer, "Job");
    await expect(rows.updateMany({ where: { id: "x", runAt: { gte: t0 } }, data: { status: "DONE" } })).rejects.toThrow(/unsupported condition/);
    await expect(rows.updateMany({ where: { id: "x" }, data: { attempts: { multiply: 2 } } })).rejects.toThrow(/unsupported update/);
    await expect(rows.updateMany({ where: {}, data: { status: "DONE" } })).rejects.toThrow(/needs a condition/);
    await expect(rows.updateMany({ where: { id: "x" }, data: { lastError: undefined } })).rejects.toThrow(/needs a column/);
  });
});
