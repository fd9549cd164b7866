"use client";

import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { noValue } from "@/components/dashboard/detail-page";
import { NameMatch } from "@/components/dashboard/name-match";
import { useMode } from "@/components/dashboard/mode";
import { Badge, Button, EmptyState, ErrorState, Field, LoadingState, Segmented } from "@/components/ui";
import { DataTable } from "@/components/dashboard/list-rows";
import type { NameMatchResult } from "@/lib/name-match";
import { BATCH_RESULTS_PAGE_SIZE, batchResultsSearchSchema, type BatchItemStatus } from "@/lib/schemas/batches";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { inputSummary } from "../parts";

const n = (v: number) => v.toLocaleString("en-IN");

type ResultItem = RouterOutputs["batches"]["results"]["items"][number];

const OUTCOME_TONES: Record<string, "green" | "amber" | "red" | "slate"> = {
  VALID: "green",
  ACTIVE: "green",
  INVALID: "amber",
  DEACTIVATED: "red",
  DELETED: "red",
  EXITED: "slate",
  INACTIVE: "slate",
};

const str = (o: unknown, k: string): string | null => {
  const v = o && typeof o === "object" ? (o as Record<string, unknown>)[k] : null;
  return typeof v === "string" ? v : null;
};
const num = (o: unknown, k: string): number | null => {
  const v = o && typeof o === "object" ? (o as Record<string, unknown>)[k] : null;
  return typeof v === "number" ? v : null;
};

/** The outcome: the item's status, then for an answer the few fields that matter per kind. */
function Outcome({ item, kind }: { item: ResultItem; kind: "PAN" | "EPFO" }) {
  if (item.status === "PENDING") return <Badge tone="blue">Pending</Badge>;
  if (item.status === "FAILED" || !item.result) return <Badge tone="red">Failed</Badge>;
  const r = item.result;
  const outcome = kind === "PAN" ? str(r, "status") : str(r, "member_status");
  const name = kind === "PAN" ? str(r, "name") : str(r, "member_name");
  const score = kind === "PAN" ? num(r, "name_match") : null;
  const band = str(r, "name_match_result") as NameMatchResult | null;
  const detail = kind === "PAN" ? str(r, "category") : str(r, "employer");
  return (
    <span className="inline-flex max-w-[18rem] flex-col items-start gap-0.5">
      <span className="inline-flex flex-wrap items-center gap-1.5">
        <Badge tone={OUTCOME_TONES[outcome ?? ""] ?? "slate"}>{outcome ?? "Answered"}</Badge>
        {score !== null && (
          <span className="text-xs">
            <NameMatch score={score} band={band} prefix="name match " />
          </span>
        )}
      </span>
      {name && <span className="truncate text-xs text-slate-700">{name}</span>}
      {detail && <span className="truncate text-[11px] text-slate-500">{detail}</span>}
    </span>
  );
}

function ErrorCell({ error }: { error: ResultItem["error"] }) {
  if (!error) return noValue;
  return (
    <div className="min-w-[14rem] max-w-[22rem] whitespace-normal">
      <code className="font-mono text-xs text-slate-800">{error.code}</code>
      <p className="text-xs text-slate-500">{error.message}</p>
    </div>
  );
}

function InputCell({ input }: { input: unknown }) {
  const s = inputSummary(input);
  return (
    <div className="max-w-[16rem]">
      <div className="truncate font-mono text-xs text-slate-900" title={s.primary}>
        {s.primary}
      </div>
      {s.secondary && (
        <div className="truncate text-xs text-slate-500" title={s.secondary}>
          {s.secondary}
        </div>
      )}
    </div>
  );
}

/** Wide screens: one table row per item. */
function ResultsTable({ items, kind }: { items: ResultItem[]; kind: "PAN" | "EPFO" }) {
  return (
    <div className="hidden lg:block">
      <DataTable
        caption="Batch results, in submitted order"
        columns={[
          { head: "Index", className: "text-right tabular-nums text-slate-500", cell: (i) => i.index },
          {
            head: "Reference",
            cell: (i) =>
              i.reference_id ? (
                <span className="block max-w-[12rem] truncate" title={i.reference_id}>
                  {i.reference_id}
                </span>
              ) : (
                noValue
              ),
          },
          { head: "Input", cell: (i) => <InputCell input={i.input} /> },
          { head: "Outcome", cell: (i) => <Outcome item={i} kind={kind} /> },
          { head: "Error", cell: (i) => <ErrorCell error={i.error} /> },
        ]}
        rows={items}
        rowKey={(i) => i.index}
      />
    </div>
  );
}

