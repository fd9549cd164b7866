"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Badge, Button, Card, Dialog, ErrorState, Field, LoadingState, Notice, PageHeader, formatDateTime, useToast } from "@/components/ui";
import { profileInput, totpCodeSchema } from "@/lib/schemas/account";
import { errorInfo, useTRPC } from "@/lib/trpc/client";
import { PasswordChange, SignOutEverywhere } from "./security-cards";

type Profile = {
  name: string;
  displayName: string;
  supportEmail: string;
  brandColor: string;
  logoUrl: string;
  checkoutExpiryMinutes: number | string;
  checkoutFrameOrigins: string;
};

function ProfileForm({ initial }: { initial: Profile }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const [form, setForm] = useState<Profile>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useMutation(trpc.account.updateProfile.mutationOptions());

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    const parsed = profileInput.safeParse(form);
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
      return;
    }
    setErrors({});
    try {
      await save.mutateAsync(form as never);
      await qc.invalidateQueries({ queryKey: trpc.account.me.queryKey() });
      toast("success", "Settings saved.");
    } catch (err) {
      const info = errorInfo(err);
      setErrors(info.fieldErrors);
      toast("error", info.message);
    }
  }

  const set = (k: keyof Profile) => (e: React.ChangeEvent<HTMLInputElement>) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const colour = /^#[0-9a-fA-F]{6}$/.test(form.brandColor) ? form.brandColor : "#1F57D6";

  return (
    <form onSubmit={onSubmit} noValidate className="grid gap-6 lg:grid-cols-[1fr_18rem]">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field className="sm:col-span-2" label="Business name" value={form.name} onChange={set("name")} error={errors.name} />
        <Field
          label="Display name on checkout"
          value={form.displayName}
          onChange={set("displayName")}
          error={errors.displayName}
          hint="Shown to customers; defaults to the business name."
        />
        <Field
          label="Support email"
          type="email"
          value={form.supportEmail}
          onChange={set("supportEmail")}
          error={errors.supportEmail}
          hint="Shown on receipts."
        />
        <Field
          label="Brand colour"
          value={form.brandColor}
          onChange={set("brandColor")}
          error={errors.brandColor}
          placeholder="#1F57D6"
          hint="Hex, e.g. #1F57D6."
        />
        <Field
          label="Logo URL"
          value={form.logoUrl}
          onChange={set("logoUrl")}
          error={errors.logoUrl}
          placeholder="https://…"
          hint="An https:// image, square works best."
        />
        <Field
          label="Checkout expiry (minutes)"
          type="number"
          min={5}
          max={1440}
          value={String(form.checkoutExpiryMinutes)}
          onChange={set("checkoutExpiryMinutes")}
          error={errors.checkoutExpiryMinutes}
          hint="Default for new payments: 5 to 1440."
        />
        <Field
          className="sm:col-span-2"
          label="Sites that may embed your checkout"
          value={form.checkoutFrameOrigins}
          onChange={set("checkoutFrameOrigins")}
          error={errors.checkoutFrameOrigins}
          placeholder="https://shop.example.com"
          hint="Origins allowed to show the hosted checkout in a frame (with the payment's _token), separated by spaces. Empty: no site may frame it."
        />
        <div className="sm:col-span-2">
          <Button type="submit" loading={save.isPending}>
            Save settings
          </Button>
        </div>
      </div>
      <div aria-label="Checkout preview" className="self-start overflow-hidden rounded-lg border border-slate-200">
        <div className="flex items-center gap-3 px-4 py-3 text-white" style={{ backgroundColor: colour }}>
          {form.logoUrl.startsWith("https://") ? (
            <img src={form.logoUrl} alt="" className="h-8 w-8 rounded bg-white object-contain" />
          ) : (
            <span className="flex h-8 w-8 items-center justify-center rounded bg-white/20 font-semibold">
              {(form.displayName || form.name || "P").slice(0, 1).toUpperCase()}
            </span>
          )}
          <span className="font-medium">{form.displayName || form.name || "Your business"}</span>
        </div>
        <div className="space-y-1 bg-white px-4 py-4 text-sm">
          <p className="text-slate-500">Amount to pay</p>
          <p className="text-2xl font-semibold">₹499.00</p>
          <p className="text-xs text-slate-500">Preview of the hosted checkout header</p>
        </div>
      </div>
    </form>
  );
}

