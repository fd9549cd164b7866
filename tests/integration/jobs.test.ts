import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { DB_TARGETS } from "../helpers/db-targets";
import { createAtomicWriter, type AtomicWriter } from "@/server/db/atomic-write";
import { createPrismaClient, type Db } from "@/server/db/client";
import { openTestDatabase } from "../helpers/test-db";
import type { DbProvider } from "@/server/db/provider";
import { JOB_HANDLERS } from "@/server/job-handlers/handlers";
import { enqueueJob, purgeFinishedJobs } from "@/server/jobs/queue";
import { JobRunner, PermanentJobError, type JobLogger, type JobRunnerOptions, type RunningJob } from "@/server/jobs/runner";

// Two Prisma clients on one database stand for two app instances: each has its own connections,
// so claims race exactly as they would across processes.

interface LogLine {
  level: string;
  msg: string;
  fields?: Record<string, unknown>;
}

function memoryLogger(): JobLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const push = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  return { lines, info: push("info"), warn: push("warn"), error: push("error") };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 10_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe.each<DbProvider>(DB_TARGETS)("job queue on %s", (provider) => {
  let dbA: Db;
  let dbB: Db;
  let stopDatabase: () => Promise<void>;
  const runners: JobRunner[] = [];
  // Each client's runners write through an atomic writer, as the app's do.
  const writers = new Map<Db, AtomicWriter>();

  function runner(db: Db, options: JobRunnerOptions = {}): JobRunner & { logger: ReturnType<typeof memoryLogger> } {
    const logger = memoryLogger();
    // Leases far longer than any handler here unless a test is about leases: a loaded machine can
    // stall the event loop for a few hundred ms, which must not look like a dead worker.
    const r = new JobRunner(db, { pollMs: 20, leaseMs: 5_000, logger, writer: writers.get(db), ...options }) as JobRunner & {
      logger: ReturnType<typeof memoryLogger>;
    };
    r.logger = logger;
    runners.push(r);
    return r;
  }

  beforeAll(async () => {
    const { url, stop } = await openTestDatabase(provider, "parakh-jobs-");
    stopDatabase = stop;
    dbA = createPrismaClient(url);
    dbB = createPrismaClient(url);
    writers.set(dbA, createAtomicWriter(dbA, url));
    writers.set(dbB, createAtomicWriter(dbB, url));
  });

  afterAll(async () => {
    for (const w of writers.values()) w.close();
    await dbA?.$disconnect();
    await dbB?.$disconnect();
    await stopDatabase?.();
  });

  beforeEach(async () => {
    await dbA.job.deleteMany({});
  });

  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop(0)));
  });

  it("runs 200 jobs exactly once across two instances running concurrently", async () => {
    const ids = await dbA.$transaction(async (tx) => {
      const out = new Set<string>();
      for (let n = 0; n < 200; n++) out.add(await enqueueJob(tx, { type: "count", payload: { n } }));
      return out;
    });
    expect(ids.size).toBe(200);

    const runs: { n: number; worker: string }[] = [];
    const handler = (worker: string) => async (payload: { n: number }) => {
      runs.push({ n: payload.n, worker });
      await sleep(1 + (payload.n % 4));
    };
    const a = runner(dbA, { concurrency: 4 }).register("count", handler("a"));
    const b = runner(dbB, { concurrency: 4 }).register("count", handler("b"));
    const started = Date.now();
    a.start();
    b.start();
    await waitFor(async () => (await dbA.job.count({ where: { status: "DONE" } })) === 200, 20_000, "200 DONE");
    await Promise.all([a.stop(), b.stop()]);
    const elapsed = Date.now() - started;

    const ns = runs.map((r) => r.n);
    expect(ns.length).toBe(200);
    expect(new Set(ns).size).toBe(200);
    expect([...new Set(ns)].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(runs.some((r) => r.worker === "a")).toBe(true);
    expect(runs.some((r) => r.worker === "b")).toBe(true);
    const rows = await dbA.job.findMany();
    expect(rows.every((j) => j.status === "DONE" && j.attempts === 1 && j.lockedBy === null && j.lockedUntil === null)).toBe(true);
    expect(a.logger.lines.filter((l) => l.level !== "info")).toEqual([]);
    expect(b.logger.lines.filter((l) => l.level !== "info")).toEqual([]);
    console.info(`[${provider}] 200 jobs by two instances in ${elapsed} ms`);
  });

  it("takes over a job whose worker died once its lease expires, and ignores the dead worker's late outcome", async () => {
    const id = await enqueueJob(dbA, { type: "slow", payload: { v: 1 } });
    const release = deferred();
    let deadSignal: AbortSignal | undefined;
    // A long lease, expired below by hand: how long the steps take on a busy machine changes nothing.
    const dead = runner(dbA, { leaseMs: 60_000 }).register("slow", async (_p, job) => {
      deadSignal = job.signal;
      await release.promise;
      throw new Error("late failure from the lost worker");
    });
    const deadRun = dead.runOnce();
    // Its handler is running (the claim alone is not enough: the runner counts the job once the handler starts).
    await waitFor(() => deadSignal !== undefined, 10_000, "the handler to start");

    const seen: RunningJob[] = [];
    const healthy = runner(dbB, { leaseMs: 60_000 }).register("slow", async (_p, job) => void seen.push(job));
    expect(await healthy.runOnce()).toBe(0); // the lease is live

    // The worker "dies": no more heartbeats, handler still pending; then its lease runs out.
    expect(await dead.stop(0)).toEqual({ unfinished: 1 });
    expect(deadSignal?.aborted).toBe(true);
    await dbA.job.update({ where: { id }, data: { lockedUntil: new Date(Date.now() - 1) } });
    expect(await healthy.runOnce()).toBe(1);
    expect(seen.map((j) => j.attempts)).toEqual([2]);

    release.resolve();
    expect(await deadRun).toBe(1);
    const row = await dbA.job.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "DONE", attempts: 2, lastError: null, lockedBy: null });
    expect(dead.logger.lines.map((l) => l.msg)).toContain("job outcome discarded: lease lost to another worker");
  });

  it("runs a job left RUNNING with an expired lease (crashed process), and kills it when that was the last attempt", async () => {
    const past = new Date(Date.now() - 1_000);
    await dbA.job.create({
      data: { id: "job_crashed", type: "t", payload: "{}", status: "RUNNING", runAt: past, attempts: 1, maxAttempts: 3, lockedBy: "gone/1", lockedUntil: past },
    });
    await dbA.job.create({
      data: {
        id: "job_final",
        type: "t",
        payload: "{}",
        status: "RUNNING",
        runAt: past,
        attempts: 3,
        maxAttempts: 3,
        lockedBy: "gone/2",
        lockedUntil: past,
        uniqueKey: "final",
      },
    });
    await dbA.job.create({
      data: {
        id: "job_alive",
        type: "t",
        payload: "{}",
        status: "RUNNING",
        runAt: past,
        attempts: 1,
        lockedBy: "alive/1",
        lockedUntil: new Date(Date.now() + 60_000),
      },
    });
    const ran: string[] = [];
    const r = runner(dbB).register("t", async (_p, job) => void ran.push(job.id));
    expect(await r.runOnce()).toBe(2);
    expect(ran).toEqual(["job_crashed"]);
    expect(await dbA.job.findUniqueOrThrow({ where: { id: "job_crashed" } })).toMatchObject({ status: "DONE", attempts: 2 });
    expect(await dbA.job.findUniqueOrThrow({ where: { id: "job_final" } })).toMatchObject({
      status: "DEAD",
      uniqueKey: null,
      lastError: expect.stringContaining("lease expired"),
    });
    expect(await dbA.job.findUniqueOrThrow({ where: { id: "job_alive" } })).toMatchObject({ status: "RUNNING", lockedBy: "alive/1" });
  });

  it("retries a failing job with backoff, then marks it DEAD with a redacted lastError", async () => {
    const id = await enqueueJob(dbA, { type: "flaky", payload: {}, maxAttempts: 3, uniqueKey: "flaky-1" });
    const backoffCalls: number[] = [];
    const attemptsSeen: number[] = [];
    const r = runner(dbA).register(
      "flaky",
      async (_p, job) => {
        attemptsSeen.push(job.attempts);
        throw new Error("upstream said no to sk_live_SuperSecret123");
      },
      { backoff: (attempt) => (backoffCalls.push(attempt), 60_000) },
    );
    // Stands in for waiting out the backoff.
    const makeDue = () => dbA.job.update({ where: { id }, data: { runAt: new Date(Date.now() - 1) } });

    const before = Date.now();
    expect(await r.runOnce()).toBe(1);
    let row = await dbA.job.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "QUEUED", attempts: 1, lockedBy: null, uniqueKey: "flaky-1" });
    expect(row.runAt.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect(row.runAt.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(row.lastError).toContain("upstream said no");
    expect(await r.runOnce()).toBe(0); // not due yet

    await makeDue();
    expect(await r.runOnce()).toBe(1);
    await makeDue();
    expect(await r.runOnce()).toBe(1);
    row = await dbA.job.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "DEAD", attempts: 3, lockedBy: null, lockedUntil: null, uniqueKey: null });
    expect(row.lastError).toBe("upstream said no to sk_live_[REDACTED]");
    expect(attemptsSeen).toEqual([1, 2, 3]);
    expect(backoffCalls).toEqual([1, 2]);
    await dbA.job.update({ where: { id }, data: { runAt: new Date(0) } });
    expect(await r.runOnce()).toBe(0); // DEAD is final
    expect(r.logger.lines.some((l) => l.level === "error" && l.msg === "job dead")).toBe(true);
  });

  it("marks a job DEAD at once on PermanentJobError or an unreadable payload", async () => {
    const permanent = await enqueueJob(dbA, { type: "p", payload: { bad: true } });
    await dbA.job.create({ data: { id: "job_garbled", type: "p", payload: "{not json", runAt: new Date() } });
    let calls = 0;
    const r = runner(dbA).register("p", async () => {
      calls++;
      throw new PermanentJobError("payload refers to a deleted merchant");
    });
    expect(await r.runOnce()).toBe(2);
    expect(calls).toBe(1);
    expect(await dbA.job.findUniqueOrThrow({ where: { id: permanent } })).toMatchObject({
      status: "DEAD",
      attempts: 1,
      lastError: "PermanentJobError: payload refers to a deleted merchant",
    });
    expect(await dbA.job.findUniqueOrThrow({ where: { id: "job_garbled" } })).toMatchObject({
      status: "DEAD",
      lastError: "payload is not valid JSON",
    });
  });

  it("checks each claimed payload against the job's schema: one that does not fit is DEAD at once, its handler never called", async () => {
    const good = await enqueueJob(dbA, { type: "s", payload: { n: 1 } });
    const bad = await enqueueJob(dbA, { type: "s", payload: { n: "1", m: true } });
    const seen: unknown[] = [];
    const r = runner(dbA).register("s", async (p) => void seen.push(p), { payload: z.object({ n: z.number() }) });
    expect(await r.runOnce()).toBe(2);
    // The handler gets the parsed payload (unknown keys dropped), and only the one that fits.
    expect(seen).toEqual([{ n: 1 }]);
    expect(await dbA.job.findUniqueOrThrow({ where: { id: good } })).toMatchObject({ status: "DONE" });
    expect(await dbA.job.findUniqueOrThrow({ where: { id: bad } })).toMatchObject({
      status: "DEAD",
      attempts: 1,
      lastError: "payload does not fit the job's schema: n: Invalid input: expected number, received string",
    });
    expect(r.logger.lines.filter((l) => l.level === "error").map((l) => l.msg)).toEqual(["job dead"]);
  });

  it("the app's jobs refuse a payload that does not fit: DEAD with the reason, no retry, no give-up step", async () => {
    const r = runner(dbA);
    // Services that note every reach for them: neither a handler nor a give-up step may get that far.
    const reached: PropertyKey[] = [];
    const services = new Proxy({}, { get: (_, key) => void reached.push(key) });
    for (const type of ["payment.expire", "refund.process"]) {
      JOB_HANDLERS.find((h) => h.job.type === type)!.register(r, { services, deliverySlots: services } as never);
    }
    const expiry = await enqueueJob(dbA, { type: "payment.expire", payload: { paymentId: 42 } });
    const refund = await enqueueJob(dbA, { type: "refund.process", payload: {} });
    expect(await r.runOnce()).toBe(2);
    expect(await dbA.job.findUniqueOrThrow({ where: { id: expiry } })).toMatchObject({
      status: "DEAD",
      attempts: 1,
      lastError: "payload does not fit the job's schema: paymentId: Invalid input: expected string, received number",
    });
    expect(await dbA.job.findUniqueOrThrow({ where: { id: refund } })).toMatchObject({
      status: "DEAD",
      attempts: 1,
      lastError: "payload does not fit the job's schema: refundId: Invalid input: expected string, received undefined",
    });
    expect(reached).toEqual([]);
  });

  it("reschedules on { retryAt } without spending attempts", async () => {
    const id = await enqueueJob(dbA, { type: "poll", payload: { step: "x" }, maxAttempts: 1 });
    const attemptsSeen: number[] = [];
    let retryAt: Date | undefined;
    const r = runner(dbA).register("poll", async (_p, job) => {
      attemptsSeen.push(job.attempts);
      if (attemptsSeen.length < 3) return { retryAt: (retryAt = new Date(Date.now() + 60_000)) };
    });
    const makeDue = () => dbA.job.update({ where: { id }, data: { runAt: new Date(Date.now() - 1) } });

    expect(await r.runOnce()).toBe(1);
    const row = await dbA.job.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "QUEUED", attempts: 0, lastError: null, lockedBy: null });
    expect(row.runAt.getTime()).toBe(retryAt!.getTime());
    expect(await r.runOnce()).toBe(0);
    await makeDue();
    expect(await r.runOnce()).toBe(1);
    await makeDue();
    expect(await r.runOnce()).toBe(1);
    expect(await dbA.job.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "DONE", attempts: 1 });
    expect(attemptsSeen).toEqual([1, 1, 1]); // maxAttempts 1 and still three runs
  });

  it("dedupes on uniqueKey while the job is live, also under concurrent enqueues, and frees the key when it ends", async () => {
    const first = await enqueueJob(dbA, { type: "u", payload: { v: 1 }, uniqueKey: "pay_1:expire" });
    const again = await Promise.all(
      Array.from({ length: 10 }, (_, i) => enqueueJob(i % 2 ? dbA : dbB, { type: "u", payload: { v: 2 + i }, uniqueKey: "pay_1:expire" })),
    );
    expect(new Set(again)).toEqual(new Set([first]));
    expect(await dbA.job.count()).toBe(1);
    expect(JSON.parse((await dbA.job.findUniqueOrThrow({ where: { id: first } })).payload)).toEqual({ v: 1 });

    // Fresh key racing from both instances: one row.
    const racing = await Promise.all(Array.from({ length: 10 }, (_, i) => enqueueJob(i % 2 ? dbA : dbB, { type: "u", payload: {}, uniqueKey: "race" })));
    expect(new Set(racing).size).toBe(1);
    expect(await dbA.job.count({ where: { uniqueKey: "race" } })).toBe(1);

    const payloads: unknown[] = [];
    const r = runner(dbA).register("u", async (p) => void payloads.push(p));
    expect(await r.runOnce()).toBe(2);
    expect(payloads).toContainEqual({ v: 1 });
    expect(await dbA.job.findUniqueOrThrow({ where: { id: first } })).toMatchObject({ status: "DONE", uniqueKey: null });

    const reused = await enqueueJob(dbA, { type: "u", payload: { v: 3 }, uniqueKey: "pay_1:expire" });
    expect(reused).not.toBe(first);
    expect(await dbA.job.count({ where: { uniqueKey: "pay_1:expire" } })).toBe(1);
  });

  it("enqueues inside a transaction: nothing on rollback, the job on commit (also with uniqueKey)", async () => {
    await expect(
      dbA.$transaction(async (tx) => {
        await enqueueJob(tx, { type: "tx", payload: { n: 1 } });
        await enqueueJob(tx, { type: "tx", payload: { n: 2 }, uniqueKey: "tx-key" });
        throw new Error("payment transition failed");
      }),
    ).rejects.toThrow("payment transition failed");
    expect(await dbA.job.count()).toBe(0);

    const ids = await dbA.$transaction(async (tx) => [
      await enqueueJob(tx, { type: "tx", payload: { n: 3 } }),
      await enqueueJob(tx, { type: "tx", payload: { n: 4 }, uniqueKey: "tx-key" }),
      await enqueueJob(tx, { type: "tx", payload: { n: 5 }, uniqueKey: "tx-key" }),
    ]);
    expect(ids[1]).toBe(ids[2]);
    expect((await dbA.job.findMany({ orderBy: { id: "asc" } })).map((j) => j.id).sort()).toEqual([ids[0], ids[1]].sort());
  });

  it("leaves job types it has no handler for to other workers", async () => {
    const other = await enqueueJob(dbA, { type: "other.kind", payload: {} });
    const mine = await enqueueJob(dbA, { type: "mine", payload: {} });
    const r = runner(dbA).register("mine", async () => {});
    expect(await r.runOnce()).toBe(1);
    expect(await r.runOnce()).toBe(0);
    expect(await dbA.job.findUniqueOrThrow({ where: { id: other } })).toMatchObject({ status: "QUEUED", attempts: 0, lockedBy: null });
    expect(await dbA.job.findUniqueOrThrow({ where: { id: mine } })).toMatchObject({ status: "DONE" });
    expect(await runner(dbA).runOnce()).toBe(0); // nothing registered, nothing claimed
  });

  it("stop() waits for a running handler, then claims nothing more", async () => {
    const id = await enqueueJob(dbA, { type: "graceful", payload: {} });
    const inHandler = deferred();
    let finishedAt = 0;
    const r = runner(dbA, { pollMs: 10 }).register("graceful", async () => {
      inHandler.resolve();
      await sleep(300);
      finishedAt = Date.now();
    });
    r.start();
    await inHandler.promise;
    const later = await enqueueJob(dbA, { type: "graceful", payload: {} });
    const stopResult = await r.stop(5_000);
    const stoppedAt = Date.now();

    expect(stopResult).toEqual({ unfinished: 0 });
    expect(finishedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeGreaterThanOrEqual(finishedAt);
    expect(await dbA.job.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "DONE" });
    await sleep(50);
    expect(await dbA.job.findUniqueOrThrow({ where: { id: later } })).toMatchObject({ status: "QUEUED", attempts: 0 });
  });

  it("stop() while a claim is on its way gives that job back untouched, and its handler never runs", async () => {
    const runAt = new Date(Date.now() - 60_000);
    const id = await enqueueJob(dbA, { type: "given-back", payload: {}, runAt });
    const base = writers.get(dbA)!;
    // The claim commits, then its answer is held back until stop() has begun.
    const claimed = deferred();
    const answer = deferred();
    let first = true;
    const held: AtomicWriter = {
      ...base,
      run: async (step) => {
        const result = await base.run(step);
        if (first) {
          first = false;
          claimed.resolve();
          await answer.promise;
        }
        return result;
      },
    };
    let ran = false;
    const r = runner(dbA, { pollMs: 10, writer: held }).register("given-back", async () => {
      ran = true;
    });
    r.start();
    await claimed.promise;
    expect(await dbA.job.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "RUNNING", attempts: 1 });
    const stopping = r.stop(5_000);
    answer.resolve();
    expect(await stopping).toEqual({ unfinished: 0 });

    expect(ran).toBe(false);
    const row = await dbA.job.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "QUEUED", attempts: 0, lockedBy: null, lockedUntil: null });
    expect(row.runAt.getTime()).toBe(runAt.getTime());
  });

  it("stop() gives up on a stuck handler after its timeout and aborts its signal", async () => {
    const id = await enqueueJob(dbA, { type: "stuck", payload: {} });
    const inHandler = deferred<AbortSignal>();
    const r = runner(dbA, { pollMs: 10 }).register("stuck", async (_p, job) => {
      inHandler.resolve(job.signal);
      await new Promise(() => {});
    });
    r.start();
    const signal = await inHandler.promise;
    const t0 = Date.now();
    expect(await r.stop(100)).toEqual({ unfinished: 1 });
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(signal.aborted).toBe(true);
    expect(await dbA.job.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "RUNNING" }); // for a lease takeover
  });

  it("renews the lease of a long handler so no other instance takes the job", async () => {
    const id = await enqueueJob(dbA, { type: "long", payload: {} });
    const runsBy: string[] = [];
    const lockedUntils: number[] = [];
    const a = runner(dbA, { leaseMs: 500 }).register("long", async (_p, job) => {
      runsBy.push("a");
      for (let i = 0; i < 15; i++) {
        await sleep(100);
        const row = await dbA.job.findUniqueOrThrow({ where: { id } });
        lockedUntils.push(row.lockedUntil!.getTime());
        expect(job.signal.aborted).toBe(false);
      }
    });
    const b = runner(dbB, { leaseMs: 500, pollMs: 10 }).register("long", async () => void runsBy.push("b"));
    const aRun = a.runOnce();
    await waitFor(async () => (await dbA.job.findUnique({ where: { id } }))?.status === "RUNNING", 5_000, "claim");
    b.start(); // polls throughout the 1.5 s run, 3 lease lengths
    expect(await aRun).toBe(1);
    await b.stop();

    expect(runsBy).toEqual(["a"]);
    expect(await dbA.job.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "DONE", attempts: 1 });
    expect(lockedUntils[lockedUntils.length - 1]! - lockedUntils[0]!).toBeGreaterThan(1_000);
  });

  it("poke() runs new work at once; an idle runner polls at pollMs, not in a busy loop", async () => {
    let claimQueries = 0;
    // Counts this runner's due-job queries (the expired-lease look-up runs on its own schedule).
    const counted = new Proxy(dbA, {
      get(target, prop, receiver) {
        if (prop !== "job") return Reflect.get(target, prop, receiver);
        const job = target.job;
        return new Proxy(job, {
          get(j, p) {
            if (p === "findMany") {
              return (...args: Parameters<typeof job.findMany>) => {
                if (args[0]?.where?.status === "QUEUED") claimQueries++;
                return j.findMany(...args);
              };
            }
            return Reflect.get(j, p);
          },
        });
      },
    });
    const idle = runner(counted, { pollMs: 200 }).register("idle", async () => {});
    idle.start();
    await sleep(650);
    expect(claimQueries).toBeGreaterThanOrEqual(2);
    expect(claimQueries).toBeLessThanOrEqual(6);

    // Without the poke this job would wait for the next poll, 5 s away.
    const done = deferred();
    const r = runner(dbB, { pollMs: 5_000 }).register("poked", async () => done.resolve());
    r.start();
    await sleep(50);
    const t0 = Date.now();
    await enqueueJob(dbA, { type: "poked", payload: {} });
    r.poke();
    await done.promise;
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it("purgeFinishedJobs deletes old DONE jobs (and DEAD ones on request), never live ones", async () => {
    const old = new Date(Date.now() - 10 * 86_400_000);
    const recent = new Date();
    const base = { type: "p", payload: "{}", runAt: old };
    await dbA.job.createMany({
      data: [
        { ...base, id: "done_old_1", status: "DONE", updatedAt: old },
        { ...base, id: "done_old_2", status: "DONE", updatedAt: old },
        { ...base, id: "done_old_3", status: "DONE", updatedAt: old },
        { ...base, id: "done_new", status: "DONE", updatedAt: recent },
        { ...base, id: "dead_old", status: "DEAD", updatedAt: old },
        { ...base, id: "queued_old", status: "QUEUED", updatedAt: old },
        { ...base, id: "running_old", status: "RUNNING", updatedAt: old },
      ],
    });
    const cutoff = new Date(Date.now() - 86_400_000);
    expect(await purgeFinishedJobs(dbA, cutoff, { chunkSize: 2 })).toBe(3);
    expect((await dbA.job.findMany({ select: { id: true } })).map((j) => j.id).sort()).toEqual(["dead_old", "done_new", "queued_old", "running_old"]);
    expect(await purgeFinishedJobs(dbA, cutoff, { includeDead: true })).toBe(1);
    expect(await dbA.job.count()).toBe(3);
  });
});
