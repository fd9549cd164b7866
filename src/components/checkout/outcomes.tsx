"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { DetailList, OutcomeIcon, ReturnToMerchant, formatIst, methodLabel } from "@/components/checkout/parts";
import { WaitingForCardPage } from "@/components/checkout/card-hand-off";
import { failureReason } from "@/components/checkout/failure-reasons";
import type { CheckoutState } from "@/components/checkout/types";
import { Button, CopyButton, Notice, Spinner } from "@/components/ui";

type HeadingRef = React.Ref<HTMLHeadingElement>;

function Heading({ headingRef, children }: { headingRef: HeadingRef; children: React.ReactNode }) {
  return (
    // Focused by script after a state change; a ring around plain text would only confuse.
    <h1 ref={headingRef} tabIndex={-1} style={{ outline: "none" }} className="mt-4 text-lg font-semibold text-slate-900">
      {children}
    </h1>
  );
}

const ON_DESKTOP = "max-sm:hidden pointer-coarse:hidden";
const ON_PHONE = "hidden max-sm:block pointer-coarse:block";

const BANK_LINK = "mt-4 inline-flex rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700";

/**
 * A card or netbanking attempt: the bank is confirming. A netbanking customer gets a way back to the
 * bank's page: Parakh's mock bank in sandbox, the page the processor gave for this attempt in live.
 */
function WaitingForBank({
  method,
  bank,
  sandbox,
  bankPage,
  amountLabel,
  paymentId,
  headingRef,
}: {
  method: string;
  bank: string | null;
  sandbox: boolean;
  /** Live: the bank's page on the processor's site for this attempt, if it gave one. */
  bankPage: string | null;
  amountLabel: string;
  paymentId: string;
  headingRef: HeadingRef;
}) {
  const label = `Go to ${bank ?? "your bank"}`;
  return (
    <>
      <Heading headingRef={headingRef}>Waiting for the bank</Heading>
      <p className="mt-2 text-sm text-slate-600">
        {bank ? `Finish the payment of ${amountLabel} on ${bank}'s page.` : `Your bank is confirming the payment of ${amountLabel}.`}
      </p>
      {method === "NETBANKING" && sandbox && (
        <Link href={`/checkout/${paymentId}/bank`} className={BANK_LINK}>
          {label}
        </Link>
      )}
      {method === "NETBANKING" && !sandbox && bankPage && (
        <a href={bankPage} className={BANK_LINK}>
          {label}
        </a>
      )}
    </>
  );
}

/** A UPI attempt: the QR code (desktop) or a way back to the app (phone), or where the collect request went. */
function WaitingForUpi({
  viaApp,
  vpa,
  amountLabel,
  upiIntent,
  upiQr,
  headingRef,
}: {
  viaApp: boolean;
  vpa: string | null;
  amountLabel: string;
  /** Null when the processor gave none for this attempt (a live QR attempt has no app link). */
  upiIntent: string | null;
  upiQr: string | null;
  headingRef: HeadingRef;
}) {
  return (
    <>
      <Heading headingRef={headingRef}>Approve the payment in your UPI app</Heading>
      {viaApp ? (
        <>
          {upiQr && (
            <div className={upiIntent ? ON_DESKTOP : undefined}>
              <p className="mt-2 text-sm text-slate-600">Scan this code with any UPI app and approve {amountLabel}.</p>
              <img src={upiQr} alt={`UPI QR code to pay ${amountLabel}`} className="mx-auto mt-3 h-48 w-48 rounded-lg border border-slate-200 p-2" />
            </div>
          )}
          {upiIntent && (
            <div className={upiQr ? ON_PHONE : undefined}>
              <p className="mt-2 text-sm text-slate-600">Approve {amountLabel} in your UPI app, then come back to this page.</p>
              <a
                href={upiIntent}
                className="mt-4 inline-flex rounded-md border border-slate-300 bg-white px-4 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50"
              >
                Open UPI app again
              </a>
            </div>
          )}
          {!upiQr && !upiIntent && <p className="mt-2 text-sm text-slate-600">Approve {amountLabel} in your UPI app, then come back to this page.</p>}
        </>
      ) : (
        <p className="mt-2 text-sm text-slate-600">
          We sent a request for {amountLabel} to <span className="font-medium text-slate-900">{vpa}</span>. Open your UPI app and approve it.
        </p>
      )}
    </>
  );
}

