import { afterAll, describe, expect, it } from "vitest";
import { sandboxProviders } from "@/server/providers";
import { runChunkPass, type ChunkPass, type ChunkPassJob } from "@/server/services/batches/chunk-pass";
import { prepareBatchItems } from "@/server/services/batches/batches";
import { ChunkThread } from "@/server/services/batches/chunk-thread";

/**
 * A chunk as a submission stores it, with the README's sandbox PAN fixtures: serial 1234 VALID,
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
    const inHand = thread.run(firstPass());
    await thread.close();
    await expect(inHand).rejects.toThrow(/exited/);
    expect(await thread.run(firstPass())).toMatchObject({ done: false, succeeded: 3 });
  });

  it("starts a chunk's first pass early and hands it once to a worker whose job is that same first pass", async () => {
    const early = new ChunkThread(2);
    try {
      early.startEarly("chunk_a", firstPass());
      early.startEarly("chunk_b", firstPass());
      early.startEarly("chunk_c", firstPass());
      const taken = early.takeEarly("chunk_a", firstPass());
      expect(taken).toBeDefined();
      expect(comparable(await taken!)).toEqual(comparable(await runChunkPass(firstPass(), sandboxProviders)));
      // Once only: a second claim of the chunk (its first worker lost its lease) runs a pass of its own.
      expect(early.takeEarly("chunk_a", firstPass())).toBeUndefined();
      // Not for a later pass (the chunk was put back for a retry), nor under another retry budget.
      expect(early.takeEarly("chunk_b", { ...firstPass(), retryingSince: Date.now() })).toBeUndefined();
      expect(early.takeEarly("chunk_c", { ...firstPass(), retryBudgetMs: 1_000 })).toBeUndefined();
      expect(early.takeEarly("never_started", firstPass())).toBeUndefined();
      expect(early.earlyPasses).toEqual({ taken: 1, dropped: 2 });

      // At most 32 wait to be taken.
      for (let i = 0; i < 40; i++) early.startEarly(`bulk_${i}`, firstPass());
      const kept = Array.from({ length: 40 }, (_, i) => early.takeEarly(`bulk_${i}`, firstPass()) !== undefined);
      expect(kept).toEqual(Array.from({ length: 40 }, (_, i) => i < 32));
    } finally {
      await early.close();
    }
  });

  it("drops an early pass nobody took in time", async () => {
    const early = new ChunkThread(1, 0);
    try {
      early.startEarly("chunk_old", firstPass());
      await new Promise((resolve) => setTimeout(resolve, 5));
      early.startEarly("chunk_new", firstPass());
      expect(early.takeEarly("chunk_old", firstPass())).toBeUndefined();
      expect(early.earlyPasses).toEqual({ taken: 0, dropped: 1 });
    } finally {
      await early.close();
    }
  });

  it("answers a pass it cannot run with a failure, not a hang", async () => {
    await expect(thread.run({ ...firstPass(), items: "not json" })).rejects.toThrow(/failed on its thread/);
    expect(await thread.run(firstPass())).toMatchObject({ done: false });
  });
});
