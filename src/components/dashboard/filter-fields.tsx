"use client";

import { Field, FieldFrame } from "@/components/ui";

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
  return (
    <FieldFrame label={label} error={error} className={className}>
      {(control) => (
        <select {...control} name={name} value={value} onChange={(e) => onChange(e.target.value)}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
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

/** A filter select's options: `any` (the empty value, no filter) first, then each value by its label. */
export function anyOr<V extends string>(any: string, values: readonly V[], labels: Record<V, string>): { value: string; label: string }[] {
  return [{ value: "", label: any }, ...values.map((v) => ({ value: v, label: labels[v] }))];
}
