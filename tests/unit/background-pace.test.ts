import { describe, expect, it } from "vitest";
import { BackgroundPace } from "@/server/lib/background-pace";
import { sandboxProviders } from "@/server/providers";

/** A pace on a clock and event-loop rounds the test moves by hand. */
function paced(budgetMs: number) {
  let now = 0;
  const rounds: (() => void)[] = [];
  const pace = new BackgroundPace(
    budgetMs,
    () => now,
    (run) => rounds.push(run),
  );
  return {
    pace,
    at: (ms: number) => (now = ms),
    rounds,
    /** Runs the next round of the event loop, then everything it let go on. */
    round: async () => {
      rounds.shift()!();
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
  };
}

describe("background pace", () => {
  it("lets work go on within a stretch's budget, and past it waits for the next round", async () => {
    const p = paced(4);
    // Nothing has started a stretch yet: the first unit waits for a round.
    const first = p.pace.turn();
    expect(first).toBeInstanceOf(Promise);
    expect(p.rounds).toHaveLength(1);
    p.at(100);
    await p.round();
    await first;
    // The stretch began at 100: under 4 ms, go on at once.
    p.at(103.9);
    expect(p.pace.turn()).toBeUndefined();
    p.at(104);
    const late = p.pace.turn();
    expect(late).toBeInstanceOf(Promise);
    // Once one waits, the others wait behind it, even if the clock were to say otherwise; one round is asked for.
    p.at(100);
    expect(p.pace.turn()).toBeInstanceOf(Promise);
    expect(p.pace.queued).toBe(2);
    expect(p.rounds).toHaveLength(1);
  });

  it("starts a new stretch at each round and lets every waiting unit go on, in the order they came", async () => {
    const p = paced(4);
    const order: string[] = [];
    const unit = (name: string) => {
      const t = p.pace.turn();
      return t ? t.then(() => order.push(name)) : order.push(name);
    };
    const started = ["a", "b", "c"].map(unit);
    expect(order).toEqual([]);
    p.at(50);
    await p.round();
    await Promise.all(started);
    expect(order).toEqual(["a", "b", "c"]);
    expect(p.pace.queued).toBe(0);
    // The new stretch began at 50.
    p.at(52);
    expect(p.pace.turn()).toBeUndefined();
    p.at(54);
    void unit("d");
    expect(order).toEqual(["a", "b", "c"]);
    p.at(60);
    await p.round();
    expect(order).toEqual(["a", "b", "c", "d"]);
  });

  it("on the real event loop, lets a timer in between stretches of busy work", async () => {
    const pace = new BackgroundPace(2);
    let units = 0;
    let ticksDuring = 0;
    let working = true;
    const tick = () => {
      if (!working) return;
      ticksDuring++;
      setImmediate(tick);
    };
    setImmediate(tick);
    // 8 loops of 25 units of 0.5 ms each: 100 ms of work that never waits for I/O.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let k = 0; k < 25; k++) {
          await pace.turn();
          const until = performance.now() + 0.5;
          while (performance.now() < until);
          units++;
        }
      }),
    );
    working = false;
    expect(units).toBe(200);
    // Without the pace the work would be one stretch and the ticker would not run in between.
    expect(ticksDuring).toBeGreaterThanOrEqual(10);
  });

  it("is where sandbox batch items wait: past the budget, an item's call waits for the next round", async () => {
    // Whatever stretch there was is over after 5 ms of work.
    const until = performance.now() + 5;
    while (performance.now() < until);
    let ran = false;
    const call = sandboxProviders.batchLane("pan", async () => {
      ran = true;
    });
    for (let k = 0; k < 5; k++) await Promise.resolve();
    expect(ran).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    await call;
    expect(ran).toBe(true);
  });
});
