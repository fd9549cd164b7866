import { describe, expect, it } from "vitest";
import { cardSchema } from "@/lib/schemas/checkout";

// A CVV is 3 digits on the back of Visa, Mastercard and RuPay cards, and 4 on the front of an Amex
// (the networks' published card layouts); the form's hint says so, and so must its check.
const year = new Date().getFullYear() + 2;
const card = (number: string, cvv: string) => cardSchema.safeParse({ number, expiryMonth: 12, expiryYear: year, cvv });
const cvvError = (number: string, cvv: string) => {
  const r = card(number, cvv);
  return r.success ? null : (r.error.issues.find((i) => i.path.join(".") === "cvv")?.message ?? null);
};

describe("card CVV length by network", () => {
  it.each([
    ["Visa", "4111111111111111", "123"],
    ["Mastercard", "5555555555554444", "123"],
    ["RuPay", "6071487000000001", "123"],
    ["Amex", "378282246310005", "1234"],
  ])("%s with its own length is accepted", (_, number, cvv) => {
    expect(card(number, cvv).success).toBe(true);
  });

  it.each([
    ["Visa", "4111111111111111", "1234", "3 digits on the back"],
    ["Mastercard", "5555 5555 5555 4444", "1234", "3 digits on the back"],
    ["Visa", "4111111111111111", "12", "3 digits on the back"],
    ["Amex", "378282246310005", "123", "4 digits on the front"],
  ])("%s (%s) with CVV %s is refused with what the hint says", (_, number, cvv, says) => {
    expect(cvvError(number, cvv)).toContain(says);
  });
});
