"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ListPage, ApiDocsLink, nextPage, useFilterDraft, useUrlFilters, withUrlFilters, type RowsSpec } from "@/components/dashboard/list-page";
import { type Column } from "@/components/dashboard/list-rows";
import { Badge, Button, Field } from "@/components/ui";
import { consentLabel } from "@/lib/consent";
import { maskPan } from "@/lib/pan";
import { verificationFiltersFromQuery, verificationFiltersSchema, verificationFiltersToQuery, type VerificationFilters } from "@/lib/schemas/verifications";
import { useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { formatIst } from "../logs/parts";
import { SelectField } from "@/components/dashboard/filter-fields";
import { NameMatch } from "@/components/dashboard/name-match";

const KIND_OPTIONS = [
  { value: "", label: "PAN and EPFO" },
  { value: "PAN", label: "PAN" },
  { value: "EPFO", label: "EPFO" },
];

const OUTCOME_TONES: Record<string, "green" | "amber" | "red" | "slate"> = {
  VALID: "green",
  ACTIVE: "green",
  INVALID: "amber",
  NOT_FOUND: "amber",
  DEACTIVATED: "red",
  DELETED: "red",
  ERROR: "red",
  EXITED: "slate",
  INACTIVE: "slate",
};

function OutcomeBadge({ outcome, errorCode }: { outcome: string; errorCode: string | null }) {
  return (
    <span className="inline-flex flex-col items-start gap-0.5">
      <Badge tone={OUTCOME_TONES[outcome] ?? "slate"}>{outcome.replace("_", " ")}</Badge>
      {errorCode && outcome === "ERROR" && <span className="font-mono text-[11px] text-slate-500">{errorCode}</span>}
    </span>
  );
}

type VerificationItem = RouterOutputs["verifications"]["list"]["items"][number];

const logHref = (requestId: string) => `/dashboard/logs/${encodeURIComponent(requestId)}`;
const batchHref = (batchId: string) => `/dashboard/batches/${encodeURIComponent(batchId)}`;
const subjectHref = (subject: string) => `/dashboard/verifications?subject=${encodeURIComponent(subject)}`;

/** What was checked, as screens show it: a PAN without its serial (a UAN or PF number as is). */
const shownSubject = (v: VerificationItem) => (v.kind === "PAN" ? maskPan(v.subject) : v.subject);

function SearchForm({ initial, onApply, onClear }: { initial: VerificationFilters; onApply: (f: VerificationFilters) => void; onClear: () => void }) {
  const { draft, errors, set, setValue, submit } = useFilterDraft(
    { subject: initial.subject ?? "", kind: initial.kind ?? "" },
    verificationFiltersSchema,
    onApply,
  );
  const active = Boolean(initial.subject || initial.kind);

  return (
    <form onSubmit={submit} noValidate role="search" aria-label="Search verifications" className="mb-4 rounded-lg border border-slate-200 bg-white p-4">
      <div className="grid gap-3 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_auto] sm:items-start">
        <Field
          label="PAN, UAN or PF number"
          name="subject"
          placeholder="ABCPK1234F"
          value={draft.subject}
          onChange={set("subject")}
          error={errors.subject}
          hint="Exact match; letter case and PF slashes don't matter."
          spellCheck={false}
          autoComplete="off"
        />
        <SelectField label="Kind" name="kind" value={draft.kind} onChange={setValue("kind")} options={KIND_OPTIONS} error={errors.kind} />
        <div className="flex gap-2 sm:mt-6">
          <Button type="submit">Search</Button>
          {active && (
            <Button type="button" variant="ghost" onClick={onClear}>
              Clear
            </Button>
          )}
        </div>
      </div>
    </form>
  );
}

const verificationKey = (v: VerificationItem) => v.id;

/** Where the check came from: its batch, or the request that made it (with a tooltip saying which, in the table). */
function Source({ v, className, titled }: { v: VerificationItem; className: string; titled?: boolean }) {
  return v.batchId ? (
    <Link href={batchHref(v.batchId)} className={className} title={titled ? `Open batch ${v.batchId}` : undefined}>
      {v.batchId}
    </Link>
  ) : (
    <Link href={logHref(v.requestId)} className={className} title={titled ? `Open request ${v.requestId}` : undefined}>
      {v.requestId}
    </Link>
  );
}

/**
 * The consent the check was made under (a batch's item: its batch's) and its purpose, as one line
 * under the request or batch: the purpose is cut to the column's width, whole in the tooltip (and
 * in the text screen readers read).
 */
function Consent({ v }: { v: VerificationItem }) {
  const label = consentLabel(v.consent, v.consentSource);
  return (
    <div className="mt-0.5 max-w-[14rem] truncate text-[11px] text-slate-500" title={v.purpose ? `${label} · ${v.purpose}` : label}>
      <span className="text-slate-700">{label}</span>
      {v.purpose && <> · {v.purpose}</>}
    </div>
  );
}

const COLUMNS: Column<VerificationItem>[] = [
  { head: "Time (IST)", cell: (v) => formatIst(v.createdAt, true) },
  {
    head: "Checked",
    cell: (v) => (
      <>
        <div className="text-[11px] font-medium text-slate-500">{v.kind}</div>
        <Link
          href={subjectHref(v.subject)}
          className="font-mono text-xs text-slate-900 hover:text-brand-700 hover:underline"
          title={`All checks of ${shownSubject(v)}`}
        >
          {shownSubject(v)}
        </Link>
      </>
    ),
  },
  { head: "Outcome", cell: (v) => <OutcomeBadge outcome={v.outcome} errorCode={v.errorCode} /> },
  {
    head: "Name queried and match",
    cell: (v) =>
      v.nameQueried === null && v.nameMatch === null ? (
        <span className="text-slate-400">—</span>
      ) : (
        <>
          <div className="max-w-[12rem] truncate" title={v.nameQueried ?? undefined}>
            {v.nameQueried ?? <span className="text-slate-400">No name sent</span>}
          </div>
          {v.nameMatch !== null && (
            <div className="mt-0.5">
              <NameMatch score={v.nameMatch} band={v.nameMatchResult} />
            </div>
          )}
        </>
      ),
  },
  {
    // The consent and purpose fold under the request or batch: a column of their own pushed the
    // source past the right edge at 1280 px.
    head: "Source and consent",
    cell: (v) => (
      <>
        <Source v={v} titled className="block max-w-[14rem] truncate font-mono text-xs text-brand-600 hover:underline" />
        <Consent v={v} />
      </>
    ),
  },
];

/** Phone layout: one block per check. */
function VerificationCard({ v }: { v: VerificationItem }) {
  return (
    <>
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs font-medium text-slate-500">{v.kind}</span>
        <Link href={subjectHref(v.subject)} className="font-mono text-sm text-slate-900 hover:underline">
          {shownSubject(v)}
        </Link>
        <OutcomeBadge outcome={v.outcome} errorCode={v.errorCode} />
      </div>
      {(v.nameQueried || v.nameMatch !== null) && (
        <div className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-700">
          {v.nameQueried && <span className="min-w-0 truncate">{v.nameQueried}</span>}
          {v.nameQueried && v.nameMatch !== null && (
            <span className="text-slate-400" aria-hidden="true">
              ·
            </span>
          )}
          <NameMatch score={v.nameMatch} band={v.nameMatchResult} />
        </div>
      )}
      <div className="mt-1 text-xs text-slate-600 [overflow-wrap:anywhere]">
        {consentLabel(v.consent, v.consentSource)}
        {v.purpose && <span className="text-slate-500"> · {v.purpose}</span>}
      </div>
      <div className="mt-1 flex flex-wrap gap-x-3 text-xs text-slate-500">
        <span>{formatIst(v.createdAt, true)}</span>
        <Source v={v} className="font-mono text-brand-600 hover:underline" />
      </div>
    </>
  );
}

const ROWS: RowsSpec<VerificationItem> = {
  caption: "PAN and EPFO checks, newest first",
  columns: COLUMNS,
  rowKey: verificationKey,
  card: (v) => <VerificationCard v={v} />,
};

export const VerificationsView = withUrlFilters("Loading verifications…", function Verifications() {
  const trpc = useTRPC();
  const page = useUrlFilters(verificationFiltersFromQuery, verificationFiltersToQuery);
  const list = useInfiniteQuery(trpc.verifications.list.infiniteQueryOptions(page.input, nextPage));
  const { filters, modeName } = page;
  return (
    <ListPage
      title="Verifications"
      description={`PAN and EPFO checks made with your ${modeName} keys, newest first.`}
      exportCsv={{
        url: `/api/dashboard/verifications/export${verificationFiltersToQuery(page.filters, { mode: page.mode })}`,
        fallbackName: "verifications.csv",
      }}
      page={page}
      filterForm={<SearchForm key={page.queryKey} initial={filters} onApply={page.apply} onClear={page.clear} />}
      query={list}
      loadingLabel="Loading verifications…"
      empty={{
        filtered: `No ${[filters.kind, "checks"].filter(Boolean).join(" ")}${filters.subject ? ` of ${filters.subject}` : ""} in ${modeName} mode`,
        clearLabel: "Show all checks",
        none: `No verifications in ${modeName} mode yet`,
        children: (
          <p>
            Calls to <code className="font-mono text-xs">/v1/identity/pan/verify</code> and{" "}
            <code className="font-mono text-xs">/v1/employment/epfo/verify</code> appear here. See the <ApiDocsLink />.
          </p>
        ),
      }}
      rows={ROWS}
      noun={["check", "checks"]}
      note=" · name match: 90+ match, 70–89.99 partial, below 70 no match"
    />
  );
});
