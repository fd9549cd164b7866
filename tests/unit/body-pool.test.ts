import { afterAll, describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { BodyGate, BodyPool } from "@/server/http/body-pool";

const refusedBusy = (err: unknown) => err instanceof AppError && err.code === "SERVICE_UNAVAILABLE" && err.status === 503 && err.retryAfterSeconds! > 0;

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a refusal");
}

describe("BodyGate", () => {
  it("lets a few in, queues the next in order unread, and refuses past the queue with a 503 and Retry-After", async () => {
    const gate = new BodyGate(2, 2, 60_000);
    const first = await gate.enter();
    const second = await gate.enter();
    const order: string[] = [];
    const third = gate.enter().then((leave) => (order.push("third"), leave));
    const fourth = gate.enter().then((leave) => (order.push("fourth"), leave));
    expect(refusedBusy(await rejection(gate.enter()))).toBe(true);
    first();
    first(); // a second call gives back nothing more
    const leaveThird = await third;
    expect(order).toEqual(["third"]);
    second();
    const leaveFourth = await fourth;
    expect(order).toEqual(["third", "fourth"]);
    leaveThird();
    leaveFourth();
    // Every slot is free again.
    (await gate.enter())();
  });

  it("refuses a request that waited too long", async () => {
    const gate = new BodyGate(1, 5, 20);
    const held = await gate.enter();
    expect(refusedBusy(await rejection(gate.enter()))).toBe(true);
    held();
    (await gate.enter())();
  });
});

// A new thread compiles its modules first: seconds on a busy machine, so these tests get time for it.
describe("BodyPool", { timeout: 30_000 }, () => {
  const pool = new BodyPool(1, 1);
  afterAll(() => pool.close());

  /** A 10,000-item batch body of about 2 MB. */
  const body = Buffer.from(
    JSON.stringify({ items: Array.from({ length: 10_000 }, (_, i) => ({ pan: "ABCPK1234F", name: "Rakesh Kumar", reference_id: `r${i}` })) }),
  );

  it("reads on another thread while this one goes on turning", async () => {
    let turns = 0;
    let reading = true;
    const turn = () => {
      turns++;
      if (reading) setImmediate(turn);
    };
    setImmediate(turn);
    const { read, threadId } = await pool.read(body, "PAN", 250);
    reading = false;
    expect(threadId).not.toBe(0);
    expect(turns).toBeGreaterThan(0);
    expect(read.ok && read.batch).toMatchObject({ total: 10_000, rejected: 0 });
    expect(read.ok && (read.input.items as unknown[]).length).toBe(10_000);
  });

  it("refuses with a 503 past its queue, and serves the queued ones", async () => {
    const first = pool.read(body, null, 250);
    const queued = pool.read(body, null, 250);
    expect(refusedBusy(await rejection(pool.read(body, null, 250)))).toBe(true);
    expect((await first).read.ok).toBe(true);
    expect((await queued).read.ok).toBe(true);
  });
});
