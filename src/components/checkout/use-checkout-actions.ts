"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { isForbidden, isOpen } from "@/components/checkout/checkout-state";
import type { ActionResult, CheckoutState, PayPayload } from "@/components/checkout/types";
import { errorInfo, useTRPC } from "@/components/trpc/client";

type Input = { paymentId: string; token: string };
type RefetchState = () => Promise<{ data?: CheckoutState }>;
type Act = (run: () => Promise<CheckoutState>) => Promise<ActionResult>;

/** Runs one action; its answer is the new state. Errors go back to the form that asked. */
function useStateAction(input: Input, refetchState: RefetchState): Act {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return async function act(run) {
    // A poll already on its way may carry the state from before this action; it must not land after it.
    await queryClient.cancelQueries({ queryKey: trpc.checkout.state.queryKey(input) });
    try {
      const next = await run();
      queryClient.setQueryData(trpc.checkout.state.queryKey(input), next);
      return { ok: true, state: next };
    } catch (err) {
      const info = errorInfo(err);
      // The payment may have moved on (another tab, the sweeper, a forged token): show where it is now.
      if (info.appCode === "CONFLICT" || isForbidden(err)) void refetchState();
      return { ok: false, ...info };
    }
  };
}

/**
 * "Cancel payment" and its confirmation. While an attempt is pending it is left first; if it ended
 * meanwhile, a failed one still lets the payment be cancelled and a paid one shows the receipt.
 */
function useCancelFlow({
  input,
  state,
  act,
  freshState,
  cancel,
  abandon,
}: {
  input: Input;
  state: CheckoutState;
  act: Act;
  freshState: () => Promise<CheckoutState>;
  cancel: { mutateAsync: (input: Input) => Promise<CheckoutState> };
  abandon: { mutateAsync: (input: Input & { then: "retry" | "cancel" }) => Promise<CheckoutState> };
}) {
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [cancelError, setCancelError] = useState<string | null>(null);
  // A confirmation left open while the payment ended (paid, expired) would ask about nothing.
  useEffect(() => {
    if (state.isFinal) setConfirmCancel(false);
  }, [state.isFinal]);

  async function cancelPayment() {
    setCancelError(null);
    let res: ActionResult;
    if (state.status === "PENDING") {
      res = await act(() => abandon.mutateAsync({ ...input, then: "cancel" }));
      // The attempt ended meanwhile: if it failed, the payment can still be cancelled as asked; if it paid, the receipt shows.
      if (!res.ok && res.appCode === "CONFLICT") {
        const now = await freshState();
        if (isOpen(now)) res = await act(() => cancel.mutateAsync(input));
        else if (now.status !== "PENDING") res = { ok: true, state: now };
      }
    } else {
      res = await act(() => cancel.mutateAsync(input));
    }
    if (res.ok) setConfirmCancel(false);
    else setCancelError(res.message);
  }

  return { confirmCancel, setConfirmCancel, cancelError, setCancelError, cancelPayment };
}

type ActionsOptions = { input: Input; state: CheckoutState; sandbox: boolean; refetchState: RefetchState };

/**
 * What the customer can do on the checkout page (pay, simulate in sandbox, leave an attempt,
 * cancel), each answered with the payment's new state, and the errors and confirmation they show.
 */
export function useCheckoutActions({ input, state, sandbox, refetchState }: ActionsOptions) {
  const trpc = useTRPC();
  const router = useRouter();
  const act = useStateAction(input, refetchState);
  const pay = useMutation(trpc.checkout.pay.mutationOptions());
  const simulate = useMutation(trpc.checkout.simulate.mutationOptions());
  const cancel = useMutation(trpc.checkout.cancel.mutationOptions());
  const abandon = useMutation(trpc.checkout.abandon.mutationOptions());
  const handOff = useMutation(trpc.checkout.cardHandOff.mutationOptions());
  const busy = pay.isPending || simulate.isPending || cancel.isPending || abandon.isPending || handOff.isPending;

  const [dismissedAttempt, setDismissedAttempt] = useState<string | null>(null);
  const [simulateError, setSimulateError] = useState<string | null>(null);
  const [leaveError, setLeaveError] = useState<string | null>(null);

  // An error about leaving one attempt means nothing once another one is showing.
  const attemptId = state.attempt?.id;
  useEffect(() => setLeaveError(null), [attemptId, state.status]);

  async function startPayment(payment: PayPayload): Promise<ActionResult> {
    const res = await act(() => pay.mutateAsync({ ...input, payment }));
    // Card details must not linger in the mutation cache.
    pay.reset();
    if (res.ok && payment.method === "NETBANKING" && res.state.status === "PENDING") {
      const action = res.state.attempt?.action;
      // Live: the bank's page the processor gave for this attempt, on the processor's site. Sandbox: Parakh's mock bank.
      if (action?.kind === "redirect") window.location.assign(action.url);
      else if (sandbox) router.push(`/checkout/${input.paymentId}/bank`);
    }
    return res;
  }

  /** Live cards: the attempt is made and the processor's payment session comes back for its own page. */
  async function startCardHandOff(): Promise<{ ok: true; sessionId: string } | { ok: false; message: string }> {
    let sessionId = "";
    const res = await act(async () => {
      const { paymentSessionId, ...next } = await handOff.mutateAsync(input);
      sessionId = paymentSessionId;
      return next;
    });
    return res.ok ? { ok: true, sessionId } : { ok: false, message: res.message };
  }

  async function runSimulation(outcome: "SUCCESS" | "FAILED") {
    setSimulateError(null);
    const res = await act(() => simulate.mutateAsync({ ...input, outcome }));
    if (!res.ok) setSimulateError(res.message);
  }

  /** The state as the server has it now, after an action was refused because the payment moved on. */
  async function freshState(): Promise<CheckoutState> {
    const r = await refetchState();
    return r.data ?? state;
  }

  /** "Use another method": stop waiting for the pending attempt and show the method choice again. */
  async function useAnotherMethod() {
    setLeaveError(null);
    const res = await act(() => abandon.mutateAsync({ ...input, then: "retry" }));
    if (res.ok) return;
    if (res.appCode === "CONFLICT") {
      // The attempt ended meanwhile. Paid: the success screen shows. Failed: the customer asked for another method anyway.
      const now = await freshState();
      if (now.status !== "PENDING") {
        if (now.status === "FAILED") setDismissedAttempt(now.attempt?.id ?? null);
        return;
      }
    }
    setLeaveError(res.message);
  }

  const cancelFlow = useCancelFlow({ input, state, act, freshState, cancel, abandon });

  return {
    busy,
    /** The outcome a sandbox simulation is running for, or null. */
    simulating: simulate.isPending ? (simulate.variables?.outcome ?? null) : null,
    /** What leaving the pending attempt is for ("retry" or "cancel") while it runs, or null. */
    leaving: abandon.isPending ? (abandon.variables?.then ?? null) : null,
    cancelling: cancel.isPending || abandon.isPending,
    cancelLoading: cancel.isPending || (abandon.variables?.then === "cancel" && abandon.isPending),
    dismissedAttempt,
    setDismissedAttempt,
    ...cancelFlow,
    simulateError,
    leaveError,
    startPayment,
    startCardHandOff,
    runSimulation,
    useAnotherMethod,
  };
}
