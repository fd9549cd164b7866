"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge, Button, CopyButton, Dialog, DialogActions, Field, Notice, useToast } from "@/components/ui";
import { PasswordField } from "@/components/ui/form";
import { totpCodeSchema } from "@/lib/schemas/account";
import { isReauthCancelled, useReauth } from "@/components/dashboard/reauth";
import { errorInfo, useTRPC } from "@/components/trpc/client";

/** Two-factor sign-in's set-up, recovery codes and turning off, with the fields of each step. */
function useTwoFactor() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const setup = useMutation(trpc.account.totpSetup.mutationOptions());
  const enable = useMutation(trpc.account.totpEnable.mutationOptions());
  const disable = useMutation(trpc.account.totpDisable.mutationOptions());
  const withReauth = useReauth();
  const [code, setCode] = useState("");
  const [codeError, setCodeError] = useState<string>();
  const [recovery, setRecovery] = useState<{ codes: string[]; replaced: boolean } | null>(null);
  const [disableOpen, setDisableOpen] = useState(false);
  const [password, setPassword] = useState("");
  const [passwordError, setPasswordError] = useState<string>();
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.account.me.queryKey() });

  async function turnOn(e: React.FormEvent) {
    e.preventDefault();
    const parsed = totpCodeSchema.safeParse(code);
    if (!parsed.success) {
      setCodeError(parsed.error.issues[0]?.message);
      return;
    }
    try {
      const res = await withReauth("turn on two-factor sign-in", (reauth) => enable.mutateAsync({ code: parsed.data, reauth }));
      setRecovery({ codes: res.recoveryCodes, replaced: false });
      await refresh();
    } catch (err) {
      if (!isReauthCancelled(err)) setCodeError(errorInfo(err).fieldErrors.code ?? errorInfo(err).message);
    }
  }

  async function turnOff(e: React.FormEvent) {
    e.preventDefault();
    try {
      await disable.mutateAsync({ password });
      setDisableOpen(false);
      setPassword("");
      await refresh();
      toast("success", "Two-factor sign-in is off.");
    } catch (err) {
      setPasswordError(errorInfo(err).fieldErrors.password ?? errorInfo(err).message);
    }
  }

  const startSetup = async () => {
    try {
      await withReauth("turn on two-factor sign-in", (reauth) => setup.mutateAsync({ reauth }));
    } catch (err) {
      if (!isReauthCancelled(err)) toast("error", errorInfo(err).message);
    }
  };
  return {
    setup,
    enable,
    disable,
    code,
    setCode,
    codeError,
    recovery,
    setRecovery,
    disableOpen,
    setDisableOpen,
    password,
    setPassword,
    passwordError,
    turnOn,
    turnOff,
    startSetup,
  };
}

type TwoFactorState = ReturnType<typeof useTwoFactor>;

/** The codes as a text file, one a line, with a line saying what they are for. */
function recoveryCodesText(codes: string[]): string {
  const lines = [
    `Parakh two-factor recovery codes (${window.location.host}), saved ${new Date().toISOString().slice(0, 10)}.`,
    "Each code signs you in once instead of a code from your authenticator app.",
    "",
    ...codes,
  ];
  return `${lines.join("\n")}\n`;
}

