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
  const { completedAt: _at, rows, ...rest } = pass;
  return { ...rest, rows: { ...rows, id: rows.id.map((id) => id.slice(0, 4)) } };
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
    expect(done.completedAt).toBeGreaterThanOrEqual(before);
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

  it("answers a pass it cannot run with a failure, not a hang", async () => {
    await expect(thread.run({ ...firstPass(), items: "not json" })).rejects.toThrow(/failed on its thread/);
    expect(await thread.run(firstPass())).toMatchObject({ done: false });
  });
});
