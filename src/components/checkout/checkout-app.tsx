"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { CardForm } from "@/components/checkout/card-form";
import { MerchantHeader } from "@/components/checkout/frame";
import { NetbankingPanel } from "@/components/checkout/netbanking-panel";
import { ClosedView, FailedView, InvalidLinkView, PendingView, SuccessView } from "@/components/checkout/outcomes";
import { formatRemaining } from "@/components/checkout/parts";
import type { ActionResult, CheckoutAppProps, CheckoutState, PayPayload } from "@/components/checkout/types";
import { UpiPanel } from "@/components/checkout/upi-panel";
import { Button, Dialog, Notice, cx } from "@/components/ui";
import { errorInfo, useTRPC } from "@/lib/trpc/client";

type Method = "UPI" | "CARD" | "NETBANKING";
type View = "choose" | "pending" | "failed" | "success" | "expired" | "cancelled";

const METHODS: { id: Method; label: string; hint: string }[] = [
  { id: "UPI", label: "UPI", hint: "QR, app or UPI ID" },
  { id: "CARD", label: "Card", hint: "Debit or credit" },
  { id: "NETBANKING", label: "Netbanking", hint: "All major banks" },
];

const POLL_MS = 2000;
// After the customer left an attempt, a late success may still pay the payment; look now and
// then, for as long as an attempt may stay pending (coming back to the tab looks again after that).
const LATE_POLL_MS = 5000;
const LATE_POLL_FOR_MS = 15 * 60 * 1000;
const WARN_BELOW_MS = 2 * 60 * 1000;

function isOpen(s: CheckoutState) {
  return s.status === "CREATED" || s.status === "FAILED";
}

/** The customer stopped waiting for the latest attempt ("Use another method"): not a failure to report. */
function leftLastAttempt(s: CheckoutState) {
  return s.status === "FAILED" && s.attempt?.status === "ABANDONED";
}

const LEFT_ATTEMPT_NOTE = "We stopped waiting for that payment. If it still goes through, you won’t be charged twice.";

function viewFor(s: CheckoutState, now: number, dismissedAttempt: string | null): View {
  if (s.status === "SUCCESS") return "success";
  if (s.status === "CANCELLED") return "cancelled";
  if (s.status === "EXPIRED") return "expired";
  if (s.status === "PENDING") return "pending";
  // Past expiresAt nobody can pay any more, even before the sweeper has marked it EXPIRED.
  if (Date.parse(s.expiresAt) <= now) return "expired";
  if (s.status === "FAILED" && s.attempt && s.attempt.id !== dismissedAttempt && !leftLastAttempt(s)) return "failed";
  return "choose";
}

function isForbidden(err: unknown) {
  return (err as { data?: { code?: string } } | null)?.data?.code === "FORBIDDEN";
}

/**
 * The client's clock, ticking each second, corrected for a server clock that differs by more
 * than a few seconds (the countdown is against the server's expiresAt). Starts at the server's
 * render time so the first client render matches the HTML.
 */
