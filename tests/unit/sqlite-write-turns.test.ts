import { describe, expect, it } from "vitest";
import { WriteTurns } from "@/server/db/sqlite-hot";

describe("write turns", () => {
  it("grants turns first come first served, one at a time", async () => {
    const turns = new WriteTurns();
    const order: string[] = [];
    const first = (await turns.take())!;
    const waiting = ["b", "c", "d"].map((name) =>
      turns.take().then((release) => {
        order.push(name);
        return release!;
      }),
    );
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual([]);
    first();
    for (const w of waiting) (await w)();
    expect(order).toEqual(["b", "c", "d"]);
    // Free again: the next take is immediate.
    const again = await Promise.race([turns.take(), new Promise((r) => setTimeout(() => r("waited"), 20))]);
    expect(typeof again).toBe("function");
  });

  it("gives up a wait after its timeout without taking a later turn, and a double release frees only once", async () => {
    const turns = new WriteTurns();
    const held = (await turns.take())!;
    expect(await turns.take(10)).toBeNull();
    const next = turns.take();
    held();
    held();
    const release = (await next)!;
    // Still held by `next`: a double release of the first turn did not free it.
    expect(await turns.take(10)).toBeNull();
    release();
    expect(await turns.take(10)).not.toBeNull();
  });
});
