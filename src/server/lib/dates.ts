/** An optional instant as the API and the dashboard send it: ISO 8601 UTC, or null. */
export function isoOrNull(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}
