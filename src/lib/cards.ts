/** Luhn check over digits only. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

export function cardNetwork(digits: string): string {
  if (/^4/.test(digits)) return "VISA";
  if (/^(5[1-5]|2(2[2-9][1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720))/.test(digits)) return "MASTERCARD";
  if (/^(60|65|81|82|508)/.test(digits)) return "RUPAY";
  if (/^3[47]/.test(digits)) return "AMEX";
  if (/^(36|38|30[0-5])/.test(digits)) return "DINERS";
  return "CARD";
}

export function normaliseCardNumber(input: string): string {
  return input.replace(/[\s-]/g, "");
}

/** CVV digits by network: 4 on the front of an Amex, 3 on the back of the others. */
export function cvvLength(digits: string): 3 | 4 {
  return cardNetwork(digits) === "AMEX" ? 4 : 3;
}

/** What the card form's CVV hint says, and its error when the CVV is not that. */
export function cvvHint(digits: string): string {
  return cvvLength(digits) === 4 ? "4 digits on the front" : "3 digits on the back";
}

/** Why `cvv` is not the CVV of the card `number` (digits only, or with spaces), or null when it can be. */
export function cvvProblem(number: string, cvv: string): string | null {
  const digits = normaliseCardNumber(number);
  return new RegExp(`^\\d{${cvvLength(digits)}}$`).test(cvv) ? null : `Enter the ${cvvHint(digits)} of the card`;
}