/** Phones: one card per item, input above, outcome on the right. */
function ResultsList({ items, kind }: { items: ResultItem[]; kind: "PAN" | "EPFO" }) {
  return (
    <ol className="-mx-4 divide-y divide-slate-100 lg:hidden" aria-label="Batch results, in submitted order">
      {items.map((i) => {
        const s = inputSummary(i.input);
        return (
          <li key={i.index} className="px-4 py-3">
            <div className="flex items-start justify-between gap-3">
              <div className="min-w-0">
                <p className="text-xs text-slate-500">
                  #{i.index}
                  {i.reference_id && <span className="break-all"> · {i.reference_id}</span>}
                </p>
                <p className="break-all font-mono text-xs text-slate-900">{s.primary}</p>
                {s.secondary && <p className="break-words text-xs text-slate-500">{s.secondary}</p>}
              </div>
              <Outcome item={i} kind={kind} />
            </div>
            {i.error && (
              <p className="mt-1 text-xs text-slate-600">
                <code className="font-mono">{i.error.code}</code> · {i.error.message}
              </p>
            )}
          </li>
        );
      })}
    </ol>
  );
}

type View = "ALL" | BatchItemStatus;

const VIEW_NOUNS: Record<View, string> = { ALL: "Items", SUCCEEDED: "Succeeded items", FAILED: "Failed items", PENDING: "Pending items" };

/** The batch's items by state, each with its count from the batch's counters. */
function ViewSwitch({ view, counts, onChange }: { view: View; counts: Record<View, number>; onChange: (v: View) => void }) {
  const options = [
    { value: "ALL", label: `All (${n(counts.ALL)})` },
    { value: "SUCCEEDED", label: `Succeeded (${n(counts.SUCCEEDED)})` },
    { value: "FAILED", label: `Failed (${n(counts.FAILED)})` },
    { value: "PENDING", label: `Pending (${n(counts.PENDING)})` },
  ] as const;
  return <Segmented label="Which items" options={options} value={view} onChange={onChange} className="flex-wrap" />;
}

/** Search by reference id or PAN (EPFO: UAN or PF number), on the server, over every item of the batch. */
function SearchBox({ kind, search, onSearch }: { kind: "PAN" | "EPFO"; search: string; onSearch: (text: string) => void }) {
  const [text, setText] = useState(search);
  const [error, setError] = useState<string>();
  useEffect(() => setText(search), [search]);
  const what = kind === "PAN" ? "reference id or PAN" : "reference id, UAN or PF number";
  return (
    <form
      role="search"
      aria-label="Search the results"
      noValidate
      className="flex min-w-0 flex-1 flex-wrap items-start gap-2 sm:max-w-md"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim() === "") return onSearch("");
        const parsed = batchResultsSearchSchema.safeParse(text);
        if (!parsed.success) return setError(parsed.error.issues[0]?.message);
        setError(undefined);
        onSearch(parsed.data);
      }}
    >
      <Field
        label={`Search by ${what}`}
        className="min-w-0 flex-1 [&_label]:sr-only"
        type="search"
        placeholder={`Search by ${what}`}
        autoComplete="off"
        spellCheck={false}
        maxLength={110}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setError(undefined);
        }}
        error={error}
      />
      <Button type="submit" variant="secondary" className="mt-1">
        Search
      </Button>
      {search && (
        <Button type="button" variant="ghost" className="mt-1" onClick={() => onSearch("")}>
          Clear
        </Button>
      )}
    </form>
  );
}

/** What an empty page says: nothing in this state (yet), or nothing the search names. */
function NoItems({ kind, view, search, running, total }: { kind: "PAN" | "EPFO"; view: View; search: string; running: boolean; total: number }) {
  if (search) {
    const state = view === "ALL" ? "" : `${view.toLowerCase()} `;
    return (
      <EmptyState title="No matching items">
        No {state}item has “{search}” in its reference id or {kind === "PAN" ? "PAN" : "UAN or PF number"}.
      </EmptyState>
    );
  }
  if (view === "FAILED") {
    return (
      <EmptyState title="No failed items">
        {running ? "None so far. Rows that are rejected or end in an error show here as the batch runs." : `All ${n(total)} items succeeded.`}
      </EmptyState>
    );
  }
  if (view === "SUCCEEDED") {
    return (
      <EmptyState title="No succeeded items">
        {running ? "None so far. Items the source answers show here as the batch runs." : "No item got an answer from the source."}
      </EmptyState>
    );
  }
  if (view === "PENDING") return <EmptyState title="No pending items">Every item has run.</EmptyState>;
  return <EmptyState title="No items">This batch has no items.</EmptyState>;
}

