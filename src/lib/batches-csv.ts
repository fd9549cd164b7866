// Browser-safe: turns the CSV a merchant uploads or pastes on the Batches page into batch items
// (one per data row, with the line it came from), and the templates the page offers. Only the
// file's shape is checked here; each item is then validated by the server exactly like the single
// API call, so a bad PAN is a rejected row, not a broken file.

import { BATCH_BODY_MAX_BYTES } from "@/lib/limits";
import type { BatchKindValue } from "@/lib/schemas/batches";

/** The columns each kind reads, in template order. Other columns are ignored (and reported). */
export const BATCH_CSV_COLUMNS = {
  PAN: ["pan", "name", "reference_id"],
  EPFO: ["uan", "pf_number", "reference_id"],
} as const satisfies Record<BatchKindValue, readonly string[]>;

/** Largest file the page reads: the server takes request bodies of up to this size for a batch. */
export const BATCH_CSV_MAX_BYTES = BATCH_BODY_MAX_BYTES;

/** Sandbox-friendly examples; a merchant can upload the template as it is. */
export const BATCH_CSV_TEMPLATES: Record<BatchKindValue, string> = {
  PAN: "pan,name,reference_id\r\nABCPK1234F,Arjun Kapoor,emp-001\r\nAABCT1234C,,vendor-002\r\n",
  EPFO: "uan,pf_number,reference_id\r\n100200300400,,emp-001\r\n,MH/BAN/0000064/000/0000123,emp-002\r\n",
};

export interface CsvRecord {
  /** 1-based line of the file the record starts on (the header is line 1 when it comes first). */
  line: number;
  cells: string[];
}

export type CsvParse = { ok: true; records: CsvRecord[] } | { ok: false; line: number; message: string };

/**
 * RFC 4180 with the leniency spreadsheet exports need: a leading byte-order mark, CRLF, LF or CR
 * line ends, quoted cells holding commas, line breaks and doubled quotes. Cells are trimmed;
 * records whose cells are all empty (blank lines, ",,," rows) are skipped but still counted in
 * line numbers, so a reported line is the line an editor or spreadsheet shows.
 */
export function parseCsv(text: string): CsvParse {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let cells: string[] = [];
  let cell = "";
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let quoteLine = 1;
  const endCell = () => {
    cells.push(cell.trim());
    cell = "";
  };
  const endRecord = () => {
    endCell();
    if (cells.some((c) => c !== "")) records.push({ line: recordLine, cells });
    cells = [];
  };
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (quoted) {
      if (ch === '"') {
        if (src[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else {
        if (ch === "\n" || (ch === "\r" && src[i + 1] !== "\n")) line++;
        cell += ch;
      }
      continue;
    }
    if (ch === '"' && cell.trim() === "") {
      // An opening quote (spaces before it are dropped, as spreadsheets do).
      cell = "";
      quoted = true;
      quoteLine = line;
    } else if (ch === ",") {
      endCell();
    } else if (ch === "\r" || ch === "\n") {
      if (ch === "\r" && src[i + 1] === "\n") i++;
      endRecord();
      line++;
      recordLine = line;
    } else {
      cell += ch;
    }
  }
  if (quoted) return { ok: false, line: quoteLine, message: `Line ${quoteLine}: a quoted value is never closed (a " is missing).` };
  endRecord();
  return { ok: true, records };
}

/** Header names as people write them: "PAN", "Reference ID", "pf-number" all count. */
function normaliseHeader(h: string): string {
  return h
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

export type BatchCsvRows =
  | {
      ok: true;
      /** One item per data row: the kind's columns that have a value (empty cells are left out). */
      items: Record<string, string>[];
      /** The file line each item came from. */
      lines: number[];
      /** Header cells that are not columns of this kind, as written. */
      ignoredColumns: string[];
    }
  | { ok: false; message: string };

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-IN")} ${n === 1 ? one : many}`;

/** Reads a batch file of one kind; `maxItems` is the batch limit (more rows is an error, not a cut). */
export function batchItemsFromCsv(kind: BatchKindValue, text: string, maxItems: number): BatchCsvRows {
  const parsed = parseCsv(text);
  if (!parsed.ok) return { ok: false, message: parsed.message };
  const [header, ...rows] = parsed.records;
  const expected = BATCH_CSV_COLUMNS[kind].join(",");
  if (!header) return { ok: false, message: `The file is empty. Its first line must name the columns: ${expected}` };

  const known = new Set<string>(BATCH_CSV_COLUMNS[kind]);
  const columns = new Map<string, number>();
  const ignoredColumns: string[] = [];
  for (const [i, raw] of header.cells.entries()) {
    const name = normaliseHeader(raw);
    if (!known.has(name)) {
      if (raw !== "") ignoredColumns.push(raw);
      continue;
    }
    if (columns.has(name)) return { ok: false, message: `The header names the column ${name} twice.` };
    columns.set(name, i);
  }
  const required = kind === "PAN" ? ["pan"] : ["uan", "pf_number"];
  if (!required.some((c) => columns.has(c))) {
    const otherKind: BatchKindValue = kind === "PAN" ? "EPFO" : "PAN";
    const other = new Set<string>(BATCH_CSV_COLUMNS[otherKind].filter((c) => c !== "reference_id"));
    if (header.cells.some((c) => other.has(normaliseHeader(c)))) {
      const article = otherKind === "EPFO" ? "an" : "a";
      return { ok: false, message: `This looks like ${article} ${otherKind} file: choose ${otherKind} above, or use the ${kind} template (${expected}).` };
    }
    const missing = kind === "PAN" ? "pan column" : "uan or pf_number column";
    return { ok: false, message: `The header (line ${header.line}) has no ${missing}. The first line must name the columns: ${expected}` };
  }
  if (rows.length === 0) return { ok: false, message: "The file has a header but no rows to verify." };
  if (rows.length > maxItems) {
    return {
      ok: false,
      message: `The file has ${plural(rows.length, "row")}; a batch takes at most ${maxItems.toLocaleString("en-IN")}. Split it into smaller files.`,
    };
  }

  const width = header.cells.length;
  const items: Record<string, string>[] = [];
  const lines: number[] = [];
  for (const row of rows) {
    if (row.cells.slice(width).some((c) => c !== "")) {
      return {
        ok: false,
        message: `Line ${row.line} has ${plural(row.cells.length, "value")} but the header has ${plural(width, "column")}. Put values that contain a comma in double quotes, e.g. "Kapoor, Arjun".`,
      };
    }
    const item: Record<string, string> = {};
    for (const [name, i] of columns) {
      const value = row.cells[i] ?? "";
      if (value !== "") item[name] = value;
    }
    items.push(item);
    lines.push(row.line);
  }
  return { ok: true, items, lines, ignoredColumns };
}