/** A way out, so nobody has to wait out an approval that isn't coming. */
function WaysOut({
  busy,
  leaving,
  leaveError,
  onUseAnotherMethod,
  onCancel,
}: {
  busy: boolean;
  leaving: "retry" | "cancel" | null;
  leaveError: string | null;
  onUseAnotherMethod: () => void;
  onCancel: () => void;
}) {
  return (
    <div className="mt-6 border-t border-slate-100 pt-5">
      {leaveError && (
        <div className="mb-4 text-left">
          <Notice tone="error">{leaveError}</Notice>
        </div>
      )}
      <div className="flex flex-col items-center gap-1">
        <Button type="button" variant="secondary" className="w-full max-w-xs py-2.5" onClick={onUseAnotherMethod} loading={leaving === "retry"} disabled={busy}>
          Use another method
        </Button>
        <button
          type="button"
          onClick={onCancel}
          disabled={busy}
          className="rounded px-3 py-2.5 text-sm text-slate-500 underline-offset-2 hover:text-slate-700 hover:underline disabled:opacity-50"
        >
          Cancel payment
        </button>
      </div>
    </div>
  );
}

/** Sandbox only: end the UPI payment as success or failure, since no UPI app is involved. */
function SandboxSimulator({
  busy,
  simulating,
  error,
  onSimulate,
}: {
  busy: boolean;
  simulating: "SUCCESS" | "FAILED" | null;
  error: string | null;
  onSimulate: (outcome: "SUCCESS" | "FAILED") => void;
}) {
  return (
    <div className="mt-4 rounded-lg border border-dashed border-amber-300 bg-amber-50 px-4 py-3 text-left">
      <p className="text-sm font-medium text-amber-900">Sandbox simulator</p>
      <p className="mt-0.5 text-xs text-amber-800">No UPI app in sandbox: choose how this payment ends.</p>
      {error && (
        <div className="mt-3">
          <Notice tone="error">{error}</Notice>
        </div>
      )}
      <div className="mt-3 flex flex-wrap gap-2">
        <Button type="button" size="sm" onClick={() => onSimulate("SUCCESS")} loading={simulating === "SUCCESS"} disabled={busy}>
          Simulate success
        </Button>
        <Button type="button" size="sm" variant="secondary" onClick={() => onSimulate("FAILED")} loading={simulating === "FAILED"} disabled={busy}>
          Simulate failure
        </Button>
      </div>
    </div>
  );
}

export function PendingView({
  state,
  sandbox,
  amountLabel,
  upiIntent,
  upiQr,
  paymentId,
  busy,
  simulating,
  simulateError,
  onSimulate,
  leaving,
  leaveError,
  onUseAnotherMethod,
  onCancel,
  headingRef,
}: {
  state: CheckoutState;
  sandbox: boolean;
  amountLabel: string;
  upiIntent: string;
  upiQr: string;
  paymentId: string;
  busy: boolean;
  simulating: "SUCCESS" | "FAILED" | null;
  simulateError: string | null;
  onSimulate: (outcome: "SUCCESS" | "FAILED") => void;
  /** Which way out is being taken right now ("Use another method" or "Cancel payment"), if any. */
  leaving: "retry" | "cancel" | null;
  leaveError: string | null;
  onUseAnotherMethod: () => void;
  onCancel: () => void;
  headingRef: HeadingRef;
}) {
  const a = state.attempt;
  const method = a?.method ?? state.method;
  const viaApp = method === "UPI" && !a?.vpa;
  // A collect request's scripted result lands within seconds; offer the simulator only if it doesn't.
  const [collectLate, setCollectLate] = useState(false);
  useEffect(() => {
    setCollectLate(false);
    const t = setTimeout(() => setCollectLate(true), 5000);
    return () => clearTimeout(t);
  }, [a?.id]);
  const showSimulator = sandbox && method === "UPI" && (viaApp || collectLate);

  return (
    <div className="text-center">
      <span aria-hidden="true" className="mx-auto flex h-14 w-14 items-center justify-center rounded-full bg-brand-50 text-brand-600">
        <Spinner className="h-7 w-7" />
      </span>
      {method === "CARD" && !sandbox ? (
        <WaitingForCardPage amountLabel={amountLabel} headingRef={headingRef} />
      ) : method === "NETBANKING" || method === "CARD" ? (
        <WaitingForBank
          method={method}
          bank={a?.bank ?? null}
          sandbox={sandbox}
          bankPage={a?.action?.kind === "redirect" ? a.action.url : null}
          amountLabel={amountLabel}
          paymentId={paymentId}
          headingRef={headingRef}
        />
      ) : (
        <WaitingForUpi
          viaApp={viaApp}
          vpa={a?.vpa ?? null}
          amountLabel={amountLabel}
          // Live: the processor's own link or QR for this attempt (kept while it is pending, so a reload shows it again).
          upiIntent={sandbox ? upiIntent : a?.action?.kind === "intent" ? a.action.url : null}
          upiQr={sandbox ? upiQr : a?.action?.kind === "qr" ? a.action.image : null}
          headingRef={headingRef}
        />
      )}

      <p className="mt-4 text-xs text-slate-500">This page updates by itself; keep it open.</p>

      {/* Before the ways out: in sandbox it is what the tester came to press, and at 1280×800 it stays above the fold. */}
      {showSimulator && <SandboxSimulator busy={busy} simulating={simulating} error={simulateError} onSimulate={onSimulate} />}

      <WaysOut busy={busy} leaving={leaving} leaveError={leaveError} onUseAnotherMethod={onUseAnotherMethod} onCancel={onCancel} />
    </div>
  );
}

