import { afterAll, describe, expect, it } from "vitest";
import { sandboxProviders } from "@/server/providers";
import { runChunkPass, type ChunkPass, type ChunkPassJob } from "@/server/services/batches/chunk-pass";
import { prepareBatchItems } from "@/server/services/batches/batches";
import { ChunkThread } from "@/server/services/batches/chunk-thread";

/**
 * A chunk as a submission stores it, with the sandbox PAN fixtures of docs/api.md: serial 1234 VALID,
 * 9991 INVALID, 9992 DEACTIVATED, 9997 SOURCE_TIMEOUT (Retry-After 5 s); an item stored without its
 * PAN (cannot be run), and one rejected at submission.
 */
const [STORED] = prepareBatchItems(
  [
    { reference_id: "valid", input: { pan: "ABCPK1234F", name: "Arjun Kapoor" }, error: null },
    { reference_id: "not-on-record", input: { pan: "ABCPK9991F", name: "Arjun Kapoor" }, error: null },
    { reference_id: "deactivated", input: { pan: "ABCPK9992F", name: null }, error: null },
    { reference_id: "timeout", input: { pan: "ABCPK9997F", name: null }, error: null },
    { reference_id: "damaged", input: {}, error: null },
    { reference_id: "rejected", input: { pan: "NOTAPAN" }, error: { code: "INVALID_PAN", message: "pan is not a PAN." } },
  ],
  1000,
).chunks;

const firstPass = (): ChunkPassJob => ({ kind: "PAN", items: STORED!.items, results: STORED!.results, retryingSince: null, retryBudgetMs: 30_000 });

/** The pass without what differs run to run: row ids (random) and its times. */
function comparable(pass: ChunkPass) {
  if (!pass.done) return { ...pass, firstTransientAt: 0 };
  return { ...pass, rows: { ...pass.rows, id: pass.rows.id.map((id) => id.slice(0, 4)) } };
}

