"use client";

import { useId } from "react";
import { Field, cx } from "@/components/ui";

// Fields the dashboard's filter and search forms share.

/** A labelled native select, styled like Field. */
export function SelectField({
  label,
  value,
  onChange,
  options,
  error,
  className,
  name,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: { value: string; label: string }[];
  error?: string;
  className?: string;
  name?: string;
}) {
  const id = useId();
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <select
        id={id}
        name={name}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        className={cx(
          "mt-1 block w-full rounded-md border bg-white px-3 py-2 text-sm shadow-sm outline-none focus:ring-2",
          error ? "border-red-500 focus:ring-red-200" : "border-slate-300 focus:border-brand-500 focus:ring-brand-100",
        )}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {error && (
        <p id={`${id}-error`} className="mt-1 text-xs text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * A list filter's "From (IST)" and "To (IST)" dates, whole IST days; the second cannot be set before
 * the first. `set` is useFilterDraft's field setter.
 */
export function DateRangeFields({
  from,
  to,
  errors,
  set,
}: {
  from: string;
  to: string;
  errors: Record<string, string>;
  set: (field: "from" | "to") => (e: React.ChangeEvent<HTMLInputElement>) => void;
}) {
  return (
    <>
      <Field label="From (IST)" name="from" type="date" value={from} onChange={set("from")} error={errors.from} />
      <Field label="To (IST)" name="to" type="date" value={to} onChange={set("to")} error={errors.to} min={from || undefined} />
    </>
  );
}