export function FailedView({
  state,
  busy,
  onRetry,
  onCancel,
  headingRef,
}: {
  state: CheckoutState;
  busy: boolean;
  onRetry: () => void;
  onCancel: () => void;
  headingRef: HeadingRef;
}) {
  const a = state.attempt;
  return (
    <div className="text-center">
      <OutcomeIcon tone="error" />
      <Heading headingRef={headingRef}>Payment failed</Heading>
      <p className="mt-2 text-sm text-slate-600">{failureReason(a?.errorCode, a?.method ?? state.method)}</p>
      {a && <p className="mt-1 text-xs text-slate-500">{methodLabel(a)}</p>}
      <p className="mt-3 text-sm text-slate-600">You can try again with the same method or another one.</p>
      <div className="mt-5 flex flex-col items-center gap-3">
        <Button type="button" className="w-full max-w-xs py-2.5" onClick={onRetry} disabled={busy}>
          Try again
        </Button>
        <button type="button" onClick={onCancel} disabled={busy} className="text-sm text-slate-500 underline-offset-2 hover:text-slate-700 hover:underline">
          Cancel payment
        </button>
      </div>
    </div>
  );
}

export function SuccessView({
  state,
  merchantName,
  orderId,
  amountLabel,
  headingRef,
}: {
  state: CheckoutState;
  merchantName: string;
  orderId: string;
  amountLabel: string;
  headingRef: HeadingRef;
}) {
  return (
    <div>
      <div className="text-center">
        <OutcomeIcon tone="success" />
        <Heading headingRef={headingRef}>Payment successful</Heading>
        <p className="mt-1 text-sm text-slate-600">
          {amountLabel} paid to {merchantName}
        </p>
      </div>
      <div className="mt-5">
        <DetailList
          rows={[
            ["Amount", amountLabel],
            ["Paid on", formatIst(state.paidAt)],
            [
              "Bank reference",
              state.bankReference ? (
                <span className="flex items-center justify-end gap-2">
                  <span className="font-mono text-xs">{state.bankReference}</span>
                  <span className="shrink-0">
                    <CopyButton value={state.bankReference} label="Copy" />
                  </span>
                </span>
              ) : (
                "—"
              ),
            ],
            [
              "Payment ID",
              <span key="p" className="font-mono text-xs">
                {state.paymentId}
              </span>,
            ],
            [
              "Order ID",
              <span key="o" className="font-mono text-xs">
                {orderId}
              </span>,
            ],
            ["Method", methodLabel(state.attempt, state.method)],
            ["Paid to", merchantName],
          ]}
        />
      </div>
      {state.redirectTo ? (
        <ReturnToMerchant redirectTo={state.redirectTo} merchantName={merchantName} />
      ) : (
        <p className="mt-5 text-center text-sm text-slate-500">You can close this page. Keep the bank reference for your records.</p>
      )}
    </div>
  );
}

export function ClosedView({
  kind,
  state,
  merchantName,
  headingRef,
}: {
  kind: "expired" | "cancelled";
  state: CheckoutState;
  merchantName: string;
  headingRef: HeadingRef;
}) {
  return (
    <div className="text-center">
      <OutcomeIcon tone={kind === "expired" ? "warning" : "neutral"} />
      <Heading headingRef={headingRef}>{kind === "expired" ? "This payment link has expired" : "Payment cancelled"}</Heading>
      <p className="mt-2 text-sm text-slate-600">
        {kind === "expired"
          ? `The time to pay ended at ${formatIst(state.expiresAt)}. Nothing was charged; go back to ${merchantName} to start again.`
          : `You cancelled this payment and nothing was charged. Go back to ${merchantName} if you want to pay again.`}
      </p>
      {state.redirectTo && <ReturnToMerchant redirectTo={state.redirectTo} merchantName={merchantName} />}
    </div>
  );
}

export function InvalidLinkView({ message, headingRef }: { message: string; headingRef: HeadingRef }) {
  return (
    <div className="text-center">
      <OutcomeIcon tone="error" />
      <Heading headingRef={headingRef}>This payment link can&apos;t be used</Heading>
      <p className="mt-2 text-sm text-slate-600">{message}</p>
      <Button type="button" variant="secondary" className="mt-5" onClick={() => window.location.reload()}>
        Reload the page
      </Button>
    </div>
  );
}
