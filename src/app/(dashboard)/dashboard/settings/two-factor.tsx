"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge, Button, CopyButton, Dialog, Field, Notice, useToast } from "@/components/ui";
import { totpCodeSchema } from "@/lib/schemas/account";
import { errorInfo, useTRPC } from "@/lib/trpc/client";

/** Two-factor sign-in's set-up, recovery codes and turning off, with the fields of each step. */
function useTwoFactor() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const setup = useMutation(trpc.account.totpSetup.mutationOptions());
  const enable = useMutation(trpc.account.totpEnable.mutationOptions());
  const disable = useMutation(trpc.account.totpDisable.mutationOptions());
  const [code, setCode] = useState("");
  const [codeError, setCodeError] = useState<string>();
  const [recovery, setRecovery] = useState<string[] | null>(null);
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
      const res = await enable.mutateAsync({ code: parsed.data });
      setRecovery(res.recoveryCodes);
      await refresh();
    } catch (err) {
      setCodeError(errorInfo(err).fieldErrors.code ?? errorInfo(err).message);
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

  const startSetup = () => setup.mutate(undefined, { onError: (err) => toast("error", errorInfo(err).message) });
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

/** Shown once, right after turning it on. */
function RecoveryCodes({ codes, onSaved }: { codes: string[]; onSaved: () => void }) {
  return (
    <div className="space-y-3">
      <Notice tone="success">
        Two-factor sign-in is on. Save these recovery codes somewhere safe: each works once if you lose your phone. They are not shown again.
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

/** On: a way to turn it off, behind the account password. */
function TwoFactorOn({ tf }: { tf: TwoFactorState }) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <p className="text-sm text-slate-600">
        <Badge tone="green">On</Badge> Sign-in asks for a code from your authenticator app.
      </p>
      <Button variant="secondary" onClick={() => tf.setDisableOpen(true)}>
        Turn off
      </Button>
      <Dialog open={tf.disableOpen} onClose={() => tf.setDisableOpen(false)} title="Turn off two-factor sign-in">
        <form className="space-y-4" onSubmit={tf.turnOff}>
          <Field
            label="Your password"
            type="password"
            autoComplete="current-password"
            value={tf.password}
            onChange={(e) => tf.setPassword(e.target.value)}
            error={tf.passwordError}
          />
          <div className="flex justify-end gap-2">
            <Button type="button" variant="secondary" onClick={() => tf.setDisableOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" variant="danger" loading={tf.disable.isPending}>
              Turn off
            </Button>
          </div>
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

export function TwoFactor({ enabled }: { enabled: boolean }) {
  const tf = useTwoFactor();
  if (tf.recovery) return <RecoveryCodes codes={tf.recovery} onSaved={() => tf.setRecovery(null)} />;
  if (enabled) return <TwoFactorOn tf={tf} />;
  if (tf.setup.data) return <TwoFactorSetup tf={tf} setupData={tf.setup.data} />;
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <p className="text-sm text-slate-600">
        <Badge>Off</Badge> Protect sign-in with a code from an authenticator app.
      </p>
      <Button variant="secondary" loading={tf.setup.isPending} onClick={tf.startSetup}>
        Set up two-factor sign-in
      </Button>
    </div>
  );
}
