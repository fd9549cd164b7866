import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/server/db/client";
import { enqueueJob } from "@/server/jobs/queue";
import { JobRunner } from "@/server/jobs/runner";
import { wakeLane, wakeOnEnqueue } from "@/server/jobs/wake";
import { openTestDatabase } from "../helpers/test-db";
import { DB_TARGETS } from "../helpers/targets";
import { sleep, waitFor } from "../helpers/wait";

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe.each(DB_TARGETS)("waking a lane's runners on %s", (target) => {
  let db: Db;
  let stopDatabase: () => Promise<void>;
  const runners: JobRunner[] = [];

  beforeAll(async () => {
    const database = await openTestDatabase(target, "parakh-wake-");
    stopDatabase = database.stop;
    db = createPrismaClient(database.url);
  });
  afterAll(async () => {
    for (const r of runners) await r.stop();
    await db?.$disconnect();
    await stopDatabase?.();
  });

  it("a woken lane claims its new job at once; another lane waits for its poll", async () => {
    const ran: string[] = [];
    // Polls a minute apart: a job run within seconds was claimed because of the wake.
    const lane = (type: string) => {
      const r = new JobRunner(db, { pollMs: 60_000, leaseMs: 5_000, logger: quiet }).register(type, async () => void ran.push(type));
      runners.push(r);
      return r;
    };
    const batches = lane("wake.batches");
    const main = lane("wake.main");
    wakeOnEnqueue("batches", batches);
    wakeOnEnqueue("main", main);
    batches.start();
    main.start();
    // Both runners have made their first claim cycle (nothing due) and sleep until their next poll.
    await sleep(500);

    await enqueueJob(db, { type: "wake.batches", payload: {} });
    await enqueueJob(db, { type: "wake.main", payload: {} });
    wakeLane("batches");
    await waitFor("the woken lane's job", () => ran.includes("wake.batches"), 5_000, 10);
    await sleep(300);
    expect(ran).toEqual(["wake.batches"]);

    wakeLane("main");
    await waitFor("the other lane's job once woken", () => ran.includes("wake.main"), 5_000, 10);
  });
});
