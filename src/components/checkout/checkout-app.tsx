"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { CancelPaymentDialog } from "@/components/checkout/cancel-dialog";
import { CardForm } from "@/components/checkout/card-form";
import { CardHandOff } from "@/components/checkout/card-hand-off";
import {
  LEFT_ATTEMPT_NOTE,
  WARN_BELOW_MS,
  isForbidden,
  leftLastAttempt,
  useCheckoutState,
  useServerClock,
  viewFor,
  type View,
} from "@/components/checkout/checkout-state";
import { MerchantHeader } from "@/components/checkout/frame";
import { MethodTabs, cardPanelFor, methodsFor, type Method } from "@/components/checkout/method-tabs";
import { NetbankingPanel } from "@/components/checkout/netbanking-panel";
import { OrderSummary } from "@/components/checkout/order-summary";
import { ClosedView, FailedView, InvalidLinkView, PendingView, SuccessView } from "@/components/checkout/outcomes";
import type { ActionResult, CheckoutAppProps, CheckoutState, PayPayload } from "@/components/checkout/types";
import { UpiPanel } from "@/components/checkout/upi-panel";
import { useCheckoutActions } from "@/components/checkout/use-checkout-actions";
import { Notice } from "@/components/ui";
import { errorInfo } from "@/components/trpc/client";

/** The page's status line for screen readers: what the screen now shows. */
function announcementFor(view: View, state: CheckoutState, msLeft: number, amountLabel: string): string {
  return {
    choose: leftLastAttempt(state) ? LEFT_ATTEMPT_NOTE : msLeft > 0 && msLeft < WARN_BELOW_MS ? "Less than 2 minutes left to pay." : "",
    pending: state.attempt?.method === "UPI" ? "Waiting for you to approve the payment in your UPI app." : "Waiting for the bank to confirm the payment.",
    failed: `Payment failed. ${state.attempt?.errorMessage ?? ""}`,
    success: `Payment of ${amountLabel} successful.`,
    expired: "This payment link has expired.",
    cancelled: "Payment cancelled.",
  }[view];
}

/** Each new screen moves focus to its heading, so keyboard and screen-reader users land on it. */
function useFocusHeadingOnChange(shownView: string) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const lastView = useRef(shownView);
  useEffect(() => {
    if (lastView.current === shownView) return;
    lastView.current = shownView;
    headingRef.current?.focus();
  }, [shownView]);
  return headingRef;
}

/** The method tabs and the chosen method's form, with Cancel payment below. */
function ChooseMethod({
  props,
  state,
  method,
  onMethod,
  busy,
  onPay,
  onHandOff,
  onCancel,
  headingRef,
}: {
  props: CheckoutAppProps;
  state: CheckoutState;
  method: Method;
  onMethod: (m: Method) => void;
  busy: boolean;
  onPay: (payment: PayPayload) => Promise<ActionResult>;
  onHandOff: () => Promise<{ ok: true; sessionId: string } | { ok: false; message: string }>;
  onCancel: () => void;
  headingRef: React.Ref<HTMLHeadingElement>;
}) {
  const sandbox = props.mode === "sandbox";
  return (
    <>
      {/* Not a live region of its own: the page's status line already announces it. */}
      {leftLastAttempt(state) && <p className="mb-4 rounded-md border border-brand-100 bg-brand-50 px-4 py-3 text-sm text-brand-700">{LEFT_ATTEMPT_NOTE}</p>}
      <h1 ref={headingRef} tabIndex={-1} style={{ outline: "none" }} className="text-sm font-medium text-slate-700">
        Choose how to pay
      </h1>
      <MethodTabs value={method} onChange={onMethod} offered={methodsFor()} />
      <div role="tabpanel" id={`panel-${method}`} aria-labelledby={`tab-${method}`} className="mt-5">
        {method === "UPI" && <UpiPanel amountLabel={props.amountLabel} upiIntent={props.upiIntent} sandbox={sandbox} busy={busy} onPay={onPay} />}
        {method === "CARD" && cardPanelFor(props.mode) === "form" && <CardForm amountLabel={props.amountLabel} sandbox={sandbox} busy={busy} onPay={onPay} />}
        {method === "CARD" && cardPanelFor(props.mode) === "hand-off" && (
          <CardHandOff amountLabel={props.amountLabel} vendor={props.vendorCheckout} busy={busy} onHandOff={onHandOff} />
        )}
        {method === "NETBANKING" && (
          <NetbankingPanel
            banks={props.banks}
            initialBank={state.attempt?.method === "NETBANKING" ? (state.attempt.bank ?? null) : null}
            sandbox={sandbox}
            busy={busy}
            onPay={onPay}
          />
        )}
      </div>
      <div className="mt-6 border-t border-slate-100 pt-4 text-center">
        <button
          type="button"
          onClick={onCancel}
          disabled={busy}
          className="text-sm text-slate-500 underline-offset-2 hover:text-slate-700 hover:underline disabled:opacity-50"
        >
          Cancel payment
        </button>
      </div>
    </>
  );
}

