/**
 * Dashboard times are IST (Asia/Kolkata), like the date filters and the Overview's days, and never
 * the browser's zone: the server render and the browser then produce the same text.
 * `short` drops the year when it is the current one (dense tables).
 */
export function formatIst(d: Date | string, short = false): string {
  const date = new Date(d);
  const year = (x: Date) => x.toLocaleString("en-IN", { timeZone: "Asia/Kolkata", year: "numeric" });
  return date.toLocaleString("en-IN", {
    timeZone: "Asia/Kolkata",
    day: "numeric",
    month: "short",
    ...(short && year(date) === year(new Date()) ? {} : { year: "numeric" }),
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hour12: false,
  });
}

/** The time of day in IST, "10:42:15", for moments within the next minutes. */
export function formatIstTime(d: Date | string): string {
  return new Date(d).toLocaleTimeString("en-IN", { timeZone: "Asia/Kolkata", hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}
