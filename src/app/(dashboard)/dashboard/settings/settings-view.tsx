"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Badge, Button, Card, ErrorState, Field, LoadingState, PageHeader, formatDateTime, useToast } from "@/components/ui";
import { useFormFields } from "@/components/ui/form";
import { profileInput } from "@/lib/schemas/account";
import { errorInfo, useTRPC } from "@/components/trpc/client";
import { PasswordChange, SignOutEverywhere } from "./security-cards";
import { ConsentSettings } from "./consent-settings";
import { TwoFactor } from "./two-factor";

type Profile = {
  name: string;
  displayName: string;
  supportEmail: string;
  brandColor: string;
  logoUrl: string;
  checkoutExpiryMinutes: number | string;
  checkoutFrameOrigins: string;
};

/** The hosted checkout's header as customers will see it with these settings. */
function CheckoutPreview({ name, displayName, brandColor, logoUrl }: { name: string; displayName: string; brandColor: string; logoUrl: string }) {
  const colour = /^#[0-9a-fA-F]{6}$/.test(brandColor) ? brandColor : "#1F57D6";
  return (
    <div aria-label="Checkout preview" className="self-start overflow-hidden rounded-lg border border-slate-200">
      <div className="flex items-center gap-3 px-4 py-3 text-white" style={{ backgroundColor: colour }}>
        {logoUrl.startsWith("https://") ? (
          <img src={logoUrl} alt="" className="h-8 w-8 rounded bg-white object-contain" />
        ) : (
          <span className="flex h-8 w-8 items-center justify-center rounded bg-white/20 font-semibold">
            {(displayName || name || "P").slice(0, 1).toUpperCase()}
          </span>
        )}
        <span className="font-medium">{displayName || name || "Your business"}</span>
      </div>
      <div className="space-y-1 bg-white px-4 py-4 text-sm">
        <p className="text-slate-500">Amount to pay</p>
        <p className="text-2xl font-semibold">₹499.00</p>
        <p className="text-xs text-slate-500">Preview of the hosted checkout header</p>
      </div>
    </div>
  );
}

/** The profile's fields, in the form's order (two columns on wide screens). */
const PROFILE_FIELDS: ({ key: keyof Profile } & Omit<React.ComponentProps<typeof Field>, "key">)[] = [
  { key: "name", label: "Business name", className: "sm:col-span-2" },
  { key: "displayName", label: "Display name on checkout", hint: "Shown to customers; defaults to the business name." },
  { key: "supportEmail", label: "Support email", type: "email", hint: "Shown on receipts." },
  { key: "brandColor", label: "Brand colour", placeholder: "#1F57D6", hint: "Hex, e.g. #1F57D6." },
  { key: "logoUrl", label: "Logo URL", placeholder: "https://…", hint: "An https:// image, square works best." },
  { key: "checkoutExpiryMinutes", label: "Checkout expiry (minutes)", type: "number", min: 5, max: 1440, hint: "Default for new payments: 5 to 1440." },
  {
    key: "checkoutFrameOrigins",
    label: "Sites that may embed your checkout",
    className: "sm:col-span-2",
    placeholder: "https://shop.example.com",
    hint: "Origins allowed to show the hosted checkout in a frame (with the payment's _token), separated by spaces. Empty: no site may frame it.",
  },
];

function ProfileForm({ initial }: { initial: Profile }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const form = useFormFields({ ...initial, checkoutExpiryMinutes: String(initial.checkoutExpiryMinutes) });
  const save = useMutation(trpc.account.updateProfile.mutationOptions());

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    if (!form.check(profileInput)) return;
    try {
      await save.mutateAsync(form.values as never);
      await qc.invalidateQueries({ queryKey: trpc.account.me.queryKey() });
      toast("success", "Settings saved.");
    } catch (err) {
      const info = errorInfo(err);
      form.setErrors(info.fieldErrors);
      toast("error", info.message);
    }
  }

  const { name, displayName, brandColor, logoUrl } = form.values;
  return (
    <form onSubmit={onSubmit} noValidate className="grid gap-6 lg:grid-cols-[1fr_18rem]">
      <div className="grid gap-4 sm:grid-cols-2">
        {PROFILE_FIELDS.map(({ key, ...f }) => (
          <Field key={key} {...f} {...form.bind(key)} />
        ))}
        <div className="sm:col-span-2">
          <Button type="submit" loading={save.isPending}>
            Save settings
          </Button>
        </div>
      </div>
      <CheckoutPreview name={name} displayName={displayName} brandColor={brandColor} logoUrl={logoUrl} />
    </form>
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
      <PageHeader title="Settings" description="Your business profile, checkout branding, consent defaults, sign-in security and go-live." />
      {me.isLoading && <LoadingState />}
      {me.error && <ErrorState message={errorInfo(me.error).message} onRetry={() => void me.refetch()} />}
      {me.data && (
        <div className="space-y-6">
          <Card title="Business profile and checkout branding" description="Used on the hosted checkout page your customers see.">
            <ProfileForm key={key} initial={me.data.profile} />
          </Card>
          <Card
            title="Consent and purpose"
            description="Live verification and KYC calls rest on the person's consent for a stated purpose (DPDP Act 2023). Each call may send consent and purpose; these apply when it does not."
          >
            <ConsentSettings />
          </Card>
          <Card title="Go-live" description="Live keys and real verifications need an operator's approval.">
            <GoLive liveEnabled={me.data.liveEnabled} requestedAt={me.data.goLiveRequestedAt} approvedAt={me.data.goLiveApprovedAt} />
          </Card>
          <Card title="Two-factor sign-in">
            <TwoFactor enabled={me.data.totpEnabled} recoveryCodesLeft={me.data.recoveryCodesLeft} />
          </Card>
          <Card title="Password" description="Changing it needs the current one.">
            <PasswordChange />
          </Card>
          <Card title="Sessions">
            <SignOutEverywhere />
          </Card>
          <Card title="Account">
            {/* min-w-0 and overflow-wrap: a long email has no space to break at and would push the page sideways on a phone. */}
            <dl className="grid gap-3 text-sm sm:grid-cols-3">
              <div className="min-w-0">
                <dt className="text-slate-500">Merchant id</dt>
                <dd className="font-mono [overflow-wrap:anywhere]">{me.data.id}</dd>
              </div>
              <div className="min-w-0">
                <dt className="text-slate-500">Sign-in email</dt>
                <dd className="[overflow-wrap:anywhere]">{me.data.email}</dd>
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
