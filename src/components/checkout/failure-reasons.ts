// What the customer reads when a payment attempt failed: our attempt codes in plain words. The code
// itself is for the merchant (dashboard, API); a customer cannot act on "CARD_DECLINED".

type Method = string | null | undefined;

const CARD_DECLINED_WORDS = "Your card was declined by the bank that issued it.";

const FAILURE_WORDS: Record<string, (method: Method) => string> = {
  CARD_DECLINED: () => CARD_DECLINED_WORDS,
  INSUFFICIENT_FUNDS: () => "There isn’t enough balance on this card for the payment.",
  // A live card declined on the processor's page reads as the sandbox's declined card.
  PAYMENT_DECLINED: (method) =>
    method === "UPI"
      ? "The payment was declined in your UPI app."
      : method === "NETBANKING"
        ? "Your bank declined the payment."
        : method === "CARD"
          ? CARD_DECLINED_WORDS
          : "The payment was declined.",
  ATTEMPT_TIMEOUT: () => "Your bank didn’t confirm the payment in time, so this attempt was stopped.",
  // The customer chose "Use another method" or "Cancel payment" while it was waiting; nothing went wrong.
  ATTEMPT_ABANDONED: () => "You stopped this payment attempt before it finished.",
};

export const FAILURE_FALLBACK = "The payment didn’t go through.";

/** Customer words for an attempt's error code; unknown or missing codes get a plain fallback. */
export function failureReason(code: string | null | undefined, method?: Method): string {
  const words = code ? FAILURE_WORDS[code] : undefined;
  return words ? words(method) : FAILURE_FALLBACK;
}

/** Every code with its own words (for tests and reviewers). */
export const KNOWN_FAILURE_CODES = Object.keys(FAILURE_WORDS);