function downloadRecoveryCodes(codes: string[]) {
  const href = URL.createObjectURL(new Blob([recoveryCodesText(codes)], { type: "text/plain;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = href;
  a.download = "parakh-recovery-codes.txt";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** Shown once, right after turning it on or making new ones. */
function RecoveryCodes({ codes, replaced, onSaved }: { codes: string[]; replaced: boolean; onSaved: () => void }) {
  return (
    <div className="space-y-3">
      <Notice tone="success">
        {replaced ? "New recovery codes: your earlier codes no longer work." : "Two-factor sign-in is on."} Save these recovery codes somewhere safe: each works
        once if you lose your phone. They are not shown again.
      </Notice>
      <ul className="grid grid-cols-2 gap-2 font-mono text-sm sm:grid-cols-5" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c} className="rounded bg-slate-100 px-2 py-1 text-center">
            {c}
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-2">
        <CopyButton value={codes.join("\n")} label="Copy codes" />
        <Button type="button" variant="secondary" size="sm" onClick={() => downloadRecoveryCodes(codes)}>
          Download (.txt)
        </Button>
      </div>
      <Button variant="secondary" onClick={onSaved}>
        I have saved them
      </Button>
    </div>
  );
}

/** How many recovery codes are left, and new ones (the old ones stop working) behind the password. */
function RecoveryCodesLeft({ left, onNewCodes }: { left: number; onNewCodes: (codes: string[]) => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const withReauth = useReauth();
  const regenerate = useMutation(trpc.account.regenerateRecoveryCodes.mutationOptions());
  const [open, setOpen] = useState(false);

  async function replaceCodes() {
    try {
      const res = await withReauth("make new recovery codes", (reauth) => regenerate.mutateAsync({ reauth }));
      setOpen(false);
      onNewCodes(res.recoveryCodes);
      await qc.invalidateQueries({ queryKey: trpc.account.me.queryKey() });
    } catch (err) {
      if (!isReauthCancelled(err)) toast("error", errorInfo(err).message);
    }
  }

  return (
    <div className="flex flex-wrap items-center justify-between gap-3 border-t border-slate-100 pt-4">
      <div className="text-sm">
        <p className="font-medium text-slate-900" data-testid="recovery-codes-left">
          {left === 1 ? "1 recovery code left" : `${left} recovery codes left`}
        </p>
        <p className="mt-0.5 text-slate-600">
          {left <= 3 ? "Running low: make new codes before you run out, or losing your phone locks you out." : "Each signs you in once if you lose your phone."}
        </p>
      </div>
      <Button variant="secondary" onClick={() => setOpen(true)}>
        Make new codes
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} title="Make new recovery codes">
        <div className="space-y-4">
          <p className="text-sm text-slate-600">
            You get ten new codes. Your {left === 1 ? "remaining code stops" : `${left} remaining codes stop`} working at once, wherever you kept them.
          </p>
          <DialogActions onCancel={() => setOpen(false)}>
            <Button loading={regenerate.isPending} onClick={() => void replaceCodes()}>
              Make new codes
            </Button>
          </DialogActions>
        </div>
      </Dialog>
    </div>
  );
}

/** On: the recovery codes left, and a way to turn it off, behind the account password. */
function TwoFactorOn({ tf, recoveryCodesLeft }: { tf: TwoFactorState; recoveryCodesLeft: number | null }) {
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600">
          <Badge tone="green">On</Badge> Sign-in asks for a code from your authenticator app.
        </p>
        <Button variant="secondary" onClick={() => tf.setDisableOpen(true)}>
          Turn off
        </Button>
      </div>
      {recoveryCodesLeft !== null && <RecoveryCodesLeft left={recoveryCodesLeft} onNewCodes={(codes) => tf.setRecovery({ codes, replaced: true })} />}
      <Dialog open={tf.disableOpen} onClose={() => tf.setDisableOpen(false)} title="Turn off two-factor sign-in">
        <form className="space-y-4" onSubmit={tf.turnOff}>
          <PasswordField
            purpose="current"
            label="Your password"
            value={tf.password}
            onChange={(e) => tf.setPassword(e.target.value)}
            error={tf.passwordError}
          />
          <DialogActions onCancel={() => tf.setDisableOpen(false)}>
            <Button type="submit" variant="danger" loading={tf.disable.isPending}>
              Turn off
            </Button>
          </DialogActions>
        </form>
      </Dialog>
    </div>
  );
}

/** Set-up: the QR code and key for the authenticator app, then a code from it. */
function TwoFactorSetup({ tf, setupData }: { tf: TwoFactorState; setupData: NonNullable<TwoFactorState["setup"]["data"]> }) {
  return (
    <form className="space-y-4" onSubmit={tf.turnOn}>
      <p className="text-sm text-slate-600">
        Scan this QR code with your authenticator app (Google Authenticator, Authy, 1Password…), or type the key below into it, then enter the 6-digit code it
        shows.
      </p>
      <div className="flex flex-wrap items-center gap-4">
        <img
          src={setupData.qrCode}
          alt="QR code to add Parakh to your authenticator app"
          width={176}
          height={176}
          className="rounded border border-slate-200 bg-white"
        />
        <div className="min-w-0 flex-1 space-y-1">
          <p className="text-xs text-slate-500">Can&apos;t scan? Enter this key:</p>
          <div className="rounded-md bg-slate-100 px-3 py-2 font-mono text-sm break-all" aria-label="Set-up key">
            {setupData.secret.replace(/(.{4})/g, "$1 ").trim()}
          </div>
        </div>
      </div>
      <p className="text-xs text-slate-500 break-all">
        Or open{" "}
        <a className="text-brand-600 underline" href={setupData.otpauthUrl}>
          this link
        </a>{" "}
        on the phone with your app.
      </p>
      <Field
        label="Code from your app"
        inputMode="numeric"
        autoComplete="one-time-code"
        value={tf.code}
        onChange={(e) => tf.setCode(e.target.value)}
        error={tf.codeError}
        className="max-w-xs"
      />
      <Button type="submit" loading={tf.enable.isPending}>
        Turn on
      </Button>
    </form>
  );
}

export function TwoFactor({ enabled, recoveryCodesLeft }: { enabled: boolean; recoveryCodesLeft: number | null }) {
  const tf = useTwoFactor();
  if (tf.recovery) return <RecoveryCodes codes={tf.recovery.codes} replaced={tf.recovery.replaced} onSaved={() => tf.setRecovery(null)} />;
  if (enabled) return <TwoFactorOn tf={tf} recoveryCodesLeft={recoveryCodesLeft} />;
  if (tf.setup.data) return <TwoFactorSetup tf={tf} setupData={tf.setup.data} />;
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <p className="text-sm text-slate-600">
        <Badge>Off</Badge> Protect sign-in with a code from an authenticator app.
      </p>
      <Button variant="secondary" loading={tf.setup.isPending} onClick={() => void tf.startSetup()}>
        Set up two-factor sign-in
      </Button>
    </div>
  );
}
