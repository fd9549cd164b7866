"use client";

import { useEffect } from "react";
import { Button, CopyButton, Notice, useModal } from "@/components/ui";
import { panVerifyCurl, type ApiBaseUrls } from "@/lib/api-snippets";

export interface ShownOnceKey {
  label: string;
  publicKey: string;
  secretKey: string;
}

/** With these the dialog also shows the merchant id and a first call that works as pasted. */
export interface FirstCallContext {
  merchantId: string;
  apiBaseUrls: ApiBaseUrls;
}

/**
 * Shows a new key pair once. Unlike the kit's Dialog it cannot be dismissed with Escape or a
 * backdrop click: the only way out is "I've saved it", so a secret is never lost by accident.
 */
export function SecretOnceDialog({
  shown,
  title,
  onDone,
  firstCall,
  doneLabel = "I’ve saved it",
}: {
  shown: ShownOnceKey | null;
  title: string;
  onDone: () => void;
  firstCall?: FirstCallContext | null;
  doneLabel?: string;
}) {
  const ref = useModal(shown !== null);
  // Closing the tab or reloading would lose the secret for good: let the browser ask first.
  useEffect(() => {
    if (!shown) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [shown]);
  const command =
    shown && firstCall
      ? panVerifyCurl(firstCall.apiBaseUrls, { merchantId: firstCall.merchantId, publicKey: shown.publicKey, secretKey: shown.secretKey })
      : null;
  return (
    <dialog
      ref={ref}
      aria-labelledby="secret-once-title"
      onCancel={(e) => e.preventDefault()}
      // Some browsers close anyway on a repeated Escape; reopen while the secret is still unsaved.
      onClose={() => {
        if (shown) ref.current?.showModal();
      }}
      className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-lg border border-slate-200 p-0 shadow-xl backdrop:bg-slate-900/50"
    >
      {shown && (
        <>
          <div className="border-b border-slate-100 px-5 py-3">
            <h2 id="secret-once-title" className="text-base font-semibold">
              {title}
            </h2>
            <p className="mt-0.5 text-sm text-slate-500">{shown.label}</p>
          </div>
          <div className="space-y-4 px-5 py-4">
            <Notice tone="warning">
              <strong>Copy the secret key now. You won’t see it again:</strong> we keep only a hash of it. If you lose it, rotate the key to get a new one.
            </Notice>
            {firstCall && <KeyLine label="Merchant ID" value={firstCall.merchantId} />}
            <KeyLine label="Public key" value={shown.publicKey} />
            <KeyLine label="Secret key" value={shown.secretKey} emphasis />
            <p className="text-xs text-slate-500">
              Keep the secret key on your server (an environment variable or secret manager), never in browser or app code.
            </p>
            {command && <FirstCall command={command} />}
            <div className="flex justify-end">
              <Button onClick={onDone}>{doneLabel}</Button>
            </div>
          </div>
        </>
      )}
    </dialog>
  );
}

/** A PAN verification with the new key, ready to paste into a shell. */
function FirstCall({ command }: { command: string }) {
  return (
    <div>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Try it: verify a PAN</p>
        <CopyButton value={command} label="Copy command" />
      </div>
      <pre
        className="mt-1 overflow-x-auto rounded-md bg-slate-900 px-3 py-2 font-mono text-xs leading-relaxed text-slate-100"
        aria-label="First API call with this key"
      >
        <code>{command}</code>
      </pre>
    </div>
  );
}

function KeyLine({ label, value, emphasis }: { label: string; value: string; emphasis?: boolean }) {
  return (
    <div>
      <p className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</p>
      <div className="mt-1 flex flex-col items-start gap-2 sm:flex-row">
        <code
          className={`w-full min-w-0 break-all sm:flex-1 rounded-md px-3 py-2 font-mono text-sm ${emphasis ? "bg-amber-50 text-slate-900 ring-1 ring-amber-200" : "bg-slate-100 text-slate-800"}`}
        >
          {value}
        </code>
        <CopyButton value={value} label={`Copy ${label.toLowerCase()}`} />
      </div>
    </div>
  );
}
