"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { FilterPanel, InvalidFiltersNotice, ListBody, RefreshButton, useFilterDraft, useUrlFilters } from "@/components/dashboard/list-page";
import { useMode } from "@/components/dashboard/mode";
import { PageHeader, Table, Td, Th } from "@/components/ui";
import { KYC_KINDS, KYC_KIND_LABELS } from "@/lib/kyc";
import { formatRupees } from "@/lib/money";
import { PAGE_SIZE } from "@/lib/schemas/logs";
import { KYC_OUTCOMES, KYC_OUTCOME_LABELS, kycFiltersFromQuery, kycFiltersSchema, kycFiltersToQuery, type KycFilters } from "@/lib/schemas/kyc-transactions";
import { useTRPC, type RouterOutputs } from "@/lib/trpc/client";
import { formatIst } from "../logs/parts";
import { DateRangeFields, SelectField } from "@/components/dashboard/filter-fields";
import { NameMatch } from "@/components/dashboard/name-match";
import { KycOutcomeBadge, ReversedBadge } from "./parts";

const KIND_OPTIONS = [{ value: "", label: "Every KYC type" }, ...KYC_KINDS.map((k) => ({ value: k, label: KYC_KIND_LABELS[k] }))];
const OUTCOME_OPTIONS = [{ value: "", label: "Any outcome" }, ...KYC_OUTCOMES.map((o) => ({ value: o, label: KYC_OUTCOME_LABELS[o] }))];

type Draft = { kind: string; outcome: string; from: string; to: string };

function FilterForm({ initial, onApply, onClear }: { initial: KycFilters; onApply: (f: KycFilters) => void; onClear: () => void }) {
  const { draft, errors, set, setValue, submit } = useFilterDraft<Draft, KycFilters>(
    { kind: initial.kind ?? "", outcome: initial.outcome ?? "", from: initial.from ?? "", to: initial.to ?? "" },
    kycFiltersSchema,
    onApply,
  );
  return (
    <FilterPanel
      id="kyc-filters"
      label="Filter KYC transactions"
      activeCount={Object.values(initial).filter(Boolean).length}
      onSubmit={submit}
      onClear={onClear}
      hint="Dates are whole IST days."
    >
      <div className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        <SelectField
          className="col-span-2 lg:col-span-1"
          label="KYC type"
          name="kind"
          value={draft.kind}
          onChange={setValue("kind")}
          options={KIND_OPTIONS}
          error={errors.kind}
        />
        <SelectField
          className="col-span-2 lg:col-span-1"
          label="Outcome"
          name="outcome"
          value={draft.outcome}
          onChange={setValue("outcome")}
          options={OUTCOME_OPTIONS}
          error={errors.outcome}
        />
        <DateRangeFields from={draft.from} to={draft.to} errors={errors} set={set} />
      </div>
    </FilterPanel>
  );
}

type KycItem = RouterOutputs["kyc"]["list"]["items"][number];

const detailHref = (t: KycItem) => `/dashboard/kyc/${encodeURIComponent(t.id)}`;

function KycTable({ items }: { items: KycItem[] }) {
  const router = useRouter();
  return (
    <Table
      caption="KYC transactions, newest first"
      head={
        <tr>
          <Th>Time (IST)</Th>
          <Th>Type</Th>
          <Th>Subject</Th>
          <Th>Outcome</Th>
          <Th className="text-right">Name match</Th>
          <Th className="text-right">Fee</Th>
        </tr>
      }
    >
      {items.map((t) => (
        <tr
          key={t.id}
          className="cursor-pointer hover:bg-slate-50"
          onClick={(e) => {
            // The row is a mouse shortcut; the subject link is the keyboard path to the same page.
            if ((e.target as HTMLElement).closest("a,button")) return;
            router.push(detailHref(t));
          }}
        >
          <Td>{formatIst(t.createdAt, true)}</Td>
          <Td>{KYC_KIND_LABELS[t.kind] ?? t.kind}</Td>
          <Td>
            <Link href={detailHref(t)} className="font-mono text-xs text-slate-900 hover:text-brand-700 hover:underline">
              {t.subjectMasked}
            </Link>
          </Td>
          <Td>
            <span className="inline-flex flex-wrap gap-1">
              <KycOutcomeBadge outcome={t.outcome} />
              {t.reversedAt && <ReversedBadge />}
            </span>
          </Td>
          <Td className="text-right">
            <NameMatch score={t.nameMatchScore} />
          </Td>
          <Td className="text-right font-medium tabular-nums text-slate-900">{formatRupees(t.feePaise)}</Td>
        </tr>
      ))}
    </Table>
  );
}

