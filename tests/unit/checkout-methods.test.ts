import { describe, expect, it } from "vitest";
import { cardPanelFor, methodsFor } from "@/components/checkout/method-tabs";

describe("the hosted page's payment methods", () => {
  it("offers UPI, card and netbanking", () => {
    expect(methodsFor()).toEqual(["UPI", "CARD", "NETBANKING"]);
  });

  it("holds the card form in sandbox only: a live card is paid on the processor's page, so its number never reaches Parakh", () => {
    expect(cardPanelFor("sandbox")).toBe("form");
    expect(cardPanelFor("live")).toBe("hand-off");
  });
});
