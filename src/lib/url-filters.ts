import type { z } from "zod";

/**
 * List filters kept in a page's URL (shareable, and kept on reload). `names` maps each filter to its
 * query parameter. Reading keeps the valid filters and reports the invalid ones, so one bad
 * parameter in a shared link does not hide everything else. Browser-safe.
 */
export function filtersFromQuery<F extends Record<string, unknown>>(
  schema: z.ZodType<F>,
  names: { [K in keyof F]-?: string },
  q: { get(name: string): string | null },
): { filters: F; errors: Record<string, string> } {
  const raw = Object.fromEntries(Object.entries(names).map(([field, param]) => [field, q.get(param as string) || undefined]));
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { filters: parsed.data, errors: {} };
  const errors = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? "form"), i.message]));
  const filters = {} as F;
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined || k in errors) continue;
    const one = schema.safeParse({ [k]: v });
    if (one.success) Object.assign(filters, one.data);
  }
  return { filters, errors };
}

/** The URL query for a set of filters (the names filtersFromQuery reads), after any `extra` parameters. */
export function filtersToQuery<F extends Record<string, unknown>>(f: F, names: { [K in keyof F]-?: string }, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams(extra);
  for (const [field, param] of Object.entries(names)) {
    const v = f[field];
    if (v !== undefined && v !== null && v !== "") q.set(param as string, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}
