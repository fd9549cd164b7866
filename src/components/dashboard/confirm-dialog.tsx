"use client";

import { useState } from "react";
import { Button, Dialog, DialogActions, Notice } from "@/components/ui";
import { errorInfo } from "@/components/trpc/client";

/**
 * Asks before a destructive change to `target` (open while there is one): what will happen, Cancel,
 * and the danger button. A refusal is shown in the dialog, which stays open to try again.
 */
export function ConfirmDialog<T>({
  target,
  title,
  confirmLabel,
  pending,
  onClose,
  onConfirm,
  onFailed,
  children,
}: {
  target: T | null;
  title: string;
  confirmLabel: string;
  pending: boolean;
  onClose: () => void;
  /** Makes the change, then calls `close` (when it suits: before or after refreshing). */
  onConfirm: (target: T, close: () => void) => Promise<void>;
  /** After a refusal: the list may have changed meanwhile. */
  onFailed: () => void;
  /** What will happen, with any warning. */
  children: (target: T) => React.ReactNode;
}) {
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setError(null);
    onClose();
  };
  return (
    <Dialog open={target !== null} onClose={close} title={title}>
      {target !== null && (
        <div className="space-y-4">
          {error && <Notice tone="error">{error}</Notice>}
          {children(target)}
          <DialogActions onCancel={close}>
            <Button
              variant="danger"
              loading={pending}
              onClick={async () => {
                setError(null);
                try {
                  await onConfirm(target, close);
                } catch (err) {
                  setError(errorInfo(err).message);
                  onFailed();
                }
              }}
            >
              {confirmLabel}
            </Button>
          </DialogActions>
        </div>
      )}
    </Dialog>
  );
}
