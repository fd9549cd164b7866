import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import type { DbProvider } from "@/server/db/provider";
import { bindRecurringJob, type JobDeps } from "@/server/job-handlers/bind";
import { defineRecurringJob } from "@/server/jobs/recurring";
import { JobRunner, type JobLogger } from "@/server/jobs/runner";
import type { AppServices } from "@/server/services";
import { DB_TARGETS } from "../helpers/db-targets";
import { openTestDatabase } from "../helpers/test-db";
import { sleep, waitFor } from "../helpers/wait";

// Two Prisma clients and two job runners on one database stand for two app instances, each
// scheduling the same recurring task as it would at start-up.

const quiet: JobLogger = { info() {}, warn() {}, error() {} };

describe.each<DbProvider>(DB_TARGETS)("recurring jobs on %s", (provider) => {
  let dbA: Db;
  let dbB: Db;
  let stopDatabase: () => Promise<void>;

  beforeAll(async () => {
    const { url, stop } = await openTestDatabase(provider, "parakh-recurring-");
    stopDatabase = stop;
    dbA = createPrismaClient(url);
    dbB = createPrismaClient(url);
  });

  afterAll(async () => {
    await dbA?.$disconnect();
    await dbB?.$disconnect();
    await stopDatabase?.();
  });

  it("runs a recurring task once per period across two instances; instances starting together share one start-up run", async () => {
    const PERIOD_MS = 400;
    const runs: { period: string; by: string }[] = [];
    const task = defineRecurringJob("test.recurring", { periodMs: PERIOD_MS, runAfterStartMs: 0 });
    const work = bindRecurringJob(task, async (deps, periodStart) => {
      runs.push({ period: periodStart?.toISOString() ?? "start-up", by: deps.services.db === dbA ? "a" : "b" });
      await sleep(20); // long enough for the other instance to look for the same work meanwhile
    });
    const instance = (db: Db, name: string) => {
      const runner = new JobRunner(db, { workerId: name, pollMs: 10, leaseMs: 5_000, logger: quiet });
      work.register(runner, { services: { db } as AppServices } as JobDeps);
      return runner;
    };
    const a = instance(dbA, "a");
    const b = instance(dbB, "b");

    // Both instances start at once, each booking the next period and a start-up run.
    await Promise.all([task.schedule(dbA), task.schedule(dbB)]);
    a.start();
    b.start();
    const startUpRuns = () => runs.filter((r) => r.period === "start-up").length;
    try {
      // Instances starting together share one start-up run.
      await waitFor("the start-up run", () => startUpRuns() > 0, 10_000, 10);
      await sleep(100);
      expect(startUpRuns()).toBe(1);
      const periods = () => new Set(runs.filter((r) => r.period !== "start-up").map((r) => r.period));
      // Instances that start later, or again, book the same periods (and each asks for a start-up run of its own).
      for (let i = 0; i < 6; i++) {
        await sleep(PERIOD_MS / 2);
        await task.schedule(i % 2 ? dbA : dbB);
      }
      await waitFor("four periods run", () => periods().size >= 4, 20_000, 20);
      // An instance whose clock lags books a period that has already run: it does not run again.
      for (const period of periods()) await task.schedule(dbB, new Date(Date.parse(period) - PERIOD_MS / 2));
      await sleep(200);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }

    const byPeriod = new Map<string, string[]>();
    for (const r of runs) if (r.period !== "start-up") byPeriod.set(r.period, [...(byPeriod.get(r.period) ?? []), r.by]);
    // Each period ran once, whichever instance claimed it.
    expect(byPeriod.size).toBeGreaterThanOrEqual(4);
    for (const [period, by] of byPeriod) expect({ period, runs: by.length }).toEqual({ period, runs: 1 });
    for (const period of byPeriod.keys()) expect(Date.parse(period) % PERIOD_MS).toBe(0);
    // One job row per period, whatever the number of instances that booked it.
    const rows = await dbA.job.findMany({ where: { type: "test.recurring", periodKey: { not: null } }, select: { periodKey: true } });
    expect(new Set(rows.map((r) => r.periodKey)).size).toBe(rows.length);
  });
});
