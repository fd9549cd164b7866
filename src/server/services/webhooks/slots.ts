/**
 * This instance's limits on webhook deliveries running at once: per destination (an endpoint, or a
 * URL without one such as a batch's webhook_url) and per merchant. A slow receiver then holds only
 * its own slots, and one merchant's receivers only a share of the delivery workers.
 *
 * A delivery that finds no free slot does not wait in a worker: it is told when to come back. The
 * more deliveries are turned away from the same slot, the wider the spread of their return times
 * (scaled by how long that destination's deliveries take), so a backlog for a slow receiver does
 * not cycle through the job table every second.
 */
export interface DeliverySlotLimits {
  perDestination: number;
  perMerchant: number;
}

/** Come back no sooner than this, and no later than this after being turned away. */
const MIN_RETRY_MS = 500;
const MAX_RETRY_SPREAD_MS = 5 * 60_000;
/** Assumed length of a delivery before any has finished for a key. */
const INITIAL_DURATION_MS = 1_000;
/** How long a turned-away delivery still counts as waiting after it was told to come back. */
const WAITING_GRACE_MS = 10_000;

interface KeyState {
  running: number;
  /** Moving average of how long its deliveries held a slot. */
  avgMs: number;
  /** Deliveries turned away, until when they count as waiting. */
  waiting: Map<string, number>;
}

export type SlotAnswer = { release: (now?: number) => void } | { retryInMs: number };

export class DeliverySlots {
  private readonly keys = new Map<string, KeyState>();

  constructor(readonly limits: DeliverySlotLimits) {
    if (limits.perDestination < 1 || limits.perMerchant < 1) throw new Error("DeliverySlots: limits must be ≥ 1");
  }

  /** Takes a slot of the destination and of the merchant, or says when to try again. */
  take(deliveryId: string, destination: string, merchantId: string, now = Date.now()): SlotAnswer {
    const destKey = `d:${destination}`;
    const merchantKey = `m:${merchantId}`;
    const dest = this.state(destKey);
    const merchant = this.state(merchantKey);
    const full =
      dest.running >= this.limits.perDestination
        ? { s: dest, cap: this.limits.perDestination }
        : merchant.running >= this.limits.perMerchant
          ? { s: merchant, cap: this.limits.perMerchant }
          : null;
    if (full) {
      const { s, cap } = full;
      prune(s, now);
      // Waiting behind the others turned away from this slot, `cap` at a time, each taking about avgMs.
      const ahead = s.waiting.has(deliveryId) ? s.waiting.size : s.waiting.size + 1;
      const spread = Math.min(MAX_RETRY_SPREAD_MS, Math.max(1_000, (2 * ahead * s.avgMs) / cap));
      const retryInMs = Math.round(MIN_RETRY_MS + Math.random() * spread);
      s.waiting.set(deliveryId, now + retryInMs + WAITING_GRACE_MS);
      this.tidy(destKey, dest, now);
      this.tidy(merchantKey, merchant, now);
      return { retryInMs };
    }
    dest.running++;
    merchant.running++;
    dest.waiting.delete(deliveryId);
    merchant.waiting.delete(deliveryId);
    let released = false;
    return {
      release: (at = Date.now()) => {
        if (released) return;
        released = true;
        for (const [key, s] of [
          [destKey, dest],
          [merchantKey, merchant],
        ] as const) {
          s.running--;
          s.avgMs = 0.8 * s.avgMs + 0.2 * (at - now);
          this.tidy(key, s, at);
        }
      },
    };
  }

  /** Deliveries running now for a destination or merchant (for tests and logs). */
  runningFor(kind: "destination" | "merchant", id: string): number {
    return this.keys.get(`${kind === "destination" ? "d" : "m"}:${id}`)?.running ?? 0;
  }

  /** Forgets a key with nothing running and nobody waiting (turned-away deliveries may go to another instance). */
  private tidy(key: string, s: KeyState, now: number): void {
    prune(s, now);
    if (s.running === 0 && s.waiting.size === 0 && this.keys.get(key) === s) this.keys.delete(key);
  }

  private state(key: string): KeyState {
    let s = this.keys.get(key);
    if (!s) {
      s = { running: 0, avgMs: INITIAL_DURATION_MS, waiting: new Map() };
      this.keys.set(key, s);
    }
    return s;
  }
}

function prune(s: KeyState, now: number): void {
  for (const [id, until] of s.waiting) if (until < now) s.waiting.delete(id);
}
