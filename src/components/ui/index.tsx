"use client";

import { createContext, useCallback, useContext, useEffect, useId, useRef, useState } from "react";
import { formatIst } from "@/lib/ist";
import { HorizontalScroll } from "./scroll-area";

export { HorizontalScroll, MiddleTruncate } from "./scroll-area";

export function cx(...parts: (string | false | null | undefined)[]) {
  return parts.filter(Boolean).join(" ");
}

type ButtonProps = React.ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: "primary" | "secondary" | "danger" | "ghost";
  size?: "sm" | "md";
  loading?: boolean;
};

export function Button({ variant = "primary", size = "md", loading, className, children, disabled, ...rest }: ButtonProps) {
  const styles = {
    primary: "bg-brand-600 text-white hover:bg-brand-700 disabled:bg-brand-600/60",
    secondary: "border border-slate-300 bg-white text-slate-800 hover:bg-slate-50 disabled:text-slate-400",
    danger: "bg-red-600 text-white hover:bg-red-700 disabled:bg-red-600/60",
    ghost: "text-slate-700 hover:bg-slate-100",
  }[variant];
  return (
    <button
      className={cx(
        "inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors disabled:cursor-not-allowed",
        size === "sm" ? "px-2.5 py-1.5 text-xs" : "px-4 py-2 text-sm",
        styles,
        className,
      )}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      {...rest}
    >
      {loading && <Spinner className="h-4 w-4" />}
      {children}
    </button>
  );
}

export function Spinner({ className }: { className?: string }) {
  return (
    <svg className={cx("animate-spin", className ?? "h-5 w-5")} viewBox="0 0 24 24" fill="none" aria-hidden="true">
      <circle cx="12" cy="12" r="10" stroke="currentColor" strokeOpacity="0.25" strokeWidth="4" />
      <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
    </svg>
  );
}

type FieldProps = React.InputHTMLAttributes<HTMLInputElement> & { label: string; error?: string; hint?: string };

/**
 * A form control with its label above and its error (or else its hint) below, tied to it by id:
 * `children` gets the control's id, aria attributes and classes.
 */
