import { describe, expect, it } from "vitest";
import { bankShortName } from "@/components/checkout/bank-names";
import { FAILURE_FALLBACK, failureReason, KNOWN_FAILURE_CODES } from "@/components/checkout/failure-reasons";
import { SANDBOX_BANKS } from "@/server/providers/payments/sandbox";

describe("customer words for failed attempts", () => {
  it("has words for every code an attempt can fail with", () => {
    expect(KNOWN_FAILURE_CODES.sort()).toEqual(["ATTEMPT_ABANDONED", "ATTEMPT_TIMEOUT", "CARD_DECLINED", "INSUFFICIENT_FUNDS", "PAYMENT_DECLINED"]);
    for (const code of KNOWN_FAILURE_CODES) {
      const words = failureReason(code, "CARD");
      expect(words).not.toBe(FAILURE_FALLBACK);
      // Sentences, never a code.
      expect(words).not.toMatch(/[A-Z]{2,}_[A-Z]/);
      expect(words).toMatch(/^[A-Z].*\.$/);
    }
  });

  it("says where a decline happened when the method tells", () => {
    expect(failureReason("PAYMENT_DECLINED", "UPI")).toBe("The payment was declined in your UPI app.");
    expect(failureReason("PAYMENT_DECLINED", "NETBANKING")).toBe("Your bank declined the payment.");
    // A live card declined on the processor's page: the words of the sandbox's declined card.
    expect(failureReason("PAYMENT_DECLINED", "CARD")).toBe(failureReason("CARD_DECLINED", "CARD"));
  });

  it("falls back to plain words for unknown or missing codes", () => {
    expect(failureReason("SOMETHING_NEW", "UPI")).toBe(FAILURE_FALLBACK);
    expect(failureReason(null)).toBe(FAILURE_FALLBACK);
  });
});

describe("netbanking bank badges", () => {
  it("uses the names customers know, short enough for the badge", () => {
    expect(SANDBOX_BANKS.map(bankShortName)).toEqual(["HDFC", "ICICI", "SBI", "Axis", "Kotak", "PNB"]);
  });

  it("makes initials of the capitalised words of an unlisted bank", () => {
    expect(bankShortName("Central Bank of India")).toBe("CBI");
    expect(bankShortName("Jammu and Kashmir Bank")).toBe("JKB");
  });
});
