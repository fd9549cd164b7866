"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { AmountField, useFormFields } from "@/components/ui/form";
import { Button, Dialog, DialogActions, Field, useToast } from "@/components/ui";
import { KYC_KIND_LABELS, type KycKind } from "@/lib/kyc";
import type { Mode } from "@/lib/mode";
import { formatPaise, formatRupees } from "@/lib/money";
import { kycFeesInput, walletAdjustInput } from "@/lib/schemas/wallet";
import { errorInfo, useTRPC } from "@/components/trpc/client";
import { SelectField } from "@/components/dashboard/filter-fields";
import { useRefreshAdmin } from "../../admin-ui";

type Target = { id: string; name: string; kycFees: Record<KycKind, number>; wallets: { mode: Mode; exists: boolean; balancePaise: number }[] };

const FEE_FIELDS: { key: "aadhaarOtp" | "pan" | "bank"; kind: KycKind }[] = [
  { key: "aadhaarOtp", kind: "AADHAAR_OTP" },
  { key: "pan", kind: "PAN" },
  { key: "bank", kind: "BANK" },
];

/** The merchant's fee per KYC call, in rupees; the API charges new fees within a second. */
export function KycFeesForm({ merchant }: { merchant: Target }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useRefreshAdmin();
  const save = useMutation(trpc.admin.setKycFees.mutationOptions());
  const form = useFormFields({
    aadhaarOtp: formatPaise(merchant.kycFees.AADHAAR_OTP),
    pan: formatPaise(merchant.kycFees.PAN),
    bank: formatPaise(merchant.kycFees.BANK),
  });

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    const input = { merchantId: merchant.id, ...form.values };
    if (!form.check(kycFeesInput, input)) return;
    try {
      const r = await save.mutateAsync(input);
      toast("success", `Fees saved: Aadhaar OTP ₹${r.fees.AADHAAR_OTP}, PAN ₹${r.fees.PAN}, bank ₹${r.fees.BANK}.`);
    } catch (err) {
      const info = errorInfo(err);
      if (Object.keys(info.fieldErrors).length) form.setErrors(info.fieldErrors);
      else toast("error", info.message);
    } finally {
      await refresh();
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="KYC fees" className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-3">
        {FEE_FIELDS.map((f) => (
          <AmountField key={f.key} label={`${KYC_KIND_LABELS[f.kind]} (₹)`} {...form.bind(f.key)} />
        ))}
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" loading={save.isPending}>
          Save fees
        </Button>
        <p className="text-xs text-slate-500">₹0.00 to ₹1,000.00 per call, both modes. Calls are charged the new fee within a second.</p>
      </div>
    </form>
  );
}

type Draft = { mode: Mode; direction: "credit" | "debit"; amount: string; reason: string };

/** Which wallet, and whether money goes in or out. */
function WalletAndDirection({
  modes,
  draft,
  set,
  errors,
}: {
  modes: Mode[];
  draft: Draft;
  set: (k: keyof Draft) => (v: string) => void;
  errors: Record<string, string>;
}) {
  return (
    <div className="grid grid-cols-2 gap-3">
      <SelectField
        label="Wallet"
        name="mode"
        value={draft.mode}
        onChange={set("mode")}
        options={modes.map((m) => ({ value: m, label: m === "live" ? "Live" : "Sandbox" }))}
        error={errors.mode}
      />
      <SelectField
        label="Direction"
        name="direction"
        value={draft.direction}
        onChange={set("direction")}
        options={[
          { value: "credit", label: "Credit" },
          { value: "debit", label: "Debit" },
        ]}
        error={errors.direction}
      />
    </div>
  );
}

