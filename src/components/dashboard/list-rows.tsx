"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { Table, Td, Th, cx } from "@/components/ui";

// The rows of a dashboard list: a table on wide screens, a list of blocks on phones (list-page.tsx
// shows one or the other).

/** A column of a DataTable: its heading, and the cell of a row. */
export interface Column<T> {
  head: string;
  cell: (row: T) => React.ReactNode;
  /** Classes of the cell (and, for `text-right`, of the heading). */
  className?: string;
  /** Classes of one row's cell, after `className`. */
  cellClass?: (row: T) => string | false | undefined;
}

/**
 * A table of rows (a list's, on wide screens). With `href`, a row is a mouse shortcut to the record's
 * page; a link in one of its cells is the keyboard path to the same page.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  href,
  testId,
  rowClass,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string | number;
  href?: (row: T) => string;
  testId?: string;
  /** Classes of a row (e.g. one that needs attention). */
  rowClass?: (row: T) => string | false | undefined;
}) {
  const router = useRouter();
  return (
    <Table
      caption={caption}
      head={
        <tr>
          {columns.map((c) => (
            <Th key={c.head} className={c.className?.includes("text-right") ? "text-right" : undefined}>
              {c.head}
            </Th>
          ))}
        </tr>
      }
    >
      {rows.map((row) => (
        <tr
          key={rowKey(row)}
          data-testid={testId}
          className={cx(href && "cursor-pointer hover:bg-slate-50", rowClass?.(row)) || undefined}
          onClick={
            href &&
            ((e) => {
              if ((e.target as HTMLElement).closest("a,button")) return;
              router.push(href(row));
            })
          }
        >
          {columns.map((c) => (
            <Td key={c.head} className={cx(c.className, c.cellClass?.(row)) || undefined}>
              {c.cell(row)}
            </Td>
          ))}
        </tr>
      ))}
    </Table>
  );
}

/** A list on phones: one block per row, the whole block a link to the record's page when `href` is given. */
export function PhoneList<T>({
  label,
  rows,
  rowKey,
  href,
  testId,
  children,
}: {
  label: string;
  rows: T[];
  rowKey: (row: T) => string;
  href?: (row: T) => string;
  testId?: string;
  children: (row: T) => React.ReactNode;
}) {
  return (
    <ul className="-mx-4 divide-y divide-slate-100 sm:mx-0" aria-label={label}>
      {rows.map((row) => (
        <li key={rowKey(row)} data-testid={testId} className={href ? undefined : "px-4 py-3 sm:px-0"}>
          {href ? (
            <Link href={href(row)} className="block px-4 py-3 hover:bg-slate-50 sm:px-0">
              {children(row)}
            </Link>
          ) : (
            children(row)
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * A row of a PhoneList: a top line (`title` and `aside` at either end, or a `head` of its own), an
 * id-like `line` in mono, a `body`, small `meta` facts side by side, a `note`, and a faint `foot` id.
 */
export function PhoneCard({
  title,
  aside,
  head,
  line,
  body,
  meta,
  note,
  foot,
}: {
  title?: React.ReactNode;
  aside?: React.ReactNode;
  head?: React.ReactNode;
  line?: string;
  body?: React.ReactNode;
  meta: React.ReactNode;
  note?: React.ReactNode;
  foot?: string;
}) {
  return (
    <>
      {head ? (
        <div className="flex items-center gap-2">{head}</div>
      ) : (
        <div className="flex items-center justify-between gap-3">
          {title}
          {aside}
        </div>
      )}
      {line !== undefined && <div className="mt-1 truncate font-mono text-xs text-slate-800">{line}</div>}
      {body}
      <div className={cx(line !== undefined ? "mt-0.5" : "mt-1", "flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-slate-500")}>{meta}</div>
      {note && <div className="mt-0.5 break-words text-xs text-slate-500">{note}</div>}
      {foot !== undefined && <div className="mt-0.5 truncate font-mono text-[11px] text-slate-400">{foot}</div>}
    </>
  );
}
