import { describe, expect, it } from "vitest";
import { methodsFor } from "@/components/checkout/method-tabs";

describe("the hosted page's payment methods", () => {
  it("offers the card form in sandbox only: live card numbers never reach Parakh", () => {
    expect(methodsFor("sandbox")).toEqual(["UPI", "CARD", "NETBANKING"]);
    expect(methodsFor("live")).toEqual(["UPI", "NETBANKING"]);
  });
});