/** Phone layout: one tappable block per transaction. */
function KycList({ items }: { items: KycItem[] }) {
  return (
    <ul className="-mx-4 divide-y divide-slate-100 sm:mx-0" aria-label="KYC transactions, newest first">
      {items.map((t) => (
        <li key={t.id}>
          <Link href={detailHref(t)} className="block px-4 py-3 hover:bg-slate-50 sm:px-0">
            <div className="flex items-center justify-between gap-3">
              <span className="text-sm font-medium text-slate-900">{KYC_KIND_LABELS[t.kind] ?? t.kind}</span>
              <span className="inline-flex flex-wrap gap-1">
                <KycOutcomeBadge outcome={t.outcome} />
                {t.reversedAt && <ReversedBadge />}
              </span>
            </div>
            <div className="mt-1 truncate font-mono text-xs text-slate-800">{t.subjectMasked}</div>
            <div className="mt-0.5 flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-slate-500">
              <span>{formatIst(t.createdAt, true)}</span>
              <span className="tabular-nums">Fee {formatRupees(t.feePaise)}</span>
              {t.nameMatchScore !== null && <NameMatch score={t.nameMatchScore} prefix="Name match " />}
            </div>
          </Link>
        </li>
      ))}
    </ul>
  );
}

export function KycView() {
  const { mode } = useMode();
  const trpc = useTRPC();
  const { filters, urlErrors, queryKey, hasFilters, apply, clear } = useUrlFilters(kycFiltersFromQuery, kycFiltersToQuery);
  const list = useInfiniteQuery(
    trpc.kyc.list.infiniteQueryOptions({ mode, ...filters, limit: PAGE_SIZE }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
  );
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  const modeName = mode === "live" ? "live" : "sandbox";
  return (
    <>
      <PageHeader
        title="KYC"
        description={`Aadhaar OTP, PAN and bank account KYC calls made with your ${modeName} keys and charged to your wallet, newest first. Numbers are shown masked.`}
        actions={<RefreshButton query={list} />}
      />
      <FilterForm key={queryKey} initial={filters} onApply={apply} onClear={clear} />
      <InvalidFiltersNotice errors={urlErrors} />
      <ListBody
        query={list}
        items={items}
        loadingLabel="Loading KYC transactions…"
        filtered={hasFilters}
        emptyFiltered={{ title: "No KYC transactions match these filters", onClear: clear }}
        emptyNone={{
          title: `No ${modeName} KYC calls yet`,
          children: (
            <p>
              Call <code className="font-mono text-xs">POST /api/kyc/pan/verify</code> (or the Aadhaar OTP and bank KYC operations) from your server; every
              charged call appears here and in the{" "}
              <Link href="/dashboard/wallet" className="text-brand-600 hover:underline">
                wallet ledger
              </Link>
              . See the{" "}
              <Link href="/docs" className="text-brand-600 hover:underline">
                API docs
              </Link>
              .
            </p>
          ),
        }}
        table={(rows) => <KycTable items={rows} />}
        list={(rows) => <KycList items={rows} />}
        noun={["transaction", "transactions"]}
      />
    </>
  );
}
