"use client";

import { Button, Dialog, Notice } from "@/components/ui";

/** "Cancel this payment?": while an attempt is pending, cancelling also stops waiting for it. */
export function CancelPaymentDialog({
  open,
  merchantName,
  pending,
  error,
  cancelling,
  loading,
  busy,
  onClose,
  onConfirm,
}: {
  open: boolean;
  merchantName: string;
  /** An attempt is pending (the customer is asked to stop waiting rather than to stop paying). */
  pending: boolean;
  error: string | null;
  /** A cancel or leave call is running: "Keep …" is disabled. */
  cancelling: boolean;
  loading: boolean;
  busy: boolean;
  onClose: () => void;
  onConfirm: () => void;
}) {
  return (
    <Dialog open={open} onClose={onClose} title="Cancel this payment?">
      <p className="text-sm text-slate-600">
        You won&apos;t be able to pay with this link afterwards, and {merchantName} will be told you cancelled.{" "}
        {pending
          ? "We'll stop waiting for the payment you started; if it still goes through, the money comes back to you automatically."
          : "Nothing has been charged."}
      </p>
      {error && (
        <div className="mt-3">
          <Notice tone="error">{error}</Notice>
        </div>
      )}
      <div className="mt-5 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button type="button" variant="secondary" onClick={onClose} disabled={cancelling}>
          {pending ? "Keep waiting" : "Keep paying"}
        </Button>
        <Button type="button" variant="danger" onClick={onConfirm} loading={loading} disabled={busy}>
          Cancel payment
        </Button>
      </div>
    </Dialog>
  );
}
