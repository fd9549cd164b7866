import { formatIstTime } from "@/lib/ist";

/** Items of a running batch that wait for the source after a temporary error (the batch detail's waitingForSource). */
export interface WaitingForSource {
  items: number;
  next_try_at: string;
  retrying_until: string;
}

/** What the batch page says about them: how many, until when, and when the next try is. */
export function waitingForSourceText(w: WaitingForSource): { title: string; detail: string } {
  const items = w.items === 1 ? "1 item" : `${w.items.toLocaleString("en-IN")} items`;
  const until = formatIstTime(w.retrying_until);
  // A Retry-After as long as the budget leaves one try, at its end. Times show whole seconds, so a try
  // within the end's second is that last try too (else one time would read as both).
  const lastTry = Math.floor(Date.parse(w.next_try_at) / 1000) >= Math.floor(Date.parse(w.retrying_until) / 1000);
  const next = lastTry ? "One last try then" : `Next try at ${formatIstTime(w.next_try_at)} IST`;
  return {
    title: `${items} waiting for the source, retrying until ${until} IST`,
    detail: `The source answered with a temporary error. ${next}; an item still without an answer at the end is recorded as failed with the source's error.`,
  };
}
