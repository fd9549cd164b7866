import { describe, expect, it } from "vitest";
import { BATCH_CSV_TEMPLATES, batchItemsFromCsv, parseCsv } from "@/lib/batches-csv";

// The Batches page reads uploads with these; the server then validates each item like a single call.

describe("parseCsv", () => {
  it("reads quotes, doubled quotes, commas and line breaks inside quotes, CRLF, LF and CR", () => {
    const r = parseCsv('a,b,c\r\n"x, y","say ""hi""","two\r\nlines"\n1,2,3\r4,5,6');
    expect(r).toEqual({
      ok: true,
      records: [
        { line: 1, cells: ["a", "b", "c"] },
        { line: 2, cells: ["x, y", 'say "hi"', "two\r\nlines"] },
        { line: 4, cells: ["1", "2", "3"] },
        { line: 5, cells: ["4", "5", "6"] },
      ],
    });
  });

  it("drops a byte-order mark, skips blank and all-empty lines but counts them, and trims cells", () => {
    const r = parseCsv("\uFEFFpan , name\r\n\r\n , \r\n,,\r\n  ABCPK1234F ,  Arjun Kapoor \r\n\r\n");
    expect(r).toEqual({
      ok: true,
      records: [
        { line: 1, cells: ["pan", "name"] },
        { line: 5, cells: ["ABCPK1234F", "Arjun Kapoor"] },
      ],
    });
  });

  it("reports a quote that is never closed, with the line it opened on", () => {
    expect(parseCsv('pan,name\nABCPK1234F,"Arjun\nKapoor\n')).toEqual({ ok: false, line: 2, message: expect.stringMatching(/^Line 2: .*never closed/) });
  });

  it("keeps a quote inside an unquoted value as text", () => {
    expect(parseCsv('a\nO"Brien')).toMatchObject({ ok: true, records: [{ cells: ["a"] }, { cells: ['O"Brien'] }] });
  });
});

describe("batchItemsFromCsv", () => {
  it("maps PAN columns by header in any order and case, leaves empty cells out and reports other columns", () => {
    const r = batchItemsFromCsv("PAN", "Reference ID,Name,PAN,Notes\nemp-1,Arjun Kapoor,ABCPK1234F,x\n,,abcpk9991f,\n", 10);
    expect(r).toEqual({
      ok: true,
      items: [{ reference_id: "emp-1", name: "Arjun Kapoor", pan: "ABCPK1234F" }, { pan: "abcpk9991f" }],
      lines: [2, 3],
      ignoredColumns: ["Notes"],
    });
  });

  it("reads EPFO rows by UAN or PF number", () => {
    const r = batchItemsFromCsv("EPFO", "uan,pf-number,reference_id\n100200300400,,a\n,MH/BAN/0000064/000/0000123,b\n", 10);
    expect(r).toMatchObject({
      ok: true,
      items: [
        { uan: "100200300400", reference_id: "a" },
        { pf_number: "MH/BAN/0000064/000/0000123", reference_id: "b" },
      ],
    });
  });

  it("reads its own templates", () => {
    expect(batchItemsFromCsv("PAN", BATCH_CSV_TEMPLATES.PAN, 10)).toMatchObject({ ok: true, lines: [2, 3] });
    expect(batchItemsFromCsv("EPFO", BATCH_CSV_TEMPLATES.EPFO, 10)).toMatchObject({ ok: true, lines: [2, 3] });
  });

  it("refuses files it cannot read as a batch, saying what to fix", () => {
    const msg = (kind: "PAN" | "EPFO", text: string, max = 10) => {
      const r = batchItemsFromCsv(kind, text, max);
      return r.ok ? null : r.message;
    };
    expect(msg("PAN", "")).toMatch(/empty.*pan,name,reference_id/);
    expect(msg("PAN", "\r\n\r\n")).toMatch(/empty/);
    expect(msg("PAN", "ABCPK1234F,Arjun\n")).toMatch(/no pan column.*pan,name,reference_id/);
    expect(msg("PAN", "uan,reference_id\n100200300400,a\n")).toMatch(/looks like an EPFO file/);
    expect(msg("EPFO", "pan,name\nABCPK1234F,x\n")).toMatch(/looks like a PAN file/);
    expect(msg("PAN", "pan,PAN\nA,B\n")).toMatch(/column pan twice/);
    expect(msg("PAN", "pan,name\n")).toMatch(/no rows/);
    expect(msg("PAN", "pan\nA\nB\nC\n", 2)).toMatch(/3 rows.*at most 2/);
    expect(msg("PAN", "pan,name\nABCPK1234F,Kapoor, Arjun\n")).toMatch(/^Line 2 has 3 values but the header has 2 columns/);
  });

  it("takes short rows and empty trailing cells (spreadsheets drop or add them)", () => {
    expect(batchItemsFromCsv("PAN", "pan,name,reference_id\nABCPK1234F\nABCPK1235F,,,,\n", 10)).toMatchObject({
      ok: true,
      items: [{ pan: "ABCPK1234F" }, { pan: "ABCPK1235F" }],
    });
  });
});