describe("the batch chunk thread", () => {
  const thread = new ChunkThread();
  afterAll(() => thread.close());

  it("runs a pass as the event loop does: transient items wait, then fail once past their budget", async () => {
    const started = Date.now();
    const first = await thread.run(firstPass());
    if (first.done) throw new Error("the timeout must wait for a retry");
    expect(first).toMatchObject({ waitMs: 5_000, succeeded: 3, failed: 1 });
    expect(first.firstTransientAt).toBeGreaterThanOrEqual(started);
    expect(first.firstTransientAt).toBeLessThanOrEqual(Date.now());
    const outcomes = JSON.parse(first.results) as ({ result: { status: string } | null; error: { code: string } | null } | null)[];
    expect(outcomes.map((o) => o && (o.error?.code ?? o.result?.status))).toEqual(["VALID", "INVALID", "DEACTIVATED", null, "INTERNAL_ERROR", "INVALID_PAN"]);
    expect(comparable(first)).toEqual(comparable(await runChunkPass(firstPass(), sandboxProviders)));

    // Next pass, the retry budget spent: the timeout is the item's outcome, and every item run has its history row.
    const before = Date.now();
    const last: ChunkPassJob = { ...firstPass(), results: first.results, retryingSince: before - 60_000 };
    const done = await thread.run(last);
    if (!done.done) throw new Error("the pass past the budget must finish the chunk");
    expect(done).toMatchObject({ succeeded: 3, failed: 2 });
    expect(done.rows).toMatchObject({
      subject: ["ABCPK1234F", "ABCPK9991F", "ABCPK9992F", "ABCPK9997F"],
      nameQueried: ["Arjun Kapoor", "Arjun Kapoor", null, null],
      outcome: ["VALID", "INVALID", "DEACTIVATED", "ERROR"],
      sourceNameMatch: [null, null, null, null],
      errorCode: [null, null, null, "SOURCE_TIMEOUT"],
    });
    expect(done.rows.nameMatch.map((m) => m === null)).toEqual([false, true, true, true]);
    expect(new Set(done.rows.id).size).toBe(4);
    expect(comparable(done)).toEqual(comparable(await runChunkPass(last, sandboxProviders)));
  });

  it("fails the passes in hand when its thread ends, and starts a new thread for the next", async () => {
    const inHand = expect(thread.run(firstPass())).rejects.toThrow(/exited/);
    await thread.close();
    await inHand;
    expect(await thread.run(firstPass())).toMatchObject({ done: false, succeeded: 3 });
  });

  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  it("starts early first passes on idle threads only, and hands each once to the worker that needs that same first pass", async () => {
    const pool = new ChunkThread(2);
    pool.early.enable();
    try {
      for (const id of ["a", "b", "c"]) pool.early.start(id, firstPass());
      // Two idle threads took a and b; c waits, and the worker that claims it now runs it itself.
      expect(pool.early.take("c", firstPass())).toBeUndefined();
      const taken = pool.early.take("a", firstPass());
      expect(taken).toBeDefined();
      expect(comparable(await taken!)).toEqual(comparable(await runChunkPass(firstPass(), sandboxProviders)));
      // Once only: a second claim of the chunk (its first worker lost its lease) runs a pass of its own.
      expect(pool.early.take("a", firstPass())).toBeUndefined();
      // Not for a later pass (the chunk was put back for a retry), other stored outcomes, or another retry budget.
      for (const id of ["d", "e"]) pool.early.start(id, firstPass());
      await settle();
      expect(pool.early.take("b", { ...firstPass(), retryingSince: Date.now() })).toBeUndefined();
      expect(pool.early.take("d", { ...firstPass(), results: JSON.stringify(Array(6).fill(null)) })).toBeUndefined();
      expect(pool.early.take("e", { ...firstPass(), retryBudgetMs: 1_000 })).toBeUndefined();
      expect(pool.early.take("never_started", firstPass())).toBeUndefined();
      expect(pool.early.counts).toEqual({ taken: 1, dropped: 4 });

      // At most 32 wait to be taken.
      for (let i = 0; i < 40; i++) pool.early.start(`bulk_${i}`, firstPass());
      await settle();
      const kept = Array.from({ length: 40 }, (_, i) => pool.early.take(`bulk_${i}`, firstPass()) !== undefined);
      expect(kept).toEqual(Array.from({ length: 40 }, (_, i) => i < 32));
    } finally {
      await pool.close();
    }
  });

  it("never queues early passes on a busy thread, and starts none where no job runner works batches", async () => {
    const pool = new ChunkThread(1);
    try {
      pool.early.start("x", firstPass());
      await settle();
      expect(pool.early.take("x", firstPass())).toBeUndefined();
      expect(pool.early.counts).toEqual({ taken: 0, dropped: 0 });

      pool.early.enable();
      for (let i = 0; i < 5; i++) pool.early.start(`q_${i}`, firstPass());
      // One thread, busy with the first: the others wait unstarted, so a worker's pass would go next.
      expect([1, 2, 3, 4].map((i) => pool.early.take(`q_${i}`, firstPass()))).toEqual([undefined, undefined, undefined, undefined]);
      expect(pool.early.take("q_0", firstPass())).toBeDefined();
    } finally {
      await pool.close();
    }
  });

  it("drops an early pass nobody took in time", async () => {
    const pool = new ChunkThread(1, 0);
    pool.early.enable();
    try {
      pool.early.start("old", firstPass());
      await new Promise((resolve) => setTimeout(resolve, 5));
      pool.early.start("new", firstPass());
      expect(pool.early.take("old", firstPass())).toBeUndefined();
      expect(pool.early.counts).toMatchObject({ taken: 0 });
      expect(pool.early.counts.dropped).toBeGreaterThanOrEqual(1);
    } finally {
      await pool.close();
    }
  });

  it("answers a pass it cannot run with a failure, not a hang", async () => {
    await expect(thread.run({ ...firstPass(), items: "not json" })).rejects.toThrow(/failed on its thread/);
    expect(await thread.run(firstPass())).toMatchObject({ done: false });
  });
});

// A thread of its own: the suite above closes its thread under a pass in hand and races against a warm one.
describe("a chunk pass over a damaged stored item", () => {
  const own = new ChunkThread();
  afterAll(() => own.close());

  it("fails an item stored with a name no database keeps (U+0000) as that item, without a history row, on the thread and the event loop", async () => {
    const [stored] = prepareBatchItems(
      [
        { reference_id: "nul", input: { pan: "ABCPK1234F", name: "Arjun\u0000Kapoor" }, error: null },
        { reference_id: "fine", input: { pan: "ABCPK1234F", name: "Arjun Kapoor" }, error: null },
      ],
      1000,
    ).chunks;
    const job: ChunkPassJob = { kind: "PAN", items: stored!.items, results: stored!.results, retryingSince: null, retryBudgetMs: 30_000 };
    for (const pass of [await own.run(job), await runChunkPass(job, sandboxProviders)]) {
      if (!pass.done) throw new Error("nothing here waits for a retry");
      expect(pass).toMatchObject({ succeeded: 1, failed: 1 });
      const outcomes = JSON.parse(pass.results) as { result: unknown; error: { code: string } | null }[];
      expect(outcomes.map((o) => o.error?.code ?? null)).toEqual(["INTERNAL_ERROR", null]);
      expect(pass.rows.nameQueried).toEqual(["Arjun Kapoor"]);
    }
  });
});
