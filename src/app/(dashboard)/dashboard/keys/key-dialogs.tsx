"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Dialog, DialogActions, Field, Notice, useToast } from "@/components/ui";
import type { Mode } from "@/components/dashboard/mode";
import { createKeyInput, ROTATION_GRACE_OPTIONS } from "@/lib/schemas/keys";
import { isReauthCancelled, useReauth } from "@/components/dashboard/reauth";
import { ConfirmDialog } from "@/components/dashboard/confirm-dialog";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";
import type { ShownOnceKey } from "@/components/dashboard/secret-once-dialog";

/** A key as the list shows it; the dialogs use its id and names. */
export type ListedKey = RouterOutputs["keys"]["list"]["keys"][number];

function useRefreshKeys() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  return () => qc.invalidateQueries(trpc.keys.list.queryFilter());
}

export function CreateKeyDialog({ open, mode, onClose, onCreated }: { open: boolean; mode: Mode; onClose: () => void; onCreated: (k: ShownOnceKey) => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshKeys();
  const create = useMutation(trpc.keys.create.mutationOptions());
  const withReauth = useReauth();
  const [label, setLabel] = useState("");
  const [fieldError, setFieldError] = useState<string>();
  const [error, setError] = useState<string | null>(null);

  function close() {
    setLabel("");
    setFieldError(undefined);
    setError(null);
    onClose();
  }

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    const parsed = createKeyInput.safeParse({ label });
    if (!parsed.success) {
      setFieldError(parsed.error.issues[0]?.message);
      return;
    }
    setFieldError(undefined);
    try {
      // A live secret moves real money: the server wants the password confirmed first.
      const created =
        mode === "live"
          ? await withReauth("create a live key", (reauth) => create.mutateAsync({ mode, label: parsed.data.label, reauth }))
          : await create.mutateAsync({ mode, label: parsed.data.label });
      void refresh();
      close();
      onCreated(created);
    } catch (err) {
      if (isReauthCancelled(err)) return;
      const info = errorInfo(err);
      if (info.fieldErrors.label) setFieldError(info.fieldErrors.label);
      else setError(info.message);
    }
  }

  return (
    <Dialog open={open} onClose={close} title={`Create a ${mode === "live" ? "live" : "sandbox"} key`}>
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        {error && <Notice tone="error">{error}</Notice>}
        <Field
          label="Label"
          name="label"
          autoFocus
          maxLength={60}
          value={label}
          onChange={(e) => setLabel(e.target.value)}
          error={fieldError}
          hint="Where the key is used, e.g. “Production server”. 1–50 characters."
        />
        <DialogActions onCancel={close}>
          <Button type="submit" loading={create.isPending}>
            Create key
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

type GraceSeconds = (typeof ROTATION_GRACE_OPTIONS)[number]["seconds"];

/** How long the old key keeps working after a rotation. */
function GraceChoice({ grace, onChange }: { grace: GraceSeconds; onChange: (seconds: GraceSeconds) => void }) {
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-700">Old key keeps working</legend>
      <div className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-4">
        {ROTATION_GRACE_OPTIONS.map((o) => (
          <label
            key={o.seconds}
            className="flex cursor-pointer items-center gap-2 rounded-md border border-slate-300 px-3 py-2 text-sm has-[:checked]:border-brand-500 has-[:checked]:bg-brand-50 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-brand-100"
          >
            <input type="radio" name="grace" className="accent-brand-600" checked={grace === o.seconds} onChange={() => onChange(o.seconds)} />
            {o.seconds === 0 ? "Stop now" : `for ${o.label}`}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function RotateKeyDialog({
  target,
  mode,
  onClose,
  onRotated,
}: {
  target: ListedKey | null;
  mode: Mode;
  onClose: () => void;
  onRotated: (k: ShownOnceKey) => void;
}) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useRefreshKeys();
  const rotate = useMutation(trpc.keys.rotate.mutationOptions());
  const withReauth = useReauth();
  const [grace, setGrace] = useState<GraceSeconds>(86_400);
  const [error, setError] = useState<string | null>(null);

  function close() {
    setGrace(86_400);
    setError(null);
    onClose();
  }

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    if (!target) return;
    setError(null);
    try {
      const input = { mode, keyId: target.id, graceSeconds: grace };
      const res =
        mode === "live" ? await withReauth("rotate a live key", (reauth) => rotate.mutateAsync({ ...input, reauth })) : await rotate.mutateAsync(input);
      void refresh();
      close();
      onRotated(res.key);
      toast(
        "success",
        res.oldKey.revoked ? "Key rotated. The old key has stopped working." : "Key rotated. The old key keeps working until its grace period ends.",
      );
    } catch (err) {
      if (isReauthCancelled(err)) return;
      setError(errorInfo(err).message);
      void refresh();
    }
  }

  return (
    <Dialog open={target !== null} onClose={close} title="Rotate key">
      {target && (
        <form onSubmit={onSubmit} className="space-y-4">
          {error && <Notice tone="error">{error}</Notice>}
          <p className="text-sm text-slate-600">
            <strong className="font-medium text-slate-900">{target.label}</strong> gets a new public and secret key. Deploy the new secret, then let the old one
            lapse.
          </p>
          <GraceChoice grace={grace} onChange={setGrace} />
          {grace === 0 ? (
            <Notice tone="warning">Requests with the old key will fail with 401 right away. Choose this if the secret has leaked.</Notice>
          ) : (
            <p className="text-xs text-slate-500">Both keys work until the grace period ends; you can still revoke the old key early.</p>
          )}
          <DialogActions onCancel={close}>
            <Button type="submit" variant={grace === 0 ? "danger" : "primary"} loading={rotate.isPending}>
              Rotate key
            </Button>
          </DialogActions>
        </form>
      )}
    </Dialog>
  );
}

export function RevokeKeyDialog({
  target,
  mode,
  isLastWorking,
  onClose,
}: {
  target: ListedKey | null;
  mode: Mode;
  isLastWorking: boolean;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useRefreshKeys();
  const revoke = useMutation(trpc.keys.revoke.mutationOptions());
  return (
    <ConfirmDialog
      target={target}
      title="Revoke key"
      confirmLabel="Revoke key"
      pending={revoke.isPending}
      onClose={onClose}
      onFailed={() => void refresh()}
      onConfirm={async (t, close) => {
        await revoke.mutateAsync({ mode, keyId: t.id });
        void refresh();
        close();
        toast("success", `“${t.label}” revoked.`);
      }}
    >
      {(t) => (
        <>
          <p className="text-sm text-slate-600">
            Revoke <strong className="font-medium text-slate-900">{t.label}</strong> (<code className="break-all font-mono text-xs">{t.secretHint}</code>)?
            Requests using it will fail with <code className="font-mono text-xs">401 UNAUTHORIZED</code> within a second. This cannot be undone.
          </p>
          {isLastWorking && <Notice tone="warning">This is your only working {mode} key: your integration will stop until you create a new one.</Notice>}
        </>
      )}
    </ConfirmDialog>
  );
}
