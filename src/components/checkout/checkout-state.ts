"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { CheckoutState } from "@/components/checkout/types";
import { useTRPC } from "@/components/trpc/client";

// The checkout page's view of the payment: which screen to show, and when to ask the server again.

export type View = "choose" | "pending" | "failed" | "success" | "expired" | "cancelled";

const POLL_MS = 2000;
// After the customer left an attempt, a late success may still pay the payment; look now and
// then, for as long as an attempt may stay pending (coming back to the tab looks again after that).
const LATE_POLL_MS = 5000;
const LATE_POLL_FOR_MS = 15 * 60 * 1000;
export const WARN_BELOW_MS = 2 * 60 * 1000;

export function isOpen(s: CheckoutState) {
  return s.status === "CREATED" || s.status === "FAILED";
}

/** The customer stopped waiting for the latest attempt ("Use another method"): not a failure to report. */
export function leftLastAttempt(s: CheckoutState) {
  return s.status === "FAILED" && s.attempt?.status === "ABANDONED";
}

export const LEFT_ATTEMPT_NOTE = "We stopped waiting for that payment. If it still goes through, you won’t be charged twice.";

export function viewFor(s: CheckoutState, now: number, dismissedAttempt: string | null): View {
  if (s.status === "SUCCESS") return "success";
  if (s.status === "CANCELLED") return "cancelled";
  if (s.status === "EXPIRED") return "expired";
  if (s.status === "PENDING") return "pending";
  // Past expiresAt nobody can pay any more, even before the sweeper has marked it EXPIRED.
  if (Date.parse(s.expiresAt) <= now) return "expired";
  if (s.status === "FAILED" && s.attempt && s.attempt.id !== dismissedAttempt && !leftLastAttempt(s)) return "failed";
  return "choose";
}

export function isForbidden(err: unknown) {
  return (err as { data?: { code?: string } } | null)?.data?.code === "FORBIDDEN";
}

/**
 * The client's clock, ticking each second, corrected for a server clock that differs by more
 * than a few seconds (the countdown is against the server's expiresAt). Starts at the server's
 * render time so the first client render matches the HTML.
 */
export function useServerClock(renderedAt: number) {
  const [now, setNow] = useState(renderedAt);
  useEffect(() => {
    const skew = renderedAt - Date.now();
    const offset = Math.abs(skew) > 5000 ? skew : 0;
    const tick = () => setNow(Date.now() + offset);
    tick();
    const t = setInterval(tick, 1000);
    return () => clearInterval(t);
  }, [renderedAt]);
  return now;
}

/** The payment's state, painted from the server's render and polled while an outcome may still change. */
export function useCheckoutState(input: { paymentId: string; token: string }, initialState: CheckoutState) {
  const trpc = useTRPC();
  // When this page first saw each left attempt (attempt id → ms).
  const leftSeenAt = useRef<Record<string, number>>({});
  return useQuery(
    trpc.checkout.state.queryOptions(input, {
      initialData: initialState,
      // The server's state paints at once, but ask again on mount: a page restored from history
      // (Back from the bank page) carries the state from when it was first rendered.
      refetchOnMount: "always",
      // Coming back from a UPI app or the bank tab: show the outcome at once.
      refetchOnWindowFocus: true,
      retry: (count, err) => !isForbidden(err) && count < 2,
      refetchInterval: (q) => {
        const s = q.state.data;
        if (!s || isForbidden(q.state.error)) return false;
        // PENDING: waiting for the result. Open but past expiry: waiting for the sweeper's EXPIRED (and its redirect).
        if (s.status === "PENDING" || (isOpen(s) && Date.parse(s.expiresAt) <= Date.now())) return POLL_MS;
        if (!leftLastAttempt(s)) return false;
        const since = (leftSeenAt.current[s.attempt!.id] ??= Date.now());
        return Date.now() - since < LATE_POLL_FOR_MS ? LATE_POLL_MS : false;
      },
    }),
  );
}
