"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import {
  Badge,
  Button,
  Card,
  Dialog,
  EmptyState,
  ErrorState,
  Field,
  LoadingState,
  Notice,
  PageHeader,
  cx,
  formatDateTime,
  useToast,
  DialogActions,
} from "@/components/ui";
import { addWhitelistInput, wideRangeWarning } from "@/lib/schemas/whitelist";
import { ConfirmDialog } from "@/components/dashboard/confirm-dialog";
import { useFormFields } from "@/components/ui/form";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";

type Entry = RouterOutputs["whitelist"]["list"]["entries"][number];

function useRefreshWhitelist() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  return () => qc.invalidateQueries(trpc.whitelist.list.queryFilter());
}

function CurrentIp({ ip, listed }: { ip: string | null; listed: boolean }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useRefreshWhitelist();
  const add = useMutation(trpc.whitelist.add.mutationOptions());
  if (!ip) return null;
  return (
    <div className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-slate-200 bg-white px-4 py-3 sm:px-5">
      <div className="min-w-0 text-sm">
        <p className="text-slate-700">
          Your current IP: <code className="break-all font-mono font-medium text-slate-900">{ip}</code>
        </p>
        <p className="mt-0.5 text-xs text-slate-500">The address this browser reaches us from. Your API server’s public IP is often a different one.</p>
      </div>
      <Button
        variant="secondary"
        size="sm"
        disabled={listed}
        loading={add.isPending}
        onClick={async () => {
          try {
            await add.mutateAsync({ ip, label: "Added from dashboard" });
            await refresh();
            toast("success", `${ip} added to the whitelist.`);
          } catch (err) {
            toast("error", errorInfo(err).message);
          }
        }}
      >
        {listed ? "Already on the list" : "Add this IP"}
      </Button>
    </div>
  );
}

type WideRange = { ip: string; label: string; warning: string };

/** A range that lets strangers in is added only when the merchant confirms it, having read why. */
function WideRangeDialog({
  wide,
  busy,
  onCancel,
  onConfirm,
}: {
  wide: WideRange | null;
  busy: boolean;
  onCancel: () => void;
  onConfirm: (w: WideRange) => void;
}) {
  return (
    <Dialog open={wide !== null} onClose={onCancel} title="Add a very wide range?">
      {wide && (
        <div className="space-y-4">
          <Notice tone="warning">{wide.warning}</Notice>
          <p className="text-sm text-slate-600">
            Anyone holding your keys could then call your APIs from those addresses. Add your servers’ own addresses or their narrow ranges instead, unless you
            mean to switch the whitelist’s protection off.
          </p>
          <DialogActions onCancel={onCancel}>
            <Button type="button" variant="danger" loading={busy} onClick={() => onConfirm(wide)}>
              Add {wide.ip} anyway
            </Button>
          </DialogActions>
        </div>
      )}
    </Dialog>
  );
}

/** An entry's address, marked when it is so wide it lets strangers in (added before the warning, or confirmed). */
function EntryAddress({ cidr }: { cidr: string }) {
  const warning = wideRangeWarning(cidr);
  return (
    <span className="flex flex-wrap items-center gap-2">
      <code className="break-all font-mono text-sm font-medium text-slate-900">{cidr}</code>
      {warning && (
        <span title={warning}>
          <Badge tone="amber">Very wide range</Badge>
        </span>
      )}
    </span>
  );
}

