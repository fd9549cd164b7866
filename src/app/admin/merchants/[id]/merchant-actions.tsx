"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Dialog, Field, useToast, DialogActions } from "@/components/ui";
import { suspendReasonSchema } from "@/lib/schemas/admin";
import { errorInfo, useTRPC } from "@/lib/trpc/client";
import type { GoLive } from "../../admin-ui";

type Target = { id: string; name: string; status: "ACTIVE" | "SUSPENDED"; goLive: GoLive };
type Open = null | "approve" | "suspend" | "reinstate";

function ApproveGoLiveDialog({
  merchant,
  open,
  pending,
  onClose,
  onApprove,
}: {
  merchant: Target;
  open: boolean;
  pending: boolean;
  onClose: () => void;
  onApprove: () => void;
}) {
  return (
    <Dialog open={open} onClose={onClose} title={`Approve go-live for ${merchant.name}?`}>
      <div className="space-y-4 text-sm text-slate-700">
        <p>
          Live mode unlocks at once: {merchant.name} can create live API keys and gets a live signing secret and a live wallet.
          {merchant.goLive.state === "sandbox" && " This merchant has not asked for go-live."}
        </p>
        <DialogActions onCancel={onClose}>
          <Button type="button" loading={pending} onClick={onApprove}>
            Approve go-live
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

function ReinstateDialog({
  merchant,
  open,
  pending,
  onClose,
  onReinstate,
}: {
  merchant: Target;
  open: boolean;
  pending: boolean;
  onClose: () => void;
  onReinstate: () => void;
}) {
  return (
    <Dialog open={open} onClose={onClose} title={`Reinstate ${merchant.name}?`}>
      <div className="space-y-4 text-sm text-slate-700">
        <p>API calls from {merchant.name} work again within a second.</p>
        <DialogActions onCancel={onClose}>
          <Button type="button" loading={pending} onClick={onReinstate}>
            Reinstate
          </Button>
        </DialogActions>
      </div>
    </Dialog>
  );
}

/** Approve go-live, suspend, reinstate: each behind a confirmation, each ending in a toast. */
export function MerchantActions({ merchant }: { merchant: Target }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState<Open>(null);
  const [reason, setReason] = useState("");
  const [reasonError, setReasonError] = useState<string>();
  const approve = useMutation(trpc.admin.approveGoLive.mutationOptions());
  const suspend = useMutation(trpc.admin.suspend.mutationOptions());
  const reinstate = useMutation(trpc.admin.reinstate.mutationOptions());
  // Lists, detail and activity all change with any action (and a refused one may mean the page was stale).
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.admin.pathKey() });

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

      <ApproveGoLiveDialog
        merchant={merchant}
        open={open === "approve"}
        pending={approve.isPending}
        onClose={close}
        onApprove={() => run(() => approve.mutateAsync({ merchantId: merchant.id }), `${merchant.name} is now live.`)}
      />

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

      <ReinstateDialog
        merchant={merchant}
        open={open === "reinstate"}
        pending={reinstate.isPending}
        onClose={close}
        onReinstate={() => run(() => reinstate.mutateAsync({ merchantId: merchant.id }), `${merchant.name} is reinstated.`)}
      />
    </div>
  );
}