export function FieldFrame({
  label,
  error,
  hint,
  className,
  id,
  children,
}: {
  label: string;
  error?: string;
  hint?: string;
  className?: string;
  id?: string;
  children: (control: { id: string; "aria-invalid"?: true; "aria-describedby"?: string; className: string }) => React.ReactNode;
}) {
  const autoId = useId();
  const controlId = id ?? autoId;
  return (
    <div className={className}>
      <label htmlFor={controlId} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      {children({
        id: controlId,
        "aria-invalid": error ? true : undefined,
        "aria-describedby": error ? `${controlId}-error` : hint ? `${controlId}-hint` : undefined,
        className: cx(
          "mt-1 block w-full rounded-md border bg-white px-3 py-2 text-sm shadow-sm outline-none focus:ring-2",
          error ? "border-red-500 focus:ring-red-200" : "border-slate-300 focus:border-brand-500 focus:ring-brand-100",
        ),
      })}
      {error ? (
        <p id={`${controlId}-error`} className="mt-1 text-xs text-red-700">
          {error}
        </p>
      ) : hint ? (
        <p id={`${controlId}-hint`} className="mt-1 text-xs text-slate-500">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

export function Field({ label, error, hint, className, id, ...rest }: FieldProps) {
  return (
    <FieldFrame label={label} error={error} hint={hint} className={className} id={id}>
      {(control) => <input {...control} {...rest} />}
    </FieldFrame>
  );
}

export function Card({
  title,
  description,
  actions,
  children,
  className,
}: {
  title?: string;
  description?: React.ReactNode;
  actions?: React.ReactNode;
  children?: React.ReactNode;
  className?: string;
}) {
  return (
    <section className={cx("rounded-lg border border-slate-200 bg-white", className)}>
      {(title || actions) && (
        <header className="flex flex-wrap items-start justify-between gap-3 border-b border-slate-100 px-4 py-3 sm:px-5">
          <div>
            {title && <h2 className="text-sm font-semibold text-slate-900">{title}</h2>}
            {description && <p className="mt-0.5 text-sm text-slate-500">{description}</p>}
          </div>
          {actions}
        </header>
      )}
      <div className="px-4 py-4 sm:px-5">{children}</div>
    </section>
  );
}

export function PageHeader({ title, description, actions }: { title: string; description?: React.ReactNode; actions?: React.ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-3">
      <div>
        <h1 className="text-xl font-semibold tracking-tight text-slate-900">{title}</h1>
        {description && <p className="mt-1 text-sm text-slate-500">{description}</p>}
      </div>
      {actions}
    </div>
  );
}

export type Tone = "slate" | "green" | "red" | "amber" | "blue";

export function Badge({ tone = "slate", children }: { tone?: Tone; children: React.ReactNode }) {
  const tones = {
    slate: "bg-slate-100 text-slate-700",
    green: "bg-green-100 text-green-800",
    red: "bg-red-100 text-red-800",
    amber: "bg-amber-100 text-amber-800",
    blue: "bg-brand-100 text-brand-700",
  };
  return <span className={cx("inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium", tones[tone])}>{children}</span>;
}

/** A status of a known set as a badge, in its tone and by its label; any other shows as it is, in slate. */
export function ToneBadge({ status, tones, labels = {} }: { status: string; tones: Record<string, Tone>; labels?: Record<string, string> }) {
  const known = Object.hasOwn(tones, status);
  return <Badge tone={known ? tones[status] : "slate"}>{(known && labels[status]) || status}</Badge>;
}

export function LoadingState({ label = "Loading…" }: { label?: string }) {
  return (
    <div role="status" className="flex items-center gap-2 py-8 text-sm text-slate-500">
      <Spinner className="h-4 w-4" /> {label}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="rounded-md border border-dashed border-slate-300 px-4 py-10 text-center">
      <p className="text-sm font-medium text-slate-700">{title}</p>
      {children && <div className="mt-1 text-sm text-slate-500">{children}</div>}
    </div>
  );
}

export function ErrorState({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div role="alert" className="flex flex-wrap items-center justify-between gap-3 rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
      <span>{message}</span>
      {onRetry && (
        <Button variant="secondary" size="sm" onClick={onRetry}>
          Try again
        </Button>
      )}
    </div>
  );
}

export function Notice({ tone = "info", children }: { tone?: "info" | "warning" | "success" | "error"; children: React.ReactNode }) {
  const tones = {
    info: "border-brand-100 bg-brand-50 text-brand-700",
    warning: "border-amber-200 bg-amber-50 text-amber-900",
    success: "border-green-200 bg-green-50 text-green-800",
    error: "border-red-200 bg-red-50 text-red-800",
  };
  return (
    <div role={tone === "error" ? "alert" : "status"} className={cx("rounded-md border px-4 py-3 text-sm", tones[tone])}>
      {children}
    </div>
  );
}

export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      type="button"
      variant="secondary"
      size="sm"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(value);
        } catch {
          const ta = document.createElement("textarea");
          ta.value = value;
          document.body.appendChild(ta);
          ta.select();
          document.execCommand("copy");
          ta.remove();
        }
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      }}
      aria-label={`${label} to clipboard`}
    >
      {copied ? "Copied" : label}
    </Button>
  );
}

/** A modal built on <dialog>: focus trapping and Escape come from the browser. */
/** A dialog's last row: Cancel (or `cancelLabel`) that closes it, then the dialog's own buttons. */
export function DialogActions({
  onCancel,
  cancelLabel = "Cancel",
  cancelDisabled,
  children,
}: {
  onCancel: () => void;
  cancelLabel?: string;
  cancelDisabled?: boolean;
  children: React.ReactNode;
}) {
  return (
    <div className="flex flex-wrap justify-end gap-2">
      <Button type="button" variant="secondary" onClick={onCancel} disabled={cancelDisabled}>
        {cancelLabel}
      </Button>
      {children}
    </div>
  );
}

/** The ref of a <dialog> that shows as a modal while `open`. */
export function useModal(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return ref;
}

export function Dialog({ open, onClose, title, children }: { open: boolean; onClose: () => void; title: string; children: React.ReactNode }) {
  const ref = useModal(open);
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-label={title}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg border border-slate-200 p-0 shadow-xl backdrop:bg-slate-900/40"
    >
      <div className="border-b border-slate-100 px-5 py-3">
        <h2 className="text-base font-semibold">{title}</h2>
      </div>
      <div className="px-5 py-4">{open && children}</div>
    </dialog>
  );
}