function useServerClock(renderedAt: number) {
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

export function CheckoutApp(props: CheckoutAppProps) {
  const { paymentId, token, mode, merchant, amountLabel } = props;
  const sandbox = mode === "sandbox";
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const input = useMemo(() => ({ paymentId, token }), [paymentId, token]);
  const now = useServerClock(props.renderedAt);
  // When this page first saw each left attempt (attempt id → ms).
  const leftSeenAt = useRef<Record<string, number>>({});

  const stateQuery = useQuery(
    trpc.checkout.state.queryOptions(input, {
      initialData: props.initialState,
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
  const state = stateQuery.data;
  const linkInvalid = isForbidden(stateQuery.error);

  const pay = useMutation(trpc.checkout.pay.mutationOptions());
  const simulate = useMutation(trpc.checkout.simulate.mutationOptions());
  const cancel = useMutation(trpc.checkout.cancel.mutationOptions());
  const abandon = useMutation(trpc.checkout.abandon.mutationOptions());
  const busy = pay.isPending || simulate.isPending || cancel.isPending || abandon.isPending;

  const [method, setMethod] = useState<Method>(() => (props.initialState.attempt?.method as Method | undefined) ?? "UPI");
  const [dismissedAttempt, setDismissedAttempt] = useState<string | null>(null);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [cancelError, setCancelError] = useState<string | null>(null);
  const [simulateError, setSimulateError] = useState<string | null>(null);
  const [leaveError, setLeaveError] = useState<string | null>(null);

  const view = viewFor(state, now, dismissedAttempt);

  // An error about leaving one attempt means nothing once another one is showing.
  const attemptId = state.attempt?.id;
  useEffect(() => setLeaveError(null), [attemptId, state.status]);
  // A confirmation left open while the payment ended (paid, expired) would ask about nothing.
  useEffect(() => {
    if (state.isFinal) setConfirmCancel(false);
  }, [state.isFinal]);
  const msLeft = Date.parse(state.expiresAt) - now;

  /** Runs one action; its answer is the new state. Errors go back to the form that asked. */
  async function act(run: () => Promise<CheckoutState>): Promise<ActionResult> {
    // A poll already on its way may carry the state from before this action; it must not land after it.
    await queryClient.cancelQueries({ queryKey: trpc.checkout.state.queryKey(input) });
    try {
      const next = await run();
      queryClient.setQueryData(trpc.checkout.state.queryKey(input), next);
      return { ok: true, state: next };
    } catch (err) {
      const info = errorInfo(err);
      // The payment may have moved on (another tab, the sweeper, a forged token): show where it is now.
      if (info.appCode === "CONFLICT" || isForbidden(err)) void stateQuery.refetch();
      return { ok: false, ...info };
    }
  }

  async function startPayment(payment: PayPayload): Promise<ActionResult> {
    const res = await act(() => pay.mutateAsync({ ...input, payment }));
    // Card details must not linger in the mutation cache.
    pay.reset();
    if (res.ok && payment.method === "NETBANKING" && res.state.status === "PENDING") router.push(`/checkout/${paymentId}/bank`);
    return res;
  }

  async function runSimulation(outcome: "SUCCESS" | "FAILED") {
    setSimulateError(null);
    const res = await act(() => simulate.mutateAsync({ ...input, outcome }));
    if (!res.ok) setSimulateError(res.message);
  }

  /** The state as the server has it now, after an action was refused because the payment moved on. */
  async function freshState(): Promise<CheckoutState> {
    const r = await stateQuery.refetch();
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

  // At 00:00 ask the server at once rather than waiting for the next poll (only when crossing zero).
  const expiredByClock = msLeft <= 0;
  useEffect(() => {
    if (expiredByClock && !state.isFinal) void stateQuery.refetch();
  }, [expiredByClock]); // eslint-disable-line react-hooks/exhaustive-deps

  // Each new screen moves focus to its heading, so keyboard and screen-reader users land on it.
  const headingRef = useRef<HTMLHeadingElement>(null);
  const shownView = linkInvalid ? "invalid" : view;
  const lastView = useRef(shownView);
  useEffect(() => {
    if (lastView.current === shownView) return;
    lastView.current = shownView;
    headingRef.current?.focus();
  }, [shownView]);

  const announcement = linkInvalid
    ? "This payment link can't be used."
    : {
        choose: leftLastAttempt(state) ? LEFT_ATTEMPT_NOTE : msLeft > 0 && msLeft < WARN_BELOW_MS ? "Less than 2 minutes left to pay." : "",
        pending: state.attempt?.method === "UPI" ? "Waiting for you to approve the payment in your UPI app." : "Waiting for the bank to confirm the payment.",
        failed: `Payment failed. ${state.attempt?.errorMessage ?? ""}`,
        success: `Payment of ${amountLabel} successful.`,
        expired: "This payment link has expired.",
        cancelled: "Payment cancelled.",
      }[view];

  const showSummaryTimer = !linkInvalid && (view === "choose" || view === "failed" || view === "pending");

  return (
    <div>
      <MerchantHeader
        name={merchant.name}
        logoUrl={merchant.logoUrl}
        brandColor={merchant.brandColor}
        amountLabel={amountLabel}
        caption={view === "success" ? "Amount paid" : view === "expired" || view === "cancelled" ? "Amount" : "Amount to pay"}
      />
      <p className="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>

      <dl className="flex flex-wrap items-start justify-between gap-x-6 gap-y-2 border-b border-slate-100 px-5 py-3 text-sm sm:px-6">
        <div className="min-w-0">
          <dt className="sr-only">Order</dt>
          <dd className="font-mono text-xs text-slate-500">{props.orderId}</dd>
          {props.description && (
            <>
              <dt className="sr-only">Description</dt>
              <dd className="mt-0.5 text-slate-800">{props.description}</dd>
            </>
          )}
        </div>
        {showSummaryTimer && (
          <div>
            <dt className="sr-only">Time left to pay</dt>
            <dd
              className={cx(
                "inline-flex items-center gap-1.5 rounded-full px-2.5 py-1 text-xs font-medium tabular-nums",
                msLeft <= 0 ? "bg-slate-100 text-slate-600" : msLeft < WARN_BELOW_MS ? "bg-amber-100 text-amber-900" : "bg-slate-100 text-slate-700",
              )}
            >
              <ClockIcon />
              {msLeft > 0 ? (
                <span>
                  Expires in <time dateTime={state.expiresAt}>{formatRemaining(msLeft)}</time>
                </span>
              ) : (
                <span>Time is up</span>
              )}
            </dd>
          </div>
        )}
      </dl>

      <div className="px-5 py-6 sm:px-6">
        {stateQuery.isRefetchError && !linkInvalid && (
          <div className="mb-4">
            <Notice tone="warning">We can&apos;t reach Parakh right now; retrying. Your payment is safe.</Notice>
          </div>
        )}

        {linkInvalid ? (
          <InvalidLinkView message={errorInfo(stateQuery.error).message} headingRef={headingRef} />
        ) : view === "success" ? (
          <SuccessView state={state} merchantName={merchant.name} orderId={props.orderId} amountLabel={amountLabel} headingRef={headingRef} />
        ) : view === "expired" || view === "cancelled" ? (
          <ClosedView kind={view} state={state} merchantName={merchant.name} headingRef={headingRef} />
        ) : view === "pending" ? (
          <PendingView
            state={state}
            sandbox={sandbox}
            amountLabel={amountLabel}
            upiIntent={props.upiIntent}
            upiQr={props.upiQr}
            paymentId={paymentId}
            busy={busy}
            simulating={simulate.isPending ? (simulate.variables?.outcome ?? null) : null}
            simulateError={simulateError}
            onSimulate={runSimulation}
            leaving={abandon.isPending ? (abandon.variables?.then ?? null) : null}
            leaveError={leaveError}
            onUseAnotherMethod={useAnotherMethod}
            onCancel={() => {
              setCancelError(null);
              setConfirmCancel(true);
            }}
            headingRef={headingRef}
          />
        ) : view === "failed" ? (
          <FailedView
            state={state}
            busy={busy}
            onRetry={() => {
              setDismissedAttempt(state.attempt?.id ?? null);
              if (state.attempt?.method) setMethod(state.attempt.method as Method);
            }}
            onCancel={() => setConfirmCancel(true)}
            headingRef={headingRef}
          />
        ) : (
          <>
            {/* Not a live region of its own: the page's status line already announces it. */}
            {leftLastAttempt(state) && (
              <p className="mb-4 rounded-md border border-brand-100 bg-brand-50 px-4 py-3 text-sm text-brand-700">{LEFT_ATTEMPT_NOTE}</p>
            )}
            <h1 ref={headingRef} tabIndex={-1} style={{ outline: "none" }} className="text-sm font-medium text-slate-700">
              Choose how to pay
            </h1>
            <MethodTabs value={method} onChange={setMethod} />
            <div role="tabpanel" id={`panel-${method}`} aria-labelledby={`tab-${method}`} className="mt-5">
              {method === "UPI" && <UpiPanel amountLabel={amountLabel} upiIntent={props.upiIntent} sandbox={sandbox} busy={busy} onPay={startPayment} />}
              {method === "CARD" && <CardForm amountLabel={amountLabel} sandbox={sandbox} busy={busy} onPay={startPayment} />}
              {method === "NETBANKING" && <NetbankingPanel banks={props.banks} sandbox={sandbox} busy={busy} onPay={startPayment} />}
            </div>
            <div className="mt-6 border-t border-slate-100 pt-4 text-center">
              <button
                type="button"
                onClick={() => setConfirmCancel(true)}
                disabled={busy}
                className="text-sm text-slate-500 underline-offset-2 hover:text-slate-700 hover:underline disabled:opacity-50"
              >
                Cancel payment
              </button>
            </div>
          </>
        )}
      </div>

      <Dialog open={confirmCancel} onClose={() => setConfirmCancel(false)} title="Cancel this payment?">
        <p className="text-sm text-slate-600">
          You won&apos;t be able to pay with this link afterwards, and {merchant.name} will be told you cancelled.{" "}
          {view === "pending"
            ? "We'll stop waiting for the payment you started; if it still goes through, the money comes back to you automatically."
            : "Nothing has been charged."}
        </p>
        {cancelError && (
          <div className="mt-3">
            <Notice tone="error">{cancelError}</Notice>
          </div>
        )}
        <div className="mt-5 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button type="button" variant="secondary" onClick={() => setConfirmCancel(false)} disabled={cancel.isPending || abandon.isPending}>
            {view === "pending" ? "Keep waiting" : "Keep paying"}
          </Button>
          <Button
            type="button"
            variant="danger"
            onClick={cancelPayment}
            loading={cancel.isPending || (abandon.variables?.then === "cancel" && abandon.isPending)}
            disabled={busy}
          >
            Cancel payment
          </Button>
        </div>
      </Dialog>
    </div>
  );
}

/** Tabs with roving focus: arrow keys move between methods, Tab goes into the panel. */
function MethodTabs({ value, onChange }: { value: Method; onChange: (m: Method) => void }) {
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  function onKeyDown(e: React.KeyboardEvent) {
    const i = METHODS.findIndex((m) => m.id === value);
    const next =
      e.key === "ArrowRight"
        ? (i + 1) % METHODS.length
        : e.key === "ArrowLeft"
          ? (i - 1 + METHODS.length) % METHODS.length
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? METHODS.length - 1
              : -1;
    if (next < 0) return;
    e.preventDefault();
    const id = METHODS[next]!.id;
    onChange(id);
    refs.current[id]?.focus();
  }
  return (
    <div role="tablist" aria-label="Payment method" onKeyDown={onKeyDown} className="mt-3 grid grid-cols-3 gap-2">
      {METHODS.map((m) => {
        const selected = m.id === value;
        return (
          <button
            key={m.id}
            ref={(el) => {
              refs.current[m.id] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${m.id}`}
            aria-selected={selected}
            aria-controls={selected ? `panel-${m.id}` : undefined}
            tabIndex={selected ? 0 : -1}
            onClick={() => onChange(m.id)}
            className={cx(
              "flex flex-col items-center gap-1 rounded-lg border px-2 py-2.5 text-sm transition-colors",
              selected
                ? "border-brand-600 bg-brand-50 text-slate-900 ring-1 ring-brand-600"
                : "border-slate-200 text-slate-600 hover:border-slate-300 hover:text-slate-900",
            )}
          >
            <MethodIcon method={m.id} />
            <span className="font-medium">{m.label}</span>
            <span className="hidden text-[11px] text-slate-500 sm:block">{m.hint}</span>
          </button>
        );
      })}
    </div>
  );
}

function MethodIcon({ method }: { method: Method }) {
  const d = {
    UPI: "M7 3h10a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2Zm4 15h2",
    CARD: "M3 7a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V7Zm0 3h18M7 15h3",
    NETBANKING: "M3 10h18M5 10v8m4.67-8v8m4.66-8v8M19 10v8M3 21h18M12 3l9 5H3l9-5Z",
  }[method];
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      className="h-5 w-5"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={d} />
    </svg>
  );
}

function ClockIcon() {
  return (
    <svg aria-hidden="true" viewBox="0 0 20 20" className="h-3.5 w-3.5" fill="none" stroke="currentColor" strokeWidth="2">
      <circle cx="10" cy="10" r="7.5" />
      <path d="M10 6v4l2.5 2" strokeLinecap="round" />
    </svg>
  );
}
