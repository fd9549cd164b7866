/** India Standard Time is UTC+05:30 all year. */
export const IST_OFFSET_MS = 330 * 60 * 1000;

/** The instant of an IST wall-clock time, e.g. ist("2025-03-11T00:00:00.000"). */
export const ist = (local: string) => new Date(Date.parse(`${local}Z`) - IST_OFFSET_MS);

/** The IST calendar day of an instant, as YYYY-MM-DD. */
export const istDateOf = (d: Date) => new Date(d.getTime() + IST_OFFSET_MS).toISOString().slice(0, 10);
