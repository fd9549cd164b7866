/**
 * One CSV cell (RFC 4180). Text a spreadsheet would run as a formula (starting with = + - @, or a
 * tab / carriage return) gets a leading apostrophe, so customer-supplied text cannot become a formula.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvLine = (cells: (string | number | null | undefined)[]) => `${cells.map(csvCell).join(",")}\r\n`;

/** The byte-order mark that makes spreadsheet apps read a file as UTF-8 (names, ₹). */
export const CSV_BOM = "\uFEFF";
