"use client";

import { useState } from "react";
import { Button, Field, Notice } from "@/components/ui";
import type { ActionResult, PayPayload } from "@/components/checkout/types";
import { vpaSchema } from "@/lib/schemas/checkout";

// Phones (narrow or touch-first) get the intent button; desktops get the QR. CSS picks, so the
// server's HTML is already right and nothing jumps after hydration.
const ON_DESKTOP = "max-sm:hidden pointer-coarse:hidden";
const ON_PHONE = "hidden max-sm:block pointer-coarse:block";

/** Desktop: show a QR code to scan with a UPI app on a phone. */
function ScanQrOption({ loading, busy, onStart }: { loading: boolean; busy: boolean; onStart: () => void }) {
  return (
    <div className={ON_DESKTOP}>
      <div className="flex items-center gap-4 rounded-lg border border-slate-200 p-4">
        <span aria-hidden="true" className="flex h-20 w-20 shrink-0 items-center justify-center rounded-md bg-slate-100 text-slate-400">
          <QrGlyph />
        </span>
        <div className="min-w-0 flex-1">
          <p className="text-sm font-medium text-slate-900">Scan and pay</p>
          <p className="mt-0.5 text-sm text-slate-500">Use any UPI app on your phone: Google Pay, PhonePe, Paytm, BHIM.</p>
          <Button type="button" className="mt-3" onClick={onStart} loading={loading} disabled={busy}>
            Show QR code
          </Button>
        </div>
      </div>
    </div>
  );
}

/** Phone: open the UPI app on this phone with the payment filled in. */
function OpenAppOption({
  upiIntent,
  amountLabel,
  opening,
  busy,
  onStart,
}: {
  upiIntent: string;
  amountLabel: string;
  opening: boolean;
  busy: boolean;
  onStart: () => void;
}) {
  return (
    <div className={ON_PHONE}>
      <a
        href={upiIntent}
        onClick={(e) => {
          e.preventDefault();
          if (!busy) onStart();
        }}
        aria-disabled={busy || undefined}
        className="flex w-full items-center justify-center gap-2 rounded-md bg-brand-600 px-4 py-3 text-base font-medium text-white hover:bg-brand-700 aria-disabled:opacity-60"
      >
        {opening ? "Opening your UPI app…" : `Pay ${amountLabel} with UPI app`}
      </a>
      <p className="mt-2 text-center text-xs text-slate-500">Opens Google Pay, PhonePe, Paytm or any UPI app on this phone.</p>
    </div>
  );
}

export function UpiPanel({
  amountLabel,
  upiIntent,
  sandbox,
  busy,
  onPay,
}: {
  amountLabel: string;
  upiIntent: string;
  sandbox: boolean;
  busy: boolean;
  onPay: (payment: PayPayload) => Promise<ActionResult>;
}) {
  const [vpa, setVpa] = useState("");
  const [vpaError, setVpaError] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  const [started, setStarted] = useState<"qr" | "intent" | "collect" | null>(null);

  async function startApp(flow: "qr" | "intent") {
    setError(null);
    setStarted(flow);
    const res = await onPay({ method: "UPI", flow });
    setStarted(null);
    if (!res.ok) return setError(res.message);
    // Hand over to the UPI app only once the attempt exists, so its result has somewhere to land.
    // Live: the processor's own link for this attempt; sandbox: the page's.
    const action = res.state.attempt?.action;
    const link = sandbox ? upiIntent : action?.kind === "intent" ? action.url : null;
    if (flow === "intent" && link) window.location.href = link;
  }

  async function collect(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    const parsed = vpaSchema.safeParse(vpa);
    if (!parsed.success) return setVpaError(parsed.error.issues[0]?.message);
    setVpaError(undefined);
    setStarted("collect");
    const res = await onPay({ method: "UPI", flow: "collect", vpa: parsed.data });
    setStarted(null);
    if (!res.ok) {
      const fieldError = Object.entries(res.fieldErrors).find(([k]) => k.endsWith("vpa"))?.[1];
      if (fieldError) setVpaError(fieldError);
      else setError(res.message);
    }
  }

  return (
    <div className="space-y-5">
      {error && <Notice tone="error">{error}</Notice>}

      <ScanQrOption loading={started === "qr"} busy={busy} onStart={() => startApp("qr")} />

      <OpenAppOption upiIntent={upiIntent} amountLabel={amountLabel} opening={started === "intent"} busy={busy} onStart={() => void startApp("intent")} />

      <div className="flex items-center gap-3 text-xs uppercase tracking-wide text-slate-400" aria-hidden="true">
        <span className="h-px flex-1 bg-slate-200" /> or <span className="h-px flex-1 bg-slate-200" />
      </div>

      {/* No `name` attributes: if scripts haven't loaded, a native submit sends nothing anywhere. */}
      <form onSubmit={collect} noValidate className="space-y-3">
        <Field
          label="Pay by UPI ID"
          placeholder="yourname@bank"
          value={vpa}
          onChange={(e) => setVpa(e.target.value)}
          error={vpaError}
          hint={sandbox ? "Sandbox: success@parakh, failure@parakh or pending@parakh." : "We'll send a payment request to your UPI app."}
          inputMode="email"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
        />
        <Button type="submit" variant="secondary" className="w-full" loading={started === "collect"} disabled={busy}>
          Send request for {amountLabel}
        </Button>
      </form>
    </div>
  );
}

function QrGlyph() {
  return (
    <svg viewBox="0 0 24 24" className="h-10 w-10" fill="currentColor">
      <path d="M3 3h8v8H3V3Zm2 2v4h4V5H5Zm8-2h8v8h-8V3Zm2 2v4h4V5h-4ZM3 13h8v8H3v-8Zm2 2v4h4v-4H5Zm8-2h2v2h-2v-2Zm2 2h2v2h-2v-2Zm2-2h4v2h-4v-2Zm-4 4h2v4h-2v-4Zm4 0h4v2h-2v2h-2v-4Z" />
    </svg>
  );
}