function AddEntryForm({ full, entryCount }: { full: boolean; entryCount: number }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useRefreshWhitelist();
  const add = useMutation(trpc.whitelist.add.mutationOptions());
  const form = useFormFields({ ip: "", label: "" }, { clearErrorOnEdit: true });
  const { setErrors } = form;
  // A range so wide it lets strangers in, waiting for the merchant to confirm it.
  const [wide, setWide] = useState<WideRange | null>(null);
  // A "already on the list" error goes stale once the list changes (e.g. the entry was removed).
  useEffect(() => setErrors({}), [entryCount, setErrors]);

  async function save(input: { ip: string; label: string; confirmWide?: boolean }) {
    try {
      const entry = await add.mutateAsync(input);
      await refresh();
      form.setValues({ ip: "", label: "" });
      setWide(null);
      toast("success", `${entry.cidr} added to the whitelist.`);
    } catch (err) {
      setWide(null);
      const info = errorInfo(err);
      if (Object.keys(info.fieldErrors).length > 0) setErrors(info.fieldErrors);
      else toast("error", info.message);
    }
  }

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    const data = form.check(addWhitelistInput);
    if (!data) return;
    const warning = wideRangeWarning(data.ip);
    if (warning) setWide({ ip: data.ip, label: data.label, warning });
    else await save(data);
  }

  return (
    <form onSubmit={onSubmit} noValidate className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto] sm:items-start">
      <Field
        label="IP address or CIDR range"
        placeholder="203.0.113.10 or 203.0.113.0/24"
        autoComplete="off"
        spellCheck={false}
        {...form.bind("ip")}
        hint="IPv4 or IPv6; a range must start at its first address."
      />
      <Field label="Label (optional)" placeholder="e.g. Production server" maxLength={110} {...form.bind("label")} />
      <Button type="submit" className="sm:mt-6" loading={add.isPending && !wide} disabled={full}>
        Add
      </Button>
      <WideRangeDialog wide={wide} busy={add.isPending} onCancel={() => setWide(null)} onConfirm={(w) => void save({ ...w, confirmWide: true })} />
    </form>
  );
}

function EntryList({ entries, enforceOnAllApis }: { entries: Entry[]; enforceOnAllApis: boolean }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useRefreshWhitelist();
  const remove = useMutation(trpc.whitelist.remove.mutationOptions());
  const [target, setTarget] = useState<Entry | null>(null);

  if (entries.length === 0) {
    return (
      <EmptyState title="No addresses yet">
        Payments API calls are refused with <code className="font-mono text-xs">403 IP_NOT_WHITELISTED</code> until you add your server’s IP.
      </EmptyState>
    );
  }
  return (
    <>
      <ul className="divide-y divide-slate-100 rounded-md border border-slate-200">
        {entries.map((e) => (
          <li key={e.id} className="flex items-center justify-between gap-3 px-4 py-3">
            <div className="min-w-0 flex-1">
              <EntryAddress cidr={e.cidr} />
              <p className="text-xs text-slate-500">
                {e.label ? <span className="text-slate-700">{e.label} · </span> : null}Added {formatDateTime(e.createdAt)}
              </p>
            </div>
            <Button variant="ghost" size="sm" className="text-red-700 hover:bg-red-50" onClick={() => setTarget(e)} aria-label={`Remove ${e.cidr}`}>
              Remove
            </Button>
          </li>
        ))}
      </ul>
      <ConfirmDialog
        target={target}
        title="Remove address"
        confirmLabel="Remove"
        pending={remove.isPending}
        onClose={() => setTarget(null)}
        onFailed={() => void refresh()}
        onConfirm={async (t, close) => {
          await remove.mutateAsync({ id: t.id });
          await refresh();
          close();
          toast("success", `${t.cidr} removed.`);
        }}
      >
        {(t) => (
          <>
            <p className="text-sm text-slate-600">
              Remove <code className="break-all font-mono text-slate-900">{t.cidr}</code>
              {t.label ? ` (${t.label})` : ""}? Payments API calls from it will be refused within a second
              {enforceOnAllApis ? ", and so will /v1 and KYC calls" : ""}.
            </p>
            {entries.length === 1 && (
              <Notice tone="warning">
                This is the last entry. With an empty list every payments call is refused{enforceOnAllApis ? ", and every /v1 and KYC call too" : ""}.
              </Notice>
            )}
          </>
        )}
      </ConfirmDialog>
    </>
  );
}

