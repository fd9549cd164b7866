"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ApiDocsLink, ListPage, nextPage, useUrlFilters, withUrlFilters, type FilterSpec, type RowsSpec } from "@/components/dashboard/list-page";
import { anyOr } from "@/components/dashboard/filter-fields";
import { PhoneCard, type Column } from "@/components/dashboard/list-rows";
import { KYC_KINDS, KYC_KIND_LABELS } from "@/lib/kyc";
import { formatRupees } from "@/lib/money";
import { KYC_OUTCOMES, KYC_OUTCOME_LABELS, kycFiltersFromQuery, kycFiltersSchema, kycFiltersToQuery, type KycFilters } from "@/lib/schemas/kyc-transactions";
import { useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { formatIst } from "../logs/parts";
import { NameMatch } from "@/components/dashboard/name-match";
import { KycOutcomeBadge, ReversedBadge } from "./parts";

const FILTERS: FilterSpec<KycFilters> = {
  id: "kyc-filters",
  label: "Filter KYC transactions",
  hint: "Dates are whole IST days.",
  columns: "lg:grid-cols-4",
  fields: [
    { select: "kind", label: "KYC type", options: anyOr("Every KYC type", KYC_KINDS, KYC_KIND_LABELS) },
    { select: "outcome", label: "Outcome", options: anyOr("Any outcome", KYC_OUTCOMES, KYC_OUTCOME_LABELS) },
    "dates",
  ],
  schema: kycFiltersSchema,
};

type KycItem = RouterOutputs["kyc"]["list"]["items"][number];

const detailHref = (t: KycItem) => `/dashboard/kyc/${encodeURIComponent(t.id)}`;
const kycKey = (t: KycItem) => t.id;
const kindLabel = (t: KycItem) => KYC_KIND_LABELS[t.kind] ?? t.kind;

function Outcome({ t }: { t: KycItem }) {
  return (
    <span className="inline-flex flex-wrap gap-1">
      <KycOutcomeBadge outcome={t.outcome} />
      {t.reversedAt && <ReversedBadge />}
    </span>
  );
}

const COLUMNS: Column<KycItem>[] = [
  { head: "Time (IST)", cell: (t) => formatIst(t.createdAt, true) },
  { head: "Type", cell: kindLabel },
  {
    head: "Subject",
    cell: (t) => (
      <Link href={detailHref(t)} className="font-mono text-xs text-slate-900 hover:text-brand-700 hover:underline">
        {t.subjectMasked}
      </Link>
    ),
  },
  { head: "Outcome", cell: (t) => <Outcome t={t} /> },
  { head: "Name match", className: "text-right", cell: (t) => <NameMatch score={t.nameMatchScore} /> },
  { head: "Fee", className: "text-right font-medium tabular-nums text-slate-900", cell: (t) => formatRupees(t.feePaise) },
];

/** Phone layout: one tappable block per transaction. */
function KycCard({ t }: { t: KycItem }) {
  return (
    <PhoneCard
      title={<span className="text-sm font-medium text-slate-900">{kindLabel(t)}</span>}
      aside={<Outcome t={t} />}
      line={t.subjectMasked}
      meta={
        <>
          <span>{formatIst(t.createdAt, true)}</span>
          <span className="tabular-nums">Fee {formatRupees(t.feePaise)}</span>
          {t.nameMatchScore !== null && <NameMatch score={t.nameMatchScore} prefix="Name match " />}
        </>
      }
    />
  );
}

const ROWS: RowsSpec<KycItem> = {
  caption: "KYC transactions, newest first",
  columns: COLUMNS,
  rowKey: kycKey,
  href: detailHref,
  card: (t) => <KycCard t={t} />,
};

export const KycView = withUrlFilters("Loading KYC transactions…", function Kyc() {
  const trpc = useTRPC();
  const page = useUrlFilters(kycFiltersFromQuery, kycFiltersToQuery);
  const list = useInfiniteQuery(trpc.kyc.list.infiniteQueryOptions(page.input, nextPage));
  return (
    <ListPage
      title="KYC"
      description={`Aadhaar OTP, PAN and bank account KYC calls made with your ${page.modeName} keys and charged to your wallet, newest first. Numbers are shown masked.`}
      exportCsv={{ url: `/api/dashboard/kyc/export${kycFiltersToQuery(page.filters, { mode: page.mode })}`, fallbackName: "kyc-transactions.csv" }}
      page={page}
      filters={FILTERS}
      query={list}
      loadingLabel="Loading KYC transactions…"
      empty={{
        filtered: "No KYC transactions match these filters",
        none: `No ${page.modeName} KYC calls yet`,
        children: (
          <p>
            Call <code className="font-mono text-xs">POST /api/kyc/pan/verify</code> (or the Aadhaar OTP and bank KYC operations) from your server; every
            charged call appears here and in the{" "}
            <Link href="/dashboard/wallet" className="text-brand-600 hover:underline">
              wallet ledger
            </Link>
            . See the <ApiDocsLink />.
          </p>
        ),
      }}
      rows={ROWS}
      noun={["transaction", "transactions"]}
    />
  );
});
