import { describe, expect, it } from "vitest";
import { DeliverySlots, type SlotAnswer } from "@/server/services/webhooks/slots";

const T0 = 1_700_000_000_000;
const took = (a: SlotAnswer) => {
  if (!("release" in a)) throw new Error(`turned away for ${a.retryInMs} ms`);
  return a.release;
};
const turnedAway = (a: SlotAnswer) => ("retryInMs" in a ? a.retryInMs : null);

describe("DeliverySlots: per endpoint and per merchant limits on running deliveries", () => {
  it("runs at most two deliveries per destination; a third is told to come back shortly", () => {
    const slots = new DeliverySlots({ perDestination: 2, perMerchant: 4 });
    const a = took(slots.take("del_1", "whe_a", "m1", T0));
    took(slots.take("del_2", "whe_a", "m1", T0));
    const wait = turnedAway(slots.take("del_3", "whe_a", "m1", T0));
    expect(wait).toBeGreaterThanOrEqual(500);
    expect(wait).toBeLessThanOrEqual(500 + 60_000);
    // Another endpoint of the same merchant is not held up.
    took(slots.take("del_4", "whe_b", "m1", T0));
    expect(slots.runningFor("destination", "whe_a")).toBe(2);
    a(T0 + 500);
    a(T0 + 500); // releasing twice frees one slot only
    expect(slots.runningFor("destination", "whe_a")).toBe(1);
    expect(slots.runningFor("merchant", "m1")).toBe(2);
    took(slots.take("del_3", "whe_a", "m1", T0 + 1_000));
    expect(turnedAway(slots.take("del_5", "whe_a", "m1", T0 + 1_000))).not.toBeNull();
  });

  it("gives one merchant at most its share, whatever number of endpoints it has; other merchants keep theirs", () => {
    const slots = new DeliverySlots({ perDestination: 2, perMerchant: 4 });
    for (let i = 0; i < 4; i++) took(slots.take(`del_${i}`, `whe_${i}`, "m1", T0));
    expect(turnedAway(slots.take("del_x", "whe_x", "m1", T0))).not.toBeNull();
    took(slots.take("del_y", "whe_y", "m2", T0));
    expect(slots.runningFor("merchant", "m1")).toBe(4);
  });

  it("spreads the return of a long queue for one endpoint wider than a short one", () => {
    const slots = new DeliverySlots({ perDestination: 2, perMerchant: 100 });
    took(slots.take("run_1", "whe_a", "m1", T0));
    took(slots.take("run_2", "whe_a", "m1", T0));
    const waits = Array.from({ length: 400 }, (_, i) => turnedAway(slots.take(`del_${i}`, "whe_a", "m1", T0))!);
    // The first few come back within a few seconds; later ones are spread over minutes.
    expect(Math.max(...waits.slice(0, 4))).toBeLessThanOrEqual(500 + 4_000);
    expect(Math.max(...waits.slice(-50))).toBeGreaterThan(30_000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(500 + 5 * 60_000);
  });

  it("forgets destinations and merchants with nothing running and nobody waiting", () => {
    const slots = new DeliverySlots({ perDestination: 1, perMerchant: 1 });
    const release = took(slots.take("del_1", "whe_a", "m1", T0));
    turnedAway(slots.take("del_2", "whe_a", "m1", T0));
    release(T0 + 500);
    // del_2 still counts as waiting until it is past its return time (plus a grace period).
    expect((slots as unknown as { keys: Map<string, unknown> }).keys.size).toBeGreaterThan(0);
    took(slots.take("del_2", "whe_a", "m1", T0 + 1_000))(T0 + 1_500);
    expect((slots as unknown as { keys: Map<string, unknown> }).keys.size).toBe(0);
  });
});
