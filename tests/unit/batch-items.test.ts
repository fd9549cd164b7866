import { describe, expect, it } from "vitest";
import { validateBatchItems } from "@/server/api/batches/batch-items";
import type { BatchKind } from "@/server/services/batches/batches";

describe("validateBatchItems", () => {
  it("stores an accepted item's input as its kind's own, however the kind compares to its literal", () => {
    // On the body thread, Node 20's optimised code once in a few thousand items answered
    // kind === "PAN" false for a PAN batch. A String object names the same schema (a property key
    // is its text) but is never === "PAN", which forces that answer for every item.
    const pan = new String("PAN") as unknown as BatchKind;
    const items = validateBatchItems(pan, [
      { pan: " abcpk1234f ", name: " Arjun Kapoor ", reference_id: "r0" },
      { pan: "ABCPK1235F", reference_id: "r1" },
    ]);
    expect(items).toEqual([
      { reference_id: "r0", input: { pan: "ABCPK1234F", name: "Arjun Kapoor" }, error: null },
      { reference_id: "r1", input: { pan: "ABCPK1235F", name: null }, error: null },
    ]);
    const epfo = new String("EPFO") as unknown as BatchKind;
    expect(validateBatchItems(epfo, [{ uan: "100200300400" }, { pf_number: "MHBAN00000640000000123" }]).map((i) => i.input)).toEqual([
      { uan: "100200300400" },
      { pf_number: "MH/BAN/0000064/000/0000123" },
    ]);
  });
});
