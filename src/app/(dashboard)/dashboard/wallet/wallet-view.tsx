"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { z } from "zod";
import { FilteredList, RefreshButton, withUrlFilters, nextPage, useUrlFilters, type FilterSpec, type RowsSpec } from "@/components/dashboard/list-page";
import { type Column } from "@/components/dashboard/list-rows";
import { useMode } from "@/components/dashboard/mode";
import { Button, Card, ErrorState, LoadingState, Notice, PageHeader, cx, useToast } from "@/components/ui";
import { AmountField } from "@/components/ui/form";
import { KYC_KIND_LABELS } from "@/lib/kyc";
import { formatPaise, formatRupees } from "@/lib/money";
import {
  LEDGER_REASONS,
  addTestFundsInput,
  ledgerFiltersFromQuery,
  ledgerFiltersSchema,
  ledgerFiltersToQuery,
  ledgerReasonLabel,
  lowBalanceThresholdInput,
  type LedgerFilters,
} from "@/lib/schemas/wallet";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { formatIst } from "../logs/parts";
import { CsvDownloadButton } from "@/components/dashboard/csv-download-button";

const TYPE_OPTIONS = [
  { value: "", label: "All entries" },
  { value: "credits", label: "Credits" },
  { value: "debits", label: "Debits" },
  ...LEDGER_REASONS.map((r) => ({ value: r, label: ledgerReasonLabel(r) })),
];

function useRefreshWallet() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  return () => Promise.all([qc.invalidateQueries(trpc.wallet.summary.queryFilter()), qc.invalidateQueries(trpc.wallet.ledger.pathFilter())]);
}

type Summary = NonNullable<ReturnType<typeof useSummary>["data"]>;

function useSummary() {
  const { mode } = useMode();
  const trpc = useTRPC();
  return useQuery(trpc.wallet.summary.queryOptions({ mode }));
}

function BalanceCard({ s }: { s: Summary }) {
  return (
    <Card title="Balance" className="lg:col-span-2">
      <dl className="grid grid-cols-2 gap-4 sm:grid-cols-3">
        <div className="col-span-2 sm:col-span-1">
          <dt className="text-xs font-medium text-slate-500">Balance</dt>
          <dd className="mt-1 text-3xl font-semibold tabular-nums tracking-tight text-slate-900" data-testid="wallet-balance">
            {formatRupees(s.balancePaise)}
          </dd>
        </div>
        <div>
          <dt className="text-xs font-medium text-slate-500">On hold</dt>
          <dd className="mt-1 text-lg font-medium tabular-nums text-slate-900">{formatRupees(s.heldPaise)}</dd>
          <p className="text-xs text-slate-500">fees of calls still running</p>
        </div>
        <div>
          <dt className="text-xs font-medium text-slate-500">Available</dt>
          <dd className="mt-1 text-lg font-medium tabular-nums text-slate-900">{formatRupees(s.availablePaise)}</dd>
          <p className="text-xs text-slate-500">what new calls can use</p>
        </div>
      </dl>
      <div className="mt-5 border-t border-slate-100 pt-4">
        <h3 className="text-xs font-medium uppercase tracking-wide text-slate-500">Fee per KYC call</h3>
        <ul className="mt-2 grid gap-2 sm:grid-cols-3" aria-label="Fee per KYC call">
          {s.fees.map((f) => (
            <li
              key={f.kind}
              className="flex items-baseline justify-between gap-2 rounded-md bg-slate-50 px-3 py-2 text-sm sm:flex-col sm:items-start sm:gap-0.5"
            >
              <span className="text-slate-600">{KYC_KIND_LABELS[f.kind]}</span>
              <span className="font-medium tabular-nums text-slate-900">{formatRupees(f.feePaise)}</span>
            </li>
          ))}
        </ul>
        <p className="mt-2 text-xs text-slate-500">
          Only calls answered with 200 are charged. A call the balance cannot cover is refused with <code className="font-mono">402 INSUFFICIENT_BALANCE</code>.
        </p>
      </div>
    </Card>
  );
}

/**
 * A wallet form's one rupee field (`amount` or `threshold`): checked with `schema`, then `run`, whose
 * answer is the success toast; a field error shows under the field, any other as a toast, and the
 * wallet is refreshed after.
 */
function useWalletField(name: "amount" | "threshold", initial: string, schema: z.ZodType) {
  const toast = useToast();
  const refresh = useRefreshWallet();
  const [value, setValue] = useState(initial);
  const [error, setError] = useState<string>();
  async function send(v: string, run: () => Promise<string>) {
    const parsed = schema.safeParse({ [name]: v });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setError(undefined);
    try {
      toast("success", await run());
    } catch (err) {
      const info = errorInfo(err);
      if (info.fieldErrors[name]) setError(info.fieldErrors[name]);
      else toast("error", info.message);
    } finally {
      await refresh();
    }
  }
  return { field: { name, value, onChange: (e: React.ChangeEvent<HTMLInputElement>) => setValue(e.target.value), error }, setValue, send };
}

