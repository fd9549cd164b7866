import { describe, expect, it } from "vitest";
import { JoiningCombiner, KeyedCombiner } from "@/server/db/combiner";

/** A group runner that records each group and finishes only when told to. */
function recorder(fail?: (group: number[]) => boolean) {
  const groups: { key: string; group: number[]; finish: () => void }[] = [];
  const combiner = new KeyedCombiner<number, string>(
    (key, group) =>
      new Promise((resolve, reject) => {
        groups.push({
          key,
          group,
          finish: () => (fail?.(group) ? reject(new Error(`group ${group.join(",")} failed`)) : resolve(group.map((r) => `${key}:${r}`))),
        });
      }),
    3,
  );
  return { combiner, groups };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("KeyedCombiner", () => {
  it("sends a lone request at once, and the ones that arrive meanwhile together when it is done, at most the group size at a time", async () => {
    const { combiner, groups } = recorder();
    const first = combiner.submit("w", 1);
    expect(groups.map((g) => g.group)).toEqual([[1]]);
    const later = [2, 3, 4, 5].map((r) => combiner.submit("w", r));
    // Another key is not held up by this one.
    const elsewhere = combiner.submit("v", 9);
    expect(groups.map((g) => g.group)).toEqual([[1], [9]]);
    groups[0]!.finish();
    groups[1]!.finish();
    expect(await first).toBe("w:1");
    expect(await elsewhere).toBe("v:9");
    await tick();
    expect(groups.map((g) => g.group)).toEqual([[1], [9], [2, 3, 4]]);
    groups[2]!.finish();
    await tick();
    expect(groups.map((g) => g.group)).toEqual([[1], [9], [2, 3, 4], [5]]);
    groups[3]!.finish();
    expect(await Promise.all(later)).toEqual(["w:2", "w:3", "w:4", "w:5"]);
    // Idle again: the next one goes at once.
    void combiner.submit("w", 6);
    expect(groups.at(-1)!.group).toEqual([6]);
  });

  it("runs each request of a failed group alone, so only the one at fault fails", async () => {
    const { combiner, groups } = recorder((g) => g.includes(3));
    const first = combiner.submit("w", 1);
    const later = [2, 3, 4].map((r) => combiner.submit("w", r));
    groups[0]!.finish();
    await first;
    await tick();
    groups[1]!.finish();
    await tick();
    expect(groups.slice(2).map((g) => g.group)).toEqual([[2], [3], [4]]);
    for (const g of groups.slice(2)) g.finish();
    const settled = await Promise.allSettled(later);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });
});

/** A writer that queues writes and runs them all when flushed, as SQLite's group commit does. */
function queuedWriter(fail?: (group: number[]) => boolean) {
  const queued: (() => void)[] = [];
  const groups: number[][] = [];
  const combiner = new JoiningCombiner<number, string>(
    (key, take) =>
      new Promise((resolve, reject) => {
        queued.push(() => {
          const group = take();
          groups.push(group);
          if (fail?.(group)) reject(new Error(`group ${group.join(",")} failed`));
          else resolve(group.map((r) => `${key}:${r}`));
        });
      }),
  );
  const flush = () => queued.splice(0).forEach((run) => run());
  return { combiner, groups, flush };
}

describe("JoiningCombiner", () => {
  it("puts the requests for a key made before its write starts in that write, and later ones in the next", async () => {
    const { combiner, groups, flush } = queuedWriter();
    const first = [1, 2, 3].map((r) => combiner.submit("w", r));
    const other = combiner.submit("v", 9);
    flush();
    expect(await Promise.all(first)).toEqual(["w:1", "w:2", "w:3"]);
    expect(await other).toBe("v:9");
    const next = combiner.submit("w", 4);
    flush();
    expect(await next).toBe("w:4");
    expect(groups).toEqual([[1, 2, 3], [9], [4]]);
  });

  it("runs each request of a failed group alone, so only the one at fault fails", async () => {
    const { combiner, groups, flush } = queuedWriter((g) => g.includes(2));
    const asked = [1, 2, 3].map((r) => combiner.submit("w", r));
    flush();
    await new Promise((r) => setImmediate(r));
    flush();
    const settled = await Promise.allSettled(asked);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(groups).toEqual([[1, 2, 3], [1], [2], [3]]);
  });
});
