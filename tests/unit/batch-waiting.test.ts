import { describe, expect, it } from "vitest";
import { waitingForSourceText } from "@/lib/batch-waiting";

// IST is UTC+05:30: 04:45:30Z is 10:15:30 IST.
describe("the batch page's note on items waiting for the source", () => {
  it("names the next try when it comes before the end of the retries", () => {
    const t = waitingForSourceText({ items: 3, next_try_at: "2026-11-22T04:45:12.000Z", retrying_until: "2026-11-22T04:45:30.000Z" });
    expect(t.title).toBe("3 items waiting for the source, retrying until 10:15:30 IST");
    expect(t.detail).toContain("Next try at 10:15:12 IST;");
  });

  it("never shows one time as both the end and the next try: a try in the end's second is the last one", () => {
    const t = waitingForSourceText({ items: 1, next_try_at: "2026-11-22T04:45:30.200Z", retrying_until: "2026-11-22T04:45:30.900Z" });
    expect(t.title).toBe("1 item waiting for the source, retrying until 10:15:30 IST");
    expect(t.detail).not.toContain("10:15:30");
    expect(t.detail).toContain("One last try then;");
  });

  it("says one last try when the source asks to wait until the end", () => {
    const t = waitingForSourceText({ items: 2, next_try_at: "2026-11-22T04:45:30.000Z", retrying_until: "2026-11-22T04:45:30.000Z" });
    expect(t.detail).toContain("One last try then;");
  });
});
