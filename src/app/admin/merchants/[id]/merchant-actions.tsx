"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Dialog, DialogActions, Field, useToast } from "@/components/ui";
import { suspendReasonSchema } from "@/lib/schemas/admin";
import { errorInfo, useTRPC } from "@/components/trpc/client";
import { useRefreshAdmin, type GoLive } from "../../admin-ui";

type Target = { id: string; name: string; status: "ACTIVE" | "SUSPENDED"; goLive: GoLive };
type Open = null | "approve" | "suspend" | "reinstate";

/** One action on the merchant, confirmed: what it does, Cancel, and the action's button. */
function ActionDialog({
  open,
  title,
  label,
  pending,
  onClose,
  onConfirm,
  children,
}: {
  open: boolean;
  title: string;
  label: string;
  pending: boolean;
  onClose: () => void;
  onConfirm: () => void;
  children: React.ReactNode;
}) {
  return (
    <Dialog open={open} onClose={onClose} title={title}>
      <div className="space-y-4 text-sm text-slate-700">
        {children}
        <DialogActions onCancel={onClose}>
          <Button type="button" loading={pending} onClick={onConfirm}>
            {label}
          </Button>
        </DialogActions>
      </div>
    </Dialog>
  );
}

/** Suspending asks for a reason, kept in the activity log. */
function SuspendDialog({
  merchant,
  open,
  reason,
  onReason,
  reasonError,
  onReasonError,
  pending,
  onClose,
  onSuspend,
}: {
  merchant: Target;
  open: boolean;
  reason: string;
  onReason: (v: string) => void;
  reasonError?: string;
  onReasonError: (e: string | undefined) => void;
  pending: boolean;
  onClose: () => void;
  onSuspend: (reason: string) => void;
}) {
  return (
    <Dialog open={open} onClose={onClose} title={`Suspend ${merchant.name}?`}>
      <form
        noValidate
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          const parsed = suspendReasonSchema.safeParse(reason);
          if (!parsed.success) {
            onReasonError(parsed.error.issues[0]?.message);
            return;
          }
          onReasonError(undefined);
          onSuspend(parsed.data);
        }}
      >
        <p className="text-sm text-slate-700">
          Every API call from {merchant.name} is refused with <code className="text-xs">MERCHANT_SUSPENDED</code> until you reinstate it. The merchant can still
          sign in to the dashboard.
        </p>
        <Field
          label="Reason"
          name="reason"
          value={reason}
          onChange={(e) => onReason(e.target.value)}
          error={reasonError}
          hint="3 to 200 characters; kept in the activity log."
          maxLength={200}
          autoComplete="off"
          required
        />
        <DialogActions onCancel={onClose}>
          <Button type="submit" variant="danger" loading={pending}>
            Suspend merchant
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

/**
 * Which dialog is open, the suspension's reason, and `run`: an action, then a toast, then fresh
 * operator data (a refused action may mean the page was stale). A refused reason stays in its dialog.
 */
function useActionDialogs() {
  const toast = useToast();
  const refresh = useRefreshAdmin();
  const [open, setOpen] = useState<Open>(null);
  const [reason, setReason] = useState("");
  const [reasonError, setReasonError] = useState<string>();

  function close() {
    setOpen(null);
    setReason("");
    setReasonError(undefined);
  }

  async function run(action: () => Promise<unknown>, success: string) {
    try {
      await action();
      close();
      toast("success", success);
    } catch (err) {
      const info = errorInfo(err);
      if (info.fieldErrors.reason) {
        setReasonError(info.fieldErrors.reason);
        return;
      }
      close();
      toast("error", info.message);
    } finally {
      await refresh();
    }
  }
  return { open, setOpen, close, run, reason, setReason, reasonError, setReasonError };
}

/** Approve go-live, suspend, reinstate: each behind a confirmation, each ending in a toast. */
export function MerchantActions({ merchant }: { merchant: Target }) {
  const trpc = useTRPC();
  const approve = useMutation(trpc.admin.approveGoLive.mutationOptions());
  const suspend = useMutation(trpc.admin.suspend.mutationOptions());
  const reinstate = useMutation(trpc.admin.reinstate.mutationOptions());
  const { open, setOpen, close, run, reason, setReason, reasonError, setReasonError } = useActionDialogs();

  const live = merchant.goLive.state === "live";
  const suspended = merchant.status === "SUSPENDED";

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap gap-2">
        {!live && <Button onClick={() => setOpen("approve")}>Approve go-live</Button>}
        {suspended ? (
          <Button variant="secondary" onClick={() => setOpen("reinstate")}>
            Reinstate
          </Button>
        ) : (
          <Button variant="danger" onClick={() => setOpen("suspend")}>
            Suspend
          </Button>
        )}
      </div>
      <p className="text-xs text-slate-500">Changes reach the API within a second and are recorded in the activity log under your name.</p>

      <ActionDialog
        open={open === "approve"}
        title={`Approve go-live for ${merchant.name}?`}
        label="Approve go-live"
        pending={approve.isPending}
        onClose={close}
        onConfirm={() => run(() => approve.mutateAsync({ merchantId: merchant.id }), `${merchant.name} is now live.`)}
      >
        <p>
          Live mode unlocks at once: {merchant.name} can create live API keys and gets a live signing secret and a live wallet.
          {merchant.goLive.state === "sandbox" && " This merchant has not asked for go-live."}
        </p>
      </ActionDialog>

      <SuspendDialog
        merchant={merchant}
        open={open === "suspend"}
        reason={reason}
        onReason={setReason}
        reasonError={reasonError}
        onReasonError={setReasonError}
        pending={suspend.isPending}
        onClose={close}
        onSuspend={(why) => void run(() => suspend.mutateAsync({ merchantId: merchant.id, reason: why }), `${merchant.name} is suspended.`)}
      />

      <ActionDialog
        open={open === "reinstate"}
        title={`Reinstate ${merchant.name}?`}
        label="Reinstate"
        pending={reinstate.isPending}
        onClose={close}
        onConfirm={() => run(() => reinstate.mutateAsync({ merchantId: merchant.id }), `${merchant.name} is reinstated.`)}
      >
        <p>API calls from {merchant.name} work again within a second.</p>
      </ActionDialog>
    </div>
  );
}
