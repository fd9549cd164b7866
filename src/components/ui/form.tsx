"use client";

import { useState } from "react";
import type { z } from "zod";
import { Field } from "@/components/ui";

// A form's text fields and the Fields most forms ask for, so each form says only what is its own.

type FieldProps = React.ComponentProps<typeof Field>;

/** Field errors of a failed zod parse, by first path segment, for a form. */
export function fieldErrors(issues: { path: PropertyKey[]; message: string }[]): Record<string, string> {
  return Object.fromEntries(issues.map((i) => [String(i.path[0] ?? "form"), i.message]));
}

/** What ties a Field to one of a form's values (useFormFields' `bind`). */
export interface FieldBinding {
  name: string;
  value: string;
  onChange: (e: React.ChangeEvent<HTMLInputElement>) => void;
  error: string | undefined;
}

/**
 * A form's text fields: their values, their errors by field, and `bind(name)`, the name, value,
 * onChange and error that tie a Field to one of them. With `clearErrorOnEdit`, editing a field
 * clears its error.
 */
export function useFormFields<V extends Record<string, string>>(initial: V, { clearErrorOnEdit = false } = {}) {
  const [values, setValues] = useState<V>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const setValue = (k: keyof V) => (v: string) => {
    setValues((d) => ({ ...d, [k]: v }));
    if (clearErrorOnEdit && errors[k as string]) setErrors(({ [k as string]: _, ...rest }) => rest);
  };
  return {
    values,
    setValues,
    setValue,
    errors,
    setErrors,
    bind: (k: keyof V & string): FieldBinding => ({
      name: k,
      value: values[k],
      onChange: (e: React.ChangeEvent<HTMLInputElement>) => setValue(k)(e.target.value),
      error: errors[k] || undefined,
    }),
    /** `input` (the values by default) checked with `schema`: its data, or undefined with the errors shown by field. */
    check<T>(schema: z.ZodType<T>, input: unknown = values): T | undefined {
      const parsed = schema.safeParse(input);
      setErrors(parsed.success ? {} : fieldErrors(parsed.error.issues));
      return parsed.success ? parsed.data : undefined;
    },
  };
}

/** A password: the one in use (`current`), or a new one the browser may offer to generate and save. */
export function PasswordField({ purpose, ...rest }: FieldProps & { purpose: "current" | "new" }) {
  return <Field type="password" autoComplete={`${purpose}-password`} {...rest} />;
}

/** Rupees typed as digits with up to two decimals (parsed by lib/money). */
export function AmountField({ label = "Amount (₹)", ...rest }: Omit<FieldProps, "label"> & { label?: string }) {
  return <Field label={label} inputMode="decimal" autoComplete="off" {...rest} />;
}

/** An email address, by default the one an account signs in with (so password managers fill it). */
export function EmailField({ name = "email", autoComplete = "username", ...rest }: FieldProps) {
  return <Field type="email" name={name} autoComplete={autoComplete} {...rest} />;
}