function TwoFactor({ enabled }: { enabled: boolean }) {
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

  if (recovery) {
    return (
      <div className="space-y-3">
        <Notice tone="success">
          Two-factor sign-in is on. Save these recovery codes somewhere safe: each works once if you lose your phone. They are not shown again.
        </Notice>
        <ul className="grid grid-cols-2 gap-2 font-mono text-sm sm:grid-cols-5" aria-label="Recovery codes">
          {recovery.map((c) => (
            <li key={c} className="rounded bg-slate-100 px-2 py-1 text-center">
              {c}
            </li>
          ))}
        </ul>
        <Button variant="secondary" onClick={() => setRecovery(null)}>
          I have saved them
        </Button>
      </div>
    );
  }

  if (enabled) {
    return (
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600">
          <Badge tone="green">On</Badge> Sign-in asks for a code from your authenticator app.
        </p>
        <Button variant="secondary" onClick={() => setDisableOpen(true)}>
          Turn off
        </Button>
        <Dialog open={disableOpen} onClose={() => setDisableOpen(false)} title="Turn off two-factor sign-in">
          <form
            className="space-y-4"
            onSubmit={async (e) => {
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
            }}
          >
            <Field
              label="Your password"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              error={passwordError}
            />
            <div className="flex justify-end gap-2">
              <Button type="button" variant="secondary" onClick={() => setDisableOpen(false)}>
                Cancel
              </Button>
              <Button type="submit" variant="danger" loading={disable.isPending}>
                Turn off
              </Button>
            </div>
          </form>
        </Dialog>
      </div>
    );
  }

  if (setup.data) {
    return (
      <form
        className="space-y-4"
        onSubmit={async (e) => {
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
        }}
      >
        <p className="text-sm text-slate-600">
          Scan this QR code with your authenticator app (Google Authenticator, Authy, 1Password…), or type the key below into it, then enter the 6-digit code it
          shows.
        </p>
        <div className="flex flex-wrap items-center gap-4">
          <img
            src={setup.data.qrCode}
            alt="QR code to add Parakh to your authenticator app"
            width={176}
            height={176}
            className="rounded border border-slate-200 bg-white"
          />
          <div className="min-w-0 flex-1 space-y-1">
            <p className="text-xs text-slate-500">Can&apos;t scan? Enter this key:</p>
            <div className="rounded-md bg-slate-100 px-3 py-2 font-mono text-sm break-all" aria-label="Set-up key">
              {setup.data.secret.replace(/(.{4})/g, "$1 ").trim()}
            </div>
          </div>
        </div>
        <p className="text-xs text-slate-500 break-all">
          Or open{" "}
          <a className="text-brand-600 underline" href={setup.data.otpauthUrl}>
            this link
          </a>{" "}
          on the phone with your app.
        </p>
        <Field
          label="Code from your app"
          inputMode="numeric"
          autoComplete="one-time-code"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          error={codeError}
          className="max-w-xs"
        />
        <Button type="submit" loading={enable.isPending}>
          Turn on
        </Button>
      </form>
    );
  }

  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <p className="text-sm text-slate-600">
        <Badge>Off</Badge> Protect sign-in with a code from an authenticator app.
      </p>
      <Button
        variant="secondary"
        loading={setup.isPending}
        onClick={() => setup.mutate(undefined, { onError: (err) => toast("error", errorInfo(err).message) })}
      >
        Set up two-factor sign-in
      </Button>
    </div>
  );
}

function GoLive({ liveEnabled, requestedAt, approvedAt }: { liveEnabled: boolean; requestedAt: Date | string | null; approvedAt: Date | string | null }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const request = useMutation(trpc.account.requestGoLive.mutationOptions());
  if (liveEnabled) {
    return (
      <p className="text-sm text-slate-600">
        <Badge tone="green">Live</Badge> Approved {formatDateTime(approvedAt)}. Create live keys under API keys in Live mode.
      </p>
    );
  }
  if (requestedAt) {
    return (
      <p className="text-sm text-slate-600">
        <Badge tone="amber">Requested</Badge> Sent {formatDateTime(requestedAt)}. An operator will review it; Live mode unlocks as soon as it is approved.
      </p>
    );
  }
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <p className="text-sm text-slate-600">Live mode is locked. Ask for go-live when your integration works in sandbox.</p>
      <Button
        loading={request.isPending}
        onClick={async () => {
          try {
            await request.mutateAsync();
            await qc.invalidateQueries({ queryKey: trpc.account.me.queryKey() });
            toast("success", "Go-live requested. We'll review it shortly.");
          } catch (err) {
            toast("error", errorInfo(err).message);
          }
        }}
      >
        Request go-live
      </Button>
    </div>
  );
}

export function SettingsView() {
  const trpc = useTRPC();
  const me = useQuery(trpc.account.me.queryOptions());
  const [key, setKey] = useState(0);
  useEffect(() => {
    if (me.data) setKey((k) => k + 1);
  }, [me.data?.id]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <>
      <PageHeader title="Settings" description="Your business profile, checkout branding, sign-in security and go-live." />
      {me.isLoading && <LoadingState />}
      {me.error && <ErrorState message={errorInfo(me.error).message} onRetry={() => void me.refetch()} />}
      {me.data && (
        <div className="space-y-6">
          <Card title="Business profile and checkout branding" description="Used on the hosted checkout page your customers see.">
            <ProfileForm key={key} initial={me.data.profile} />
          </Card>
          <Card title="Go-live" description="Live keys and real verifications need an operator's approval.">
            <GoLive liveEnabled={me.data.liveEnabled} requestedAt={me.data.goLiveRequestedAt} approvedAt={me.data.goLiveApprovedAt} />
          </Card>
          <Card title="Two-factor sign-in">
            <TwoFactor enabled={me.data.totpEnabled} />
          </Card>
          <Card title="Password" description="Changing it needs the current one.">
            <PasswordChange />
          </Card>
          <Card title="Sessions">
            <SignOutEverywhere />
          </Card>
          <Card title="Account">
            <dl className="grid gap-3 text-sm sm:grid-cols-3">
              <div>
                <dt className="text-slate-500">Merchant id</dt>
                <dd className="font-mono">{me.data.id}</dd>
              </div>
              <div>
                <dt className="text-slate-500">Sign-in email</dt>
                <dd>{me.data.email}</dd>
              </div>
              <div>
                <dt className="text-slate-500">Status</dt>
                <dd>{me.data.status === "ACTIVE" ? <Badge tone="green">Active</Badge> : <Badge tone="red">Suspended</Badge>}</dd>
              </div>
            </dl>
          </Card>
        </div>
      )}
    </>
  );
}