/** The adjustment in words (amount, wallet, balance before and after, reason) before it is made. */
function AdjustConfirmDialog({
  merchantName,
  draft,
  paise,
  balance,
  pending,
  onClose,
  onConfirm,
}: {
  merchantName: string;
  draft: Draft;
  /** The amount to confirm; null while nothing is asked. */
  paise: number | null;
  balance: number;
  pending: boolean;
  onClose: () => void;
  onConfirm: () => void;
}) {
  const verb = draft.direction === "credit" ? "Credit" : "Debit";
  const after = paise !== null ? balance + (draft.direction === "credit" ? paise : -paise) : balance;
  return (
    <Dialog open={paise !== null} onClose={onClose} title={`${verb} ${merchantName}'s ${draft.mode} wallet?`}>
      <div className="space-y-4 text-sm text-slate-700">
        <p>
          {verb} <strong className="tabular-nums">{formatRupees(paise ?? 0)}</strong> {draft.direction === "credit" ? "to" : "from"} the {draft.mode} wallet:
          the balance goes from <span className="tabular-nums">{formatRupees(balance)}</span> to <span className="tabular-nums">{formatRupees(after)}</span>.
        </p>
        <p>
          Reason: <span className="break-words">{draft.reason.trim()}</span>
        </p>
        <DialogActions onCancel={onClose}>
          <Button type="button" variant={draft.direction === "debit" ? "danger" : "primary"} loading={pending} onClick={onConfirm}>
            Confirm {draft.direction}
          </Button>
        </DialogActions>
      </div>
    </Dialog>
  );
}

/** An operator's credit or debit, with a reason, confirmed before it is made. */
export function WalletAdjustForm({ merchant }: { merchant: Target }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useRefreshAdmin();
  const adjust = useMutation(trpc.admin.adjustWallet.mutationOptions());
  const modes = merchant.wallets.filter((w) => w.exists).map((w) => w.mode);
  const form = useFormFields<Draft>({ mode: modes[0] ?? "sandbox", direction: "credit", amount: "", reason: "" });
  const { values: draft, errors } = form;
  const [confirm, setConfirm] = useState<{ paise: number } | null>(null);

  const balance = merchant.wallets.find((w) => w.mode === draft.mode)?.balancePaise ?? 0;

  function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    const data = form.check(walletAdjustInput, { merchantId: merchant.id, ...draft });
    if (data) setConfirm({ paise: data.amount });
  }

  async function run() {
    try {
      const r = await adjust.mutateAsync({ merchantId: merchant.id, ...draft });
      toast(
        "success",
        `${r.direction === "credit" ? "Credited" : "Debited"} ${formatRupees(confirm?.paise ?? 0)}; ${r.mode} balance ${formatRupees(r.balancePaise)}.`,
      );
      form.setValues((d) => ({ ...d, amount: "", reason: "" }));
    } catch (err) {
      const info = errorInfo(err);
      if (Object.keys(info.fieldErrors).length) form.setErrors(info.fieldErrors);
      else toast("error", info.appCode === "INSUFFICIENT_BALANCE" ? "The wallet's available balance does not cover this debit." : info.message);
    } finally {
      setConfirm(null);
      await refresh();
    }
  }

  if (modes.length === 0) return <p className="text-sm text-slate-500">This merchant has no wallet yet.</p>;
  const verb = draft.direction === "credit" ? "Credit" : "Debit";
  return (
    <>
      <form onSubmit={onSubmit} noValidate aria-label="Credit or debit wallet" className="space-y-3">
        <WalletAndDirection modes={modes} draft={draft} set={form.setValue} errors={errors} />
        <AmountField {...form.bind("amount")} hint={`Balance now ${formatRupees(balance)}.`} />
        <Field
          label="Reason"
          autoComplete="off"
          maxLength={200}
          {...form.bind("reason")}
          hint="3 to 200 characters; the merchant sees it on the ledger entry, and it is kept in the activity log."
        />
        <Button type="submit">{verb} wallet</Button>
      </form>

      <AdjustConfirmDialog
        merchantName={merchant.name}
        draft={draft}
        paise={confirm?.paise ?? null}
        balance={balance}
        pending={adjust.isPending}
        onClose={() => setConfirm(null)}
        onConfirm={() => void run()}
      />
    </>
  );
}
