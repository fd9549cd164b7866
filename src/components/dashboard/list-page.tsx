"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useMemo, useState } from "react";
import type { z } from "zod";
import { useMode } from "@/components/dashboard/mode";
import { CsvDownloadButton } from "@/components/dashboard/csv-download-button";
import { DateRangeFields, SelectField } from "@/components/dashboard/filter-fields";
import { DataTable, PhoneList, type Column } from "@/components/dashboard/list-rows";
import { Button, Card, EmptyState, ErrorState, Field, LoadMoreFooter, LoadingState, Notice, PageHeader, cx } from "@/components/ui";
import { PAGE_SIZE } from "@/lib/schemas/logs";
import { errorInfo } from "@/components/trpc/client";
import { fieldErrors, useFormFields } from "@/components/ui/form";

/**
 * The skeleton every dashboard list shares: filters in the URL, an infinite query, loading, error
 * and empty states, a table on wide screens and a list on phones, and a "Load more" footer.
 */

/** Filters read from and written to the URL; `queryKey` changes whenever they do. */
export function useUrlFilters<F extends Record<string, unknown>>(
  fromQuery: (q: URLSearchParams) => { filters: F; errors: Record<string, string> },
  toQuery: (f: F) => string,
) {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const queryKey = searchParams.toString();
  const { filters, errors } = useMemo(() => fromQuery(new URLSearchParams(queryKey)), [fromQuery, queryKey]);
  const { mode } = useMode();
  return {
    mode,
    modeName: mode === "live" ? "live" : "sandbox",
    /** The list query's input: this mode, the filters in effect, a page of PAGE_SIZE. */
    input: { mode, ...filters, limit: PAGE_SIZE },
    filters,
    urlErrors: errors,
    queryKey,
    hasFilters: Object.values(filters).some(Boolean),
    apply: (f: F) => router.push(`${pathname}${toQuery(f)}`),
    clear: () => router.push(pathname),
  };
}

export type UrlFilters<F extends Record<string, unknown>> = ReturnType<typeof useUrlFilters<F>>;

/** The next page's cursor of a list query (`infiniteQueryOptions(input, nextPage)`). */
export const nextPage = { getNextPageParam: (last: { nextCursor?: string | null }) => last.nextCursor ?? undefined };

/** A list view that reads its filters from the URL: useSearchParams needs a Suspense boundary above it. */
export function withUrlFilters(loadingLabel: string, View: () => React.ReactNode) {
  return function UrlFilteredView() {
    return (
      <Suspense fallback={<LoadingState label={loadingLabel} />}>
        <View />
      </Suspense>
    );
  };
}

/** Parameters of a shared link that were not valid, so the reader knows why they are not applied. */
export function InvalidFiltersNotice({ errors }: { errors: Record<string, string> }) {
  if (Object.keys(errors).length === 0) return null;
  return (
    <div className="mb-4">
      <Notice tone="warning">Some filters in this link were not valid and are ignored: {Object.values(errors).join("; ")}.</Notice>
    </div>
  );
}

/**
 * A filter form that folds away behind a "Filters (n)" button on phones, so results come first, and
 * sits open above the list on wide screens.
 */
export function FilterPanel({
  id,
  label,
  activeCount,
  onSubmit,
  onClear,
  hint,
  children,
}: {
  id: string;
  label: string;
  activeCount: number;
  onSubmit: (e: React.FormEvent) => void;
  onClear: () => void;
  hint?: React.ReactNode;
  children: React.ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const clear = (
    <Button type="button" variant="ghost" onClick={onClear}>
      Clear filters
    </Button>
  );
  return (
    <div className="mb-4">
      <div className="flex flex-wrap items-center gap-2 lg:hidden">
        <Button type="button" variant="secondary" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)}>
          {open ? "Hide filters" : activeCount ? `Filters (${activeCount})` : "Filters"}
        </Button>
        {activeCount > 0 && !open && clear}
      </div>
      <form
        id={id}
        onSubmit={onSubmit}
        noValidate
        aria-label={label}
        className={cx("mt-3 rounded-lg border border-slate-200 bg-white p-4 lg:mt-0 lg:block", open ? "block" : "hidden")}
      >
        {children}
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <Button type="submit">Apply filters</Button>
          {activeCount > 0 && clear}
          {hint && <p className="text-xs text-slate-500">{hint}</p>}
        </div>
      </form>
    </div>
  );
}