/** Where the page stands, and Previous / Next (null: no such page). */
function Pager({ summary, onPrevious, onNext, loading }: { summary: string; onPrevious: (() => void) | null; onNext: (() => void) | null; loading: boolean }) {
  return (
    <nav aria-label="Results pages" className="mt-4 flex flex-wrap items-center justify-between gap-3 border-t border-slate-100 pt-4">
      <p className="text-xs text-slate-500" aria-live="polite">
        {summary}
      </p>
      <div className="flex gap-2">
        <Button variant="secondary" size="sm" disabled={!onPrevious} onClick={() => onPrevious?.()}>
          Previous
        </Button>
        <Button variant="secondary" size="sm" disabled={!onNext} loading={loading} onClick={() => onNext?.()}>
          Next
        </Button>
      </div>
    </nav>
  );
}

/**
 * Every item of the batch, a page at a time, in submitted order; or only those in one state, or those
 * a search names (on the server, so every page of a 10,000-item batch is searched). A page starts
 * where the previous one said the next begins, so the starts of the pages seen are kept for Previous.
 */
export function BatchResults({
  batchId,
  running,
  total,
  processed,
  succeeded,
  failed,
}: {
  batchId: string;
  running: boolean;
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
}) {
  const { mode } = useMode();
  const trpc = useTRPC();
  const qc = useQueryClient();
  // The counters moved, so rows did too: a page of failures has no pending row to keep it polling.
  useEffect(() => {
    void qc.invalidateQueries(trpc.batches.results.queryFilter({ mode, batchId }));
  }, [qc, trpc, mode, batchId, processed]);
  const [view, setView] = useState<View>("ALL");
  const [search, setSearch] = useState("");
  const [starts, setStarts] = useState<number[]>([0]);
  const size = BATCH_RESULTS_PAGE_SIZE;
  const from = starts[starts.length - 1]!;
  const results = useQuery({
    ...trpc.batches.results.queryOptions(
      { mode, batchId, from, limit: size, ...(view === "ALL" ? {} : { status: view }), ...(search ? { search } : {}) },
      {
        // Items on this page still running fill in as their chunk finishes; failures appear as they happen.
        refetchInterval: (q) => (running || q.state.data?.items.some((i) => i.status === "PENDING") ? 1500 : false),
      },
    ),
    placeholderData: keepPreviousData,
  });
  const counts: Record<View, number> = { ALL: total, SUCCEEDED: succeeded, FAILED: failed, PENDING: total - processed };
  const pick = (v: View, text: string) => {
    setView(v);
    setSearch(text);
    setStarts([0]);
  };

  const controls = (
    <div className="mb-4 flex flex-wrap items-start justify-between gap-3">
      <ViewSwitch view={view} counts={counts} onChange={(v) => pick(v, search)} />
      <SearchBox kind={results.data?.kind ?? "PAN"} search={search} onSearch={(text) => pick(view, text)} />
    </div>
  );
  if (results.isLoading) return <LoadingState label="Loading results…" />;
  if (results.isError && !results.data) return <ErrorState message={errorInfo(results.error).message} onRetry={() => void results.refetch()} />;
  const data = results.data!;
  const items = data.items;
  const page = starts.length - 1;
  const first = page * size;
  const span = `${n(items.length ? first + 1 : 0)}–${n(first + items.length)}`;
  // A search's matches are not counted ahead: the page says how far it got, and Next whether more follow.
  const count = counts[view];
  const summary = search
    ? items.length === 0
      ? `No matches · page ${n(page + 1)}`
      : `Matches ${span} · page ${n(page + 1)}${data.next === null ? "" : " · more on the next page"}`
    : `${VIEW_NOUNS[view]} ${span} of ${n(count)} · page ${n(page + 1)} of ${n(Math.max(1, Math.ceil(count / size)))}`;

  return (
    <>
      {controls}
      {items.length === 0 ? (
        <NoItems kind={data.kind} view={view} search={search} running={running} total={total} />
      ) : (
        <>
          <ResultsTable items={items} kind={data.kind} />
          <ResultsList items={items} kind={data.kind} />
        </>
      )}
      <Pager
        summary={summary}
        onPrevious={page === 0 ? null : () => setStarts((s) => (s.length > 1 ? s.slice(0, -1) : s))}
        onNext={data.next === null ? null : () => setStarts((s) => [...s, data.next!])}
        loading={results.isFetching && results.isPlaceholderData}
      />
    </>
  );
}
