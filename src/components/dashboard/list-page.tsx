"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import type { z } from "zod";
import { Button, Card, EmptyState, ErrorState, LoadMoreFooter, LoadingState, Notice, cx } from "@/components/ui";
import { errorInfo } from "@/lib/trpc/client";

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
  return {
    filters,
    urlErrors: errors,
    queryKey,
    hasFilters: Object.values(filters).some(Boolean),
    apply: (f: F) => router.push(`${pathname}${toQuery(f)}`),
    clear: () => router.push(pathname),
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
  const [draft, setDraft] = useState<D>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = (k: keyof D) => (e: React.ChangeEvent<HTMLInputElement>) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  const setValue = (k: keyof D) => (v: string) => setDraft((d) => ({ ...d, [k]: v }));
  function submit(e: React.FormEvent) {
    e.preventDefault();
    const parsed = schema.safeParse(Object.fromEntries(Object.entries(draft).filter(([, v]) => v.trim() !== "")));
    if (!parsed.success) return setErrors(fieldErrors(parsed.error.issues));
    setErrors({});
    onApply(parsed.data);
  }
  return { draft, errors, set, setValue, submit };
}

/** Field errors of a failed zod parse, by first path segment, for a form. */
export function fieldErrors(issues: { path: PropertyKey[]; message: string }[]): Record<string, string> {
  return Object.fromEntries(issues.map((i) => [String(i.path[0] ?? "form"), i.message]));
}

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