function Enforcement({ on, listEmpty }: { on: boolean; listEmpty: boolean }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useRefreshWhitelist();
  const set = useMutation(trpc.whitelist.setEnforcement.mutationOptions());
  const [confirmOpen, setConfirmOpen] = useState(false);

  async function apply(value: boolean) {
    try {
      await set.mutateAsync({ enforceOnAllApis: value });
      await refresh();
      setConfirmOpen(false);
      toast("success", value ? "The whitelist now also applies to /v1 and KYC." : "The whitelist now applies to payments only.");
    } catch (err) {
      toast("error", errorInfo(err).message);
    }
  }

  return (
    <Card title="Where the whitelist applies">
      <div className="flex items-start justify-between gap-4">
        <div className="text-sm text-slate-600">
          <p id="enforce-label" className="font-medium text-slate-900">
            Also enforce on /v1 and KYC APIs
          </p>
          <p id="enforce-desc" className="mt-1">
            Payments (<code className="font-mono text-xs">/api/checkout</code>, <code className="font-mono text-xs">/api/payments</code>) always check this
            list. Turn this on to also refuse identity, employment (<code className="font-mono text-xs">/v1</code>) and KYC (
            <code className="font-mono text-xs">/api/kyc</code>) calls from addresses not on it. Applies to sandbox and live.
          </p>
        </div>
        <button
          type="button"
          role="switch"
          aria-checked={on}
          aria-labelledby="enforce-label"
          aria-describedby="enforce-desc"
          disabled={set.isPending}
          onClick={() => (on ? void apply(false) : setConfirmOpen(true))}
          className={cx(
            "relative mt-0.5 inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors disabled:opacity-60",
            on ? "bg-brand-600" : "bg-slate-300",
          )}
        >
          <span className={cx("inline-block h-5 w-5 rounded-full bg-white shadow transition-transform", on ? "translate-x-5" : "translate-x-0.5")} />
        </button>
      </div>
      <Dialog open={confirmOpen} onClose={() => setConfirmOpen(false)} title="Enforce on /v1 and KYC APIs">
        <div className="space-y-4">
          {listEmpty ? (
            <Notice tone="warning">
              <strong>Your whitelist is empty.</strong> Turning this on refuses every /v1 and KYC request with 403 IP_NOT_WHITELISTED until you add an address.
            </Notice>
          ) : (
            <p className="text-sm text-slate-600">
              Within a second, /v1 and KYC requests from addresses not on the list get <code className="font-mono text-xs">403 IP_NOT_WHITELISTED</code>. Make
              sure every server that calls them is listed.
            </p>
          )}
          <DialogActions onCancel={() => setConfirmOpen(false)}>
            <Button variant={listEmpty ? "danger" : "primary"} loading={set.isPending} onClick={() => void apply(true)}>
              Turn on
            </Button>
          </DialogActions>
        </div>
      </Dialog>
    </Card>
  );
}

export function WhitelistView() {
  const trpc = useTRPC();
  const list = useQuery(trpc.whitelist.list.queryOptions());
  const data = list.data;
  return (
    <>
      <PageHeader
        title="IP whitelist"
        description="Addresses allowed to call the payments API. One list for sandbox and live; changes apply within a second."
      />
      {list.isLoading ? (
        <LoadingState label="Loading whitelist…" />
      ) : list.isError || !data ? (
        <ErrorState message={errorInfo(list.error).message} onRetry={() => void list.refetch()} />
      ) : (
        <div className="space-y-6">
          {data.enforceOnAllApis && data.entries.length === 0 && (
            <Notice tone="error">
              Your whitelist is empty and enforced on every API: all /v1, KYC and payments calls are being refused. Add your server’s IP.
            </Notice>
          )}
          <CurrentIp ip={data.currentIp} listed={data.currentIpListed} />
          <Card
            title={`Addresses (${data.entries.length})`}
            description={data.entries.length >= data.maxEntries ? `The list is full (${data.maxEntries}); remove an entry or use a CIDR range.` : undefined}
          >
            <div className="space-y-5">
              <AddEntryForm full={data.entries.length >= data.maxEntries} entryCount={data.entries.length} />
              <EntryList entries={data.entries} enforceOnAllApis={data.enforceOnAllApis} />
            </div>
          </Card>
          <Enforcement on={data.enforceOnAllApis} listEmpty={data.entries.length === 0} />
        </div>
      )}
    </>
  );
}
