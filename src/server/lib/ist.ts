/** India has no daylight saving: IST is always UTC+05:30. Dashboard days and date filters are IST days. */
export const IST_OFFSET_MS = 330 * 60 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/** The instant an IST calendar day (YYYY-MM-DD) starts. */
export function istDayStart(date: string): Date {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) - IST_OFFSET_MS);
}

/** The IST calendar day (YYYY-MM-DD) an instant falls in. */
export function istDate(at: Date): string {
  return new Date(at.getTime() + IST_OFFSET_MS).toISOString().slice(0, 10);
}

/** A createdAt range for inclusive IST `from`/`to` days: "to" runs until the next IST day starts. */
export function istDayRange(from?: string, to?: string): { createdAt?: { gte?: Date; lt?: Date } } {
  if (!from && !to) return {};
  const createdAt: { gte?: Date; lt?: Date } = {};
  if (from) createdAt.gte = istDayStart(from);
  if (to) createdAt.lt = new Date(istDayStart(to).getTime() + DAY_MS);
  return { createdAt };
}