type Toast = { id: number; tone: "success" | "error"; message: string };
const ToastContext = createContext<(tone: Toast["tone"], message: string) => void>(() => undefined);

export function ToastProvider({ children }: { children: React.ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const push = useCallback((tone: Toast["tone"], message: string) => {
    const id = Date.now() + Math.random();
    setToasts((t) => [...t, { id, tone, message }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), 5000);
  }, []);
  return (
    <ToastContext.Provider value={push}>
      {children}
      <div aria-live="polite" className="fixed bottom-4 right-4 z-50 flex max-w-sm flex-col gap-2">
        {toasts.map((t) => (
          <div
            key={t.id}
            role="status"
            className={cx("rounded-md px-4 py-3 text-sm shadow-lg", t.tone === "success" ? "bg-slate-900 text-white" : "bg-red-700 text-white")}
          >
            {t.message}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast() {
  return useContext(ToastContext);
}

export function Table({ head, children, caption }: { head: React.ReactNode; children: React.ReactNode; caption?: string }) {
  return (
    <HorizontalScroll label={caption} className="-mx-4 sm:mx-0">
      <table className="min-w-full divide-y divide-slate-200 text-sm">
        {caption && <caption className="sr-only">{caption}</caption>}
        <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500">{head}</thead>
        <tbody className="divide-y divide-slate-100 bg-white">{children}</tbody>
      </table>
    </HorizontalScroll>
  );
}

export function Th({ children, className }: { children?: React.ReactNode; className?: string }) {
  return (
    <th scope="col" className={cx("whitespace-nowrap px-4 py-2", className)}>
      {children}
    </th>
  );
}

export function Td({ children, className }: { children?: React.ReactNode; className?: string }) {
  return <td className={cx("whitespace-nowrap px-4 py-2.5 text-slate-700", className)}>{children}</td>;
}

/** A time standing alone in a sentence: "12 Mar 2026, 14:05:09 IST" (IST, like every dashboard time). */
export function formatDateTime(d: Date | string | null | undefined): string {
  if (!d) return "—";
  return `${formatIst(d)} IST`;
}

/** The footer of a cursor-paginated list: how many are shown, and Load more (or its error). */
export function LoadMoreFooter({
  count,
  noun,
  query,
  note,
}: {
  count: number;
  noun: [singular: string, plural: string];
  /** Extra text after the count, e.g. a legend. */
  note?: React.ReactNode;
  query: { hasNextPage: boolean; isFetchNextPageError: boolean; isFetchingNextPage: boolean; error: unknown; fetchNextPage: () => unknown };
}) {
  const message = (query.error as { message?: string } | null)?.message ?? "Could not load more.";
  return (
    <div className="mt-4 flex flex-wrap items-center justify-between gap-3 border-t border-slate-100 pt-4">
      <p className="text-xs text-slate-500" aria-live="polite">
        {count} {count === 1 ? noun[0] : noun[1]} shown{query.hasNextPage ? "" : " · end of results"}
        {note}
      </p>
      {query.isFetchNextPageError ? (
        <ErrorState message={message} onRetry={() => void query.fetchNextPage()} />
      ) : (
        query.hasNextPage && (
          <Button variant="secondary" loading={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
            Load more
          </Button>
        )
      )}
    </div>
  );
}

/** A row of buttons of which one is chosen (aria-pressed), for switching between a few views or sources. */
export function Segmented<T extends string>({
  label,
  options,
  value,
  onChange,
  className,
}: {
  /** What the choice is about, for assistive tech. */
  label: string;
  options: readonly { value: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
  className?: string;
}) {
  return (
    <div role="group" aria-label={label} className={cx("inline-flex rounded-md border border-slate-300 bg-white p-0.5 text-sm", className)}>
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          aria-pressed={value === o.value}
          onClick={() => onChange(o.value)}
          className={cx("rounded px-3 py-1", value === o.value ? "bg-slate-800 font-medium text-white" : "text-slate-700 hover:bg-slate-100")}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}