function AddTestFunds({ s }: { s: Summary }) {
  const { mode } = useMode();
  const trpc = useTRPC();
  const add = useMutation(trpc.wallet.addTestFunds.mutationOptions());
  const amount = useWalletField("amount", "1000", addTestFundsInput);

  if (!s.testFunds) {
    return (
      <Card title="Top up">
        <Notice tone="info">Live top-up through the hosted checkout needs a live payment processor, which is not configured yet.</Notice>
        <p className="mt-3 text-xs text-slate-500">Until then, Parakh support can credit your live wallet; each credit appears in the ledger below.</p>
      </Card>
    );
  }
  const limits = s.testFunds;

  function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    void amount.send(amount.field.value, async () => {
      const r = await add.mutateAsync({ mode, amount: amount.field.value });
      // Cleared, so a second click cannot add the same amount again by mistake.
      amount.setValue("");
      return `Added ${formatRupees(r.addedPaise)} of test funds. Balance: ${formatRupees(r.balancePaise)}.`;
    });
  }

  return (
    <Card title="Add test funds" description="Sandbox money for trying KYC calls; it is not real and never leaves the sandbox.">
      <form onSubmit={onSubmit} noValidate className="space-y-3">
        <AmountField
          {...amount.field}
          hint={`Up to ${formatRupees(limits.maxPerAddPaise)} at a time; a sandbox wallet holds at most ${formatRupees(limits.balanceCapPaise)}.`}
        />
        <Button type="submit" loading={add.isPending} className="w-full sm:w-auto">
          Add test funds
        </Button>
      </form>
    </Card>
  );
}

/** What the alert does, and where it stands now. */
function LowBalanceExplanation({ s }: { s: Summary }) {
  const { mode } = useMode();
  const current = s.lowBalanceThresholdPaise;
  const below = current !== null && s.balancePaise < current;
  return (
    <div className="space-y-2 text-sm text-slate-600">
      <p>
        When a charge takes the balance below this amount, Parakh sends one{" "}
        <code className="rounded bg-slate-100 px-1 font-mono text-xs text-slate-800">wallet.low_balance</code> webhook event to your {mode} endpoints that
        subscribe to it. The next one is sent only after the balance has been back at or above the threshold.
      </p>
      <p>
        Receive it on the{" "}
        <Link href="/dashboard/webhooks" className="text-brand-600 hover:underline">
          Webhooks
        </Link>{" "}
        page.
      </p>
      <p className="font-medium text-slate-800" data-testid="low-balance-state">
        {current === null
          ? "Off: no alert is sent."
          : s.lowBalanceAlerted
            ? `Below ${formatRupees(current)}: the alert for this dip has been sent.`
            : below
              ? `Below ${formatRupees(current)}: the next charge sends the alert.`
              : `On: alert below ${formatRupees(current)}.`}
      </p>
    </div>
  );
}

function LowBalanceAlert({ s }: { s: Summary }) {
  const { mode } = useMode();
  const trpc = useTRPC();
  const save = useMutation(trpc.wallet.setLowBalanceThreshold.mutationOptions());
  const current = s.lowBalanceThresholdPaise;
  const threshold = useWalletField("threshold", current === null ? "" : formatPaise(current), lowBalanceThresholdInput);

  const submit = (v: string) =>
    threshold.send(v, async () => {
      const r = await save.mutateAsync({ mode, threshold: v });
      if (r.lowBalanceThresholdPaise === null) threshold.setValue("");
      return r.lowBalanceThresholdPaise === null ? "Low-balance alert turned off." : `Alert set below ${formatRupees(r.lowBalanceThresholdPaise)}.`;
    });

  return (
    <Card title="Low-balance alert" className="lg:col-span-3">
      <div className="grid gap-5 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
        <LowBalanceExplanation s={s} />
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void submit(threshold.field.value);
          }}
          className="space-y-3"
        >
          <AmountField
            label="Alert when the balance falls below (₹)"
            placeholder="e.g. 500"
            {...threshold.field}
            hint="Leave empty and save to turn the alert off."
          />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" loading={save.isPending && save.variables?.threshold !== ""}>
              Save threshold
            </Button>
            {current !== null && (
              <Button type="button" variant="secondary" loading={save.isPending && save.variables?.threshold === ""} onClick={() => void submit("")}>
                Turn off
              </Button>
            )}
          </div>
        </form>
      </div>
    </Card>
  );
}

const FILTERS: FilterSpec<LedgerFilters> = {
  id: "ledger-filters",
  label: "Filter ledger entries",
  hint: "Dates are whole IST days.",
  columns: "lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1fr)]",
  fields: [{ select: "type", label: "Entry type", options: TYPE_OPTIONS }, "dates"],
  schema: ledgerFiltersSchema,
};