/**
 * A filter form's draft: text fields seeded from the filters in effect, validated with the list's
 * schema on submit (empty fields dropped), with errors by field.
 */
export function useFilterDraft<D extends Record<string, string>, F>(initial: D, schema: z.ZodType<F>, onApply: (f: F) => void) {
  const form = useFormFields<D>(initial);
  function submit(e: React.FormEvent) {
    e.preventDefault();
    const data = form.check(schema, Object.fromEntries(Object.entries(form.values).filter(([, v]) => v.trim() !== "")));
    if (data !== undefined) onApply(data);
  }
  return { draft: form.values, errors: form.errors, set: (k: keyof D & string) => form.bind(k).onChange, setValue: form.setValue, submit };
}

export { fieldErrors };

export interface ListQuery {
  isLoading: boolean;
  isError: boolean;
  isRefetching: boolean;
  isFetchingNextPage: boolean;
  hasNextPage: boolean;
  isFetchNextPageError: boolean;
  data: unknown;
  error: unknown;
  refetch: () => unknown;
  fetchNextPage: () => unknown;
}

/** The header's Refresh button for a list query. */
export function RefreshButton({ query }: { query: ListQuery }) {
  return (
    <Button variant="secondary" onClick={() => void query.refetch()} loading={query.isRefetching && !query.isFetchingNextPage} disabled={query.isLoading}>
      Refresh
    </Button>
  );
}

/** The list's card: loading, error, the two empty states, then the table (wide) or list (phone) and the footer. */
export function ListBody<T>({
  query,
  items,
  loadingLabel,
  filtered,
  emptyFiltered,
  emptyNone,
  table,
  list,
  noun,
  note,
}: {
  query: ListQuery;
  items: T[];
  loadingLabel: string;
  /** True when filters are applied: the empty state then offers to clear them. */
  filtered: boolean;
  emptyFiltered: { title: string; clearLabel?: string; onClear: () => void };
  emptyNone: { title: string; children: React.ReactNode };
  table: (items: T[]) => React.ReactNode;
  list: (items: T[]) => React.ReactNode;
  noun: [singular: string, plural: string];
  note?: React.ReactNode;
}) {
  return (
    <Card>
      {query.isLoading ? (
        <LoadingState label={loadingLabel} />
      ) : query.isError && !query.data ? (
        <ErrorState message={errorInfo(query.error).message} onRetry={() => void query.refetch()} />
      ) : items.length === 0 ? (
        filtered ? (
          <EmptyState title={emptyFiltered.title}>
            <Button variant="secondary" className="mt-3" onClick={emptyFiltered.onClear}>
              {emptyFiltered.clearLabel ?? "Clear filters"}
            </Button>
          </EmptyState>
        ) : (
          <EmptyState title={emptyNone.title}>{emptyNone.children}</EmptyState>
        )
      ) : (
        <>
          <div className="hidden lg:block">{table(items)}</div>
          <div className="lg:hidden">{list(items)}</div>
          <LoadMoreFooter count={items.length} noun={noun} query={query} note={note} />
        </>
      )}
    </Card>
  );
}

/** One field of a declared filter form: a select, a text field (exact ids, no spell check), or the IST date range. */
export type FilterField =
  | { select: string; name?: string; label: string; options: { value: string; label: string }[] }
  | { text: string; label: string; placeholder: string; autoComplete?: string }
  | "dates";

/** A list's filter form, declared: its fields, its layout on wide screens, and the schema it is checked with. */
export interface FilterSpec<F> {
  id: string;
  label: string;
  hint: string;
  /** The grid's columns on wide screens (lg:grid-cols-…). */
  columns: string;
  fields: FilterField[];
  schema: z.ZodType<F>;
}

const fieldKeys = (f: FilterField) => (f === "dates" ? ["from", "to"] : ["select" in f ? f.select : f.text]);