/** The screen for where the payment is: choosing a method, waiting, failed, paid, closed, or a link that cannot be used. */
function CheckoutScreen({
  props,
  view,
  invalidMessage,
  state,
  actions,
  method,
  onMethod,
  headingRef,
}: {
  props: CheckoutAppProps;
  view: View | "invalid";
  invalidMessage: string;
  state: CheckoutState;
  actions: ReturnType<typeof useCheckoutActions>;
  method: Method;
  onMethod: (m: Method) => void;
  headingRef: React.Ref<HTMLHeadingElement>;
}) {
  return view === "invalid" ? (
    <InvalidLinkView message={invalidMessage} headingRef={headingRef} />
  ) : view === "success" ? (
    <SuccessView state={state} merchantName={props.merchant.name} orderId={props.orderId} amountLabel={props.amountLabel} headingRef={headingRef} />
  ) : view === "expired" || view === "cancelled" ? (
    <ClosedView kind={view} state={state} merchantName={props.merchant.name} headingRef={headingRef} />
  ) : view === "pending" ? (
    <PendingView
      state={state}
      sandbox={props.mode === "sandbox"}
      amountLabel={props.amountLabel}
      upiIntent={props.upiIntent}
      upiQr={props.upiQr}
      paymentId={props.paymentId}
      busy={actions.busy}
      simulating={actions.simulating}
      simulateError={actions.simulateError}
      onSimulate={actions.runSimulation}
      leaving={actions.leaving}
      leaveError={actions.leaveError}
      onUseAnotherMethod={actions.useAnotherMethod}
      onCancel={() => {
        actions.setCancelError(null);
        actions.setConfirmCancel(true);
      }}
      headingRef={headingRef}
    />
  ) : view === "failed" ? (
    <FailedView
      state={state}
      busy={actions.busy}
      onRetry={() => {
        actions.setDismissedAttempt(state.attempt?.id ?? null);
        if (state.attempt?.method) onMethod(state.attempt.method as Method);
      }}
      onCancel={() => actions.setConfirmCancel(true)}
      headingRef={headingRef}
    />
  ) : (
    <ChooseMethod
      props={props}
      state={state}
      method={method}
      onMethod={onMethod}
      busy={actions.busy}
      onPay={actions.startPayment}
      onHandOff={actions.startCardHandOff}
      onCancel={() => actions.setConfirmCancel(true)}
      headingRef={headingRef}
    />
  );
}

export function CheckoutApp(props: CheckoutAppProps) {
  const { paymentId, token, merchant, amountLabel } = props;
  const input = useMemo(() => ({ paymentId, token }), [paymentId, token]);
  const now = useServerClock(props.renderedAt);
  const stateQuery = useCheckoutState(input, props.initialState);
  const state = stateQuery.data;
  const linkInvalid = isForbidden(stateQuery.error);
  const actions = useCheckoutActions({ input, state, sandbox: props.mode === "sandbox", refetchState: stateQuery.refetch });
  const [method, setMethod] = useState<Method>(() => (props.initialState.attempt?.method as Method | undefined) ?? "UPI");

  const view = viewFor(state, now, actions.dismissedAttempt);
  const msLeft = Date.parse(state.expiresAt) - now;

  // At 00:00 ask the server at once rather than waiting for the next poll (only when crossing zero).
  const expiredByClock = msLeft <= 0;
  useEffect(() => {
    if (expiredByClock && !state.isFinal) void stateQuery.refetch();
  }, [expiredByClock]); // eslint-disable-line react-hooks/exhaustive-deps

  const headingRef = useFocusHeadingOnChange(linkInvalid ? "invalid" : view);
  const announcement = linkInvalid ? "This payment link can't be used." : announcementFor(view, state, msLeft, amountLabel);
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

      <OrderSummary orderId={props.orderId} description={props.description} showTimer={showSummaryTimer} msLeft={msLeft} expiresAt={state.expiresAt} />

      <div className="px-5 py-6 sm:px-6">
        {stateQuery.isRefetchError && !linkInvalid && (
          <div className="mb-4">
            <Notice tone="warning">We can&apos;t reach Parakh right now; retrying. Your payment is safe.</Notice>
          </div>
        )}

        <CheckoutScreen
          props={props}
          view={linkInvalid ? "invalid" : view}
          invalidMessage={errorInfo(stateQuery.error).message}
          state={state}
          actions={actions}
          method={method}
          onMethod={setMethod}
          headingRef={headingRef}
        />
      </div>

      <CancelPaymentDialog
        open={actions.confirmCancel}
        merchantName={merchant.name}
        pending={view === "pending"}
        error={actions.cancelError}
        cancelling={actions.cancelling}
        loading={actions.cancelLoading}
        busy={actions.busy}
        onClose={() => actions.setConfirmCancel(false)}
        onConfirm={actions.cancelPayment}
      />
    </div>
  );
}
