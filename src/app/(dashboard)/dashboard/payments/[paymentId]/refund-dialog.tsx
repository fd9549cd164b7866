"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Dialog, DialogActions, Field, Notice, useToast } from "@/components/ui";
import { useMode } from "@/components/dashboard/mode";
import { AmountField, useFormFields } from "@/components/ui/form";
import { formatPaise, formatRupees, parseAmountToPaise } from "@/lib/money";
import { REFUND_REASON_MAX } from "@/lib/limits";
import { refundCreateInput } from "@/lib/schemas/refunds";
import { errorInfo, useTRPC } from "@/components/trpc/client";

export interface RefundTarget {
  id: string;
  orderId: string;
  amountPaise: number;
  refundablePaise: number;
}

type Step = { kind: "form" } | { kind: "confirm"; amountPaise: number; reason: string };

/** "Refund ₹X to the customer?": the amount and reason asked, before anything is sent. */
function RefundConfirmation({
  payment,
  amountPaise,
  reason,
  formError,
  pending,
  onBack,
  onConfirm,
}: {
  payment: RefundTarget;
  amountPaise: number;
  reason: string;
  formError: string | null;
  pending: boolean;
  onBack: () => void;
  onConfirm: () => void;
}) {
  const { mode } = useMode();
  const all = amountPaise === payment.amountPaise;
  return (
    <div className="space-y-4">
      {formError && <Notice tone="error">{formError}</Notice>}
      <p className="text-base font-medium text-slate-900">Refund {formatRupees(amountPaise)} to the customer?</p>
      <dl className="space-y-1.5 rounded-md bg-slate-50 px-4 py-3 text-sm">
        <div className="flex justify-between gap-4">
          <dt className="text-slate-500">Order</dt>
          <dd className="break-all font-mono text-xs text-slate-900">{payment.orderId}</dd>
        </div>
        <div className="flex justify-between gap-4">
          <dt className="text-slate-500">Refund</dt>
          <dd className="tabular-nums text-slate-900">
            {formatRupees(amountPaise)} {all ? "(full)" : `of ${formatRupees(payment.amountPaise)}`}
          </dd>
        </div>
        <div className="flex justify-between gap-4">
          <dt className="text-slate-500">Reason</dt>
          <dd className="min-w-0 break-words text-right text-slate-900">{reason || <span className="text-slate-400">—</span>}</dd>
        </div>
      </dl>
      <p className="text-sm text-slate-600">
        The money goes back to the customer&apos;s original payment method. A refund cannot be cancelled once created.
        {mode === "sandbox" && " In sandbox it is processed within seconds (a reason containing fail_refund makes it fail)."}
      </p>
      <DialogActions onCancel={onBack} cancelLabel="Back" cancelDisabled={pending}>
        <Button onClick={onConfirm} loading={pending}>
          Refund {formatRupees(amountPaise)}
        </Button>
      </DialogActions>
    </div>
  );
}

/**
 * Amount and reason, then "Refund ₹X to the customer?", then the call. The amount asked is the one
 * confirmed: if someone else refunds meanwhile the server refuses rather than refund another sum.
 */
function RefundForm({ payment, onDone, onChanged }: { payment: RefundTarget; onDone: () => void; onChanged: () => unknown }) {
  const trpc = useTRPC();
  const toast = useToast();
  const { mode } = useMode();
  const create = useMutation(trpc.refunds.create.mutationOptions());
  // The amount is all that is refundable at first; editing a field clears its error.
  const form = useFormFields({ amount: formatPaise(payment.refundablePaise), reason: "" }, { clearErrorOnEdit: true });
  const [formError, setFormError] = useState<string | null>(null);
  const [step, setStep] = useState<Step>({ kind: "form" });
  const max = payment.refundablePaise;

  function review(e: React.FormEvent) {
    e.preventDefault();
    setFormError(null);
    const data = form.check(refundCreateInput, { paymentId: payment.id, ...form.values });
    if (!data) return;
    const paise = parseAmountToPaise(data.amount)!;
    if (paise > max) return form.setErrors({ amount: `At most ${formatRupees(max)} can still be refunded.` });
    setStep({ kind: "confirm", amountPaise: paise, reason: data.reason ?? "" });
  }

  async function confirm(amountPaise: number, why: string) {
    setFormError(null);
    try {
      const r = await create.mutateAsync({ mode, paymentId: payment.id, amount: formatPaise(amountPaise), reason: why || undefined });
      toast("success", `Refund of ${formatRupees(amountPaise)} created (${r.refundId}). It shows as processed once the bank confirms.`);
      void onChanged();
      onDone();
    } catch (err) {
      const info = errorInfo(err);
      // The refundable amount may have changed (another refund meanwhile): show it fresh.
      void onChanged();
      if (info.fieldErrors.amount || info.fieldErrors.reason) {
        form.setErrors({ amount: info.fieldErrors.amount ?? "", reason: info.fieldErrors.reason ?? "" });
        setStep({ kind: "form" });
      } else setFormError(info.message);
    }
  }

  if (step.kind === "confirm") {
    return (
      <RefundConfirmation
        payment={payment}
        amountPaise={step.amountPaise}
        reason={step.reason}
        formError={formError}
        pending={create.isPending}
        onBack={() => setStep({ kind: "form" })}
        onConfirm={() => void confirm(step.amountPaise, step.reason)}
      />
    );
  }

  return (
    <form onSubmit={review} noValidate className="space-y-4">
      <AmountField
        {...form.bind("amount")}
        hint={`Up to ${formatRupees(max)} can be refunded${max < payment.amountPaise ? ` (of ${formatRupees(payment.amountPaise)} paid)` : ""}.`}
        autoFocus
      />
      <Field
        label="Reason (optional)"
        placeholder="e.g. Customer returned the item"
        maxLength={REFUND_REASON_MAX}
        {...form.bind("reason")}
        hint={`Shown here and sent in the refund webhooks. ${form.values.reason.length}/${REFUND_REASON_MAX}`}
      />
      <DialogActions onCancel={onDone}>
        <Button type="submit">Review refund</Button>
      </DialogActions>
    </form>
  );
}

export function RefundDialog({ open, payment, onClose, onChanged }: { open: boolean; payment: RefundTarget; onClose: () => void; onChanged: () => unknown }) {
  return (
    <Dialog open={open} onClose={onClose} title="Refund payment">
      <RefundForm payment={payment} onDone={onClose} onChanged={onChanged} />
    </Dialog>
  );
}