/** The filter form of a FilterSpec, seeded from the filters in effect. */
function FilterForm<F extends Record<string, unknown>>({ spec, page }: { spec: FilterSpec<F>; page: UrlFilters<F> }) {
  const initial = Object.fromEntries(spec.fields.flatMap(fieldKeys).map((k) => [k, String(page.filters[k] ?? "")]));
  const { draft, errors, set, setValue, submit } = useFilterDraft<Record<string, string>, F>(initial, spec.schema, page.apply);
  return (
    <FilterPanel
      id={spec.id}
      label={spec.label}
      activeCount={Object.values(page.filters).filter(Boolean).length}
      onSubmit={submit}
      onClear={page.clear}
      hint={spec.hint}
    >
      <div className={cx("grid grid-cols-2 gap-3", spec.columns)}>
        {spec.fields.map((f) =>
          f === "dates" ? (
            <DateRangeFields key="dates" from={draft.from} to={draft.to} errors={errors} set={set} />
          ) : "select" in f ? (
            <SelectField
              key={f.select}
              className="col-span-2 lg:col-span-1"
              label={f.label}
              name={f.name ?? f.select}
              value={draft[f.select]}
              onChange={setValue(f.select)}
              options={f.options}
              error={errors[f.select]}
            />
          ) : (
            <Field
              key={f.text}
              className="col-span-2 lg:col-span-1"
              label={f.label}
              name={f.text}
              placeholder={f.placeholder}
              value={draft[f.text]}
              onChange={set(f.text)}
              error={errors[f.text]}
              spellCheck={false}
              autoComplete={f.autoComplete}
            />
          ),
        )}
      </div>
    </FilterPanel>
  );
}

/** How a list's rows show: the table's caption (also the phone list's label), columns, key, the record's page, and a phone block. */
export interface RowsSpec<T> {
  caption: string;
  columns: Column<T>[];
  rowKey: (row: T) => string;
  href?: (row: T) => string;
  testId?: string;
  card: (row: T) => React.ReactNode;
}

/** What a FilteredList shows: its filters, query, empty states and rows. */
export type FilteredListProps<F extends Record<string, unknown>, T> = {
  page: UrlFilters<F>;
  filters?: FilterSpec<F>;
  filterForm?: React.ReactNode;
  query: ListQuery & { data?: { pages: { items: T[] }[] } };
  /** The empty list's title with filters applied (and its button's label), and without. */
  empty: { filtered: string; clearLabel?: string; none: string; children: React.ReactNode };
  rows: RowsSpec<T>;
} & Pick<Parameters<typeof ListBody<T>>[0], "loadingLabel" | "noun" | "note">;

/**
 * Below a list page's header: its filters (a declared form, or `filterForm` of its own), a notice for
 * filters of a link that were not valid, and the list's card with its rows.
 */
export function FilteredList<F extends Record<string, unknown>, T>({
  page,
  filters,
  filterForm,
  query,
  empty,
  rows: { card, ...rows },
  ...body
}: FilteredListProps<F, T>) {
  const items = query.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      {/* Re-mounted when the URL changes so the form always shows the filters in effect. */}
      {filters ? <FilterForm key={page.queryKey} spec={filters} page={page} /> : filterForm}
      <InvalidFiltersNotice errors={page.urlErrors} />
      <ListBody
        query={query}
        items={items}
        filtered={page.hasFilters}
        emptyFiltered={{ title: empty.filtered, clearLabel: empty.clearLabel, onClear: page.clear }}
        emptyNone={{ title: empty.none, children: empty.children }}
        table={(items) => <DataTable {...rows} rows={items} />}
        list={(items) => (
          <PhoneList {...rows} label={rows.caption} rows={items}>
            {card}
          </PhoneList>
        )}
        {...body}
      />
    </>
  );
}

/** A list page's header buttons: its CSV export, if it has one, and Refresh. */
export function ListActions({ query, exportCsv }: { query: ListQuery; exportCsv?: { url: string; fallbackName: string } }) {
  return exportCsv ? (
    <div className="flex flex-wrap gap-2">
      <CsvDownloadButton url={exportCsv.url} fallbackName={exportCsv.fallbackName} label="Export CSV" action="Export" />
      <RefreshButton query={query} />
    </div>
  ) : (
    <RefreshButton query={query} />
  );
}

/**
 * A dashboard list page: its header (title, description, the CSV export if any, Refresh), what stands
 * between the header and the list (`children`), and the FilteredList.
 */
export function ListPage<F extends Record<string, unknown>, T>({
  title,
  description,
  exportCsv,
  children,
  ...list
}: FilteredListProps<F, T> & {
  title: string;
  description: string;
  exportCsv?: { url: string; fallbackName: string };
  children?: React.ReactNode;
}) {
  return (
    <>
      <PageHeader title={title} description={description} actions={<ListActions query={list.query} exportCsv={exportCsv} />} />
      {children}
      <FilteredList {...list} />
    </>
  );
}

/** The link to the API docs that empty lists end with. */
export function ApiDocsLink() {
  return (
    <Link href="/docs" className="text-brand-600 hover:underline">
      API docs
    </Link>
  );
}