type Entry = RouterOutputs["wallet"]["ledger"]["items"][number];

function Amount({ paise }: { paise: number }) {
  return (
    <span className={cx("font-medium tabular-nums", paise >= 0 ? "text-green-700" : "text-slate-900")}>
      {paise >= 0 ? "+" : "−"}
      {formatRupees(Math.abs(paise))}
    </span>
  );
}

function Reference({ e }: { e: Entry }) {
  if (e.kycTransactionId) {
    return (
      <Link href={`/dashboard/kyc/${encodeURIComponent(e.kycTransactionId)}`} className="font-mono text-xs text-brand-600 hover:underline">
        {e.kycTransactionId}
      </Link>
    );
  }
  return e.reference ? <span className="break-words text-xs text-slate-600">{e.reference}</span> : <span className="text-slate-400">—</span>;
}

const COLUMNS: Column<Entry>[] = [
  { head: "Time (IST)", cell: (e) => formatIst(e.createdAt, true) },
  { head: "Entry", cell: (e) => ledgerReasonLabel(e.reason) },
  { head: "Amount", className: "text-right", cell: (e) => <Amount paise={e.amountPaise} /> },
  { head: "Balance after", className: "text-right tabular-nums", cell: (e) => formatRupees(e.balanceAfterPaise) },
  { head: "Reference", className: "max-w-[22rem] whitespace-normal", cell: (e) => <Reference e={e} /> },
];

/** Phone layout: one block per entry. */
function EntryCard({ e }: { e: Entry }) {
  return (
    <>
      <div className="flex items-center justify-between gap-3">
        <span className="text-sm text-slate-900">{ledgerReasonLabel(e.reason)}</span>
        <Amount paise={e.amountPaise} />
      </div>
      <div className="mt-0.5 flex flex-wrap justify-between gap-x-3 text-xs text-slate-500">
        <span>{formatIst(e.createdAt, true)}</span>
        <span className="tabular-nums">Balance {formatRupees(e.balanceAfterPaise)}</span>
      </div>
      {(e.reference || e.kycTransactionId) && (
        <div className="mt-0.5 min-w-0 truncate">
          <Reference e={e} />
        </div>
      )}
    </>
  );
}

const ROWS: RowsSpec<Entry> = { caption: "Ledger entries, newest first", columns: COLUMNS, rowKey: (e) => e.id, card: (e) => <EntryCard e={e} /> };

function Ledger() {
  const trpc = useTRPC();
  const page = useUrlFilters(ledgerFiltersFromQuery, ledgerFiltersToQuery);
  const ledger = useInfiniteQuery(trpc.wallet.ledger.infiniteQueryOptions(page.input, nextPage));
  return (
    <section aria-labelledby="ledger-heading" className="mt-8">
      <div className="mb-4 flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="ledger-heading" className="text-base font-semibold text-slate-900">
            Ledger
          </h2>
          <p className="mt-0.5 text-sm text-slate-500">Every credit and charge, newest first. The balance is always the sum of these entries.</p>
        </div>
        <div className="flex flex-wrap gap-2">
          <CsvDownloadButton url={`/api/dashboard/wallet/export${ledgerFiltersToQuery(page.filters, { mode: page.mode })}`} fallbackName="wallet-ledger.csv" />
          <RefreshButton query={ledger} />
        </div>
      </div>
      <FilteredList
        page={page}
        filters={FILTERS}
        query={ledger}
        loadingLabel="Loading ledger…"
        empty={{
          filtered: "No ledger entries match these filters",
          none: `No ${page.mode} ledger entries yet`,
          children: <p>Credits and KYC charges appear here as they happen.</p>,
        }}
        rows={ROWS}
        noun={["entry", "entries"]}
      />
    </section>
  );
}

export const WalletView = withUrlFilters("Loading wallet…", function Wallet() {
  const { mode } = useMode();
  const summary = useSummary();
  const s = summary.data;
  return (
    <>
      <PageHeader
        title="Wallet"
        description={`Your ${mode} wallet pays for KYC calls made with your ${mode} keys: each charged call takes its fee from here.`}
      />
      {summary.isLoading ? (
        <LoadingState label="Loading wallet…" />
      ) : summary.isError || !s ? (
        <ErrorState message={errorInfo(summary.error).message} onRetry={() => void summary.refetch()} />
      ) : (
        <div className="grid items-start gap-4 lg:grid-cols-3">
          <BalanceCard s={s} />
          <AddTestFunds s={s} />
          {/* Re-mounted when the saved threshold or the mode changes, so the field shows what is in effect. */}
          <LowBalanceAlert key={`${mode}:${s.lowBalanceThresholdPaise ?? "off"}`} s={s} />
        </div>
      )}
      <Ledger />
    </>
  );
});
