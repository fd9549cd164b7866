"use client";

import Link from "next/link";
import { createContext, useContext } from "react";
import { useMode } from "@/components/dashboard/mode";
import { CopyButton, EmptyState, ErrorState, LoadingState, PageHeader, cx } from "@/components/ui";
import { errorInfo } from "@/components/trpc/client";

// Pieces every dashboard detail page (payment, batch, KYC check, request log) is built from.

/** The link above a detail page back to its list, e.g. "← Payments". */
export function BackLink({ href, children }: { href: string; children: React.ReactNode }) {
  return (
    <Link href={href} className="mb-3 inline-flex items-center gap-1 text-sm text-brand-600 hover:underline">
      <span aria-hidden="true">←</span> {children}
    </Link>
  );
}

// Tailwind finds classes by their full text, so each label column width is written out whole.
const LABEL_COLUMNS = {
  "9rem": "sm:grid-cols-[9rem_minmax(0,1fr)]",
  "10rem": "sm:grid-cols-[10rem_minmax(0,1fr)]",
} as const;

type LabelWidth = keyof typeof LABEL_COLUMNS;

const LabelWidthContext = createContext<LabelWidth>("10rem");

/** A detail page's list of facts: labels in a column of `labelWidth` on wide screens, above their values on phones. */
export function DetailList({
  labelWidth,
  className = "-my-2.5 divide-y divide-slate-100",
  children,
}: {
  labelWidth: LabelWidth;
  className?: string;
  children: React.ReactNode;
}) {
  return (
    <LabelWidthContext.Provider value={labelWidth}>
      <dl className={className}>{children}</dl>
    </LabelWidthContext.Provider>
  );
}

/** One label and its value in a DetailList. */
export function DetailRow({ label, children }: { label: string; children: React.ReactNode }) {
  const labelWidth = useContext(LabelWidthContext);
  return (
    <div className={cx("grid gap-1 py-2.5", LABEL_COLUMNS[labelWidth], "sm:gap-4")}>
      <dt className="text-sm text-slate-500">{label}</dt>
      <dd className="min-w-0 break-words text-sm text-slate-900">{children}</dd>
    </div>
  );
}

/** A DetailRow of the record's id, in full, with a Copy button. */
export function IdRow({ label, id }: { label: string; id: string }) {
  return (
    <DetailRow label={label}>
      <span className="inline-flex flex-wrap items-center gap-2">
        <code className="break-all font-mono text-[13px]">{id}</code>
        <CopyButton value={id} label="Copy" />
      </span>
    </DetailRow>
  );
}

/** A detail page header's line of facts under the title: a status badge, the id, when. */
export function HeaderFacts({ children }: { children: React.ReactNode }) {
  return <span className="inline-flex flex-wrap items-center gap-2">{children}</span>;
}

/** A detail row's value when there is none. */
export const noValue = <span className="text-slate-400">—</span>;

const codeOf = (err: unknown) => (err as { data?: { code?: string } } | null)?.data?.code;

/** A detail query's retry rule: an id that is not there (or not valid) will not appear on a retry. */
export const retryUnlessMissing = (count: number, err: unknown) => !["NOT_FOUND", "BAD_REQUEST"].includes(codeOf(err) ?? "") && count < 1;

/** The detail page while its record loads. */
export function DetailLoading({ back, label }: { back: React.ReactNode; label: string }) {
  return (
    <>
      {back}
      <LoadingState label={label} />
    </>
  );
}

/** The detail page when its record cannot be shown: not in this mode (or no such id), or an error to retry. */
export function DetailUnavailable({
  back,
  title,
  error,
  onRetry,
  notFound,
}: {
  back: React.ReactNode;
  title: string;
  error: unknown;
  onRetry: () => void;
  notFound: { title: string; children: React.ReactNode };
}) {
  const code = codeOf(error);
  return (
    <>
      {back}
      <PageHeader title={title} />
      {code === "NOT_FOUND" || code === "BAD_REQUEST" ? (
        <EmptyState title={notFound.title}>{notFound.children}</EmptyState>
      ) : (
        <ErrorState message={errorInfo(error).message} onRetry={onRetry} />
      )}
    </>
  );
}

/** The detail page until its record is there: loading, then not found (or an error to retry). */
export function DetailPending({
  query,
  back,
  label,
  title,
  notFound,
}: {
  query: { isLoading: boolean; error: unknown; refetch: () => unknown };
  back: React.ReactNode;
  /** Shown while loading. */
  label: string;
  title: string;
  notFound: { title: string; children: React.ReactNode };
}) {
  if (query.isLoading) return <DetailLoading back={back} label={label} />;
  return <DetailUnavailable back={back} title={title} error={query.error} onRetry={() => void query.refetch()} notFound={notFound} />;
}

/** What to try when a record is not found: the other mode (when Live is on), or the list. */
export function NotFoundHint({ noun, listHref }: { noun: string; listHref: string }) {
  const { mode, liveEnabled } = useMode();
  return (
    <p>
      {liveEnabled ? `It may be a ${mode === "live" ? "sandbox" : "live"} ${noun}: switch mode at the top of the page, or ` : "Check the id, or "}
      <Link href={listHref} className="text-brand-600 hover:underline">
        go back to the list
      </Link>
      .
    </p>
  );
}
