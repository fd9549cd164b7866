"use client";

import { useEffect, useId, useState } from "react";
import { Button, Segmented, cx } from "@/components/ui";
import { BATCH_CSV_MAX_BYTES } from "@/lib/batches-csv";
import { mebibytesText } from "@/lib/limits";
import { BATCH_MAX_ITEMS } from "@/lib/schemas/batches";

const SOURCES = [
  { value: "file", label: "Upload a file" },
  { value: "paste", label: "Paste CSV" },
] as const;

export type Csv = { text: string; fileName: string | null };

const n = (v: number) => v.toLocaleString("en-IN");

/** A .csv file chosen or dropped on the box. */
function FileDrop({ resetKey, onFile }: { resetKey: number; onFile: (file: File | undefined) => unknown }) {
  const [dragging, setDragging] = useState(false);
  const fileId = useId();
  return (
    <div
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        void onFile(e.dataTransfer.files[0]);
      }}
      className={cx("mt-3 rounded-md border-2 border-dashed px-4 py-5 text-center", dragging ? "border-brand-500 bg-brand-50" : "border-slate-300 bg-slate-50")}
    >
      <label htmlFor={fileId} className="block text-sm font-medium text-slate-700">
        CSV file
      </label>
      <p className="mt-0.5 text-xs text-slate-500">Choose a .csv file or drop it here (up to {n(BATCH_MAX_ITEMS)} rows).</p>
      <input
        key={resetKey}
        id={fileId}
        type="file"
        accept=".csv,text/csv"
        onChange={(e) => void onFile(e.target.files?.[0])}
        className="mx-auto mt-3 block w-full max-w-xs text-sm text-slate-700 file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium file:text-slate-800 hover:file:bg-slate-50"
      />
    </div>
  );
}

/** CSV text pasted in, checked when asked. */
function PasteBox({ resetKey, onCsv }: { resetKey: number; onCsv: (csv: Csv) => void }) {
  const [pasted, setPasted] = useState("");
  const pasteId = useId();
  useEffect(() => setPasted(""), [resetKey]);
  return (
    <div className="mt-3">
      <label htmlFor={pasteId} className="block text-sm font-medium text-slate-700">
        CSV text
      </label>
      <textarea
        id={pasteId}
        value={pasted}
        onChange={(e) => setPasted(e.target.value)}
        rows={6}
        spellCheck={false}
        placeholder={"pan,name,reference_id\nABCPK1234F,Arjun Kapoor,emp-001"}
        className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 font-mono text-xs shadow-sm outline-none focus:border-brand-500 focus:ring-2 focus:ring-brand-100"
      />
      <Button type="button" variant="secondary" className="mt-2" disabled={pasted.trim() === ""} onClick={() => onCsv({ text: pasted, fileName: null })}>
        Check rows
      </Button>
    </div>
  );
}

/** The file picker (also a drop target) or a text box to paste into. */
export function CsvSource({ onCsv, resetKey }: { onCsv: (csv: Csv | null, error?: string) => void; resetKey: number }) {
  const [source, setSource] = useState<"file" | "paste">("file");
  async function readFile(file: File | undefined) {
    if (!file) return onCsv(null);
    if (file.size > BATCH_CSV_MAX_BYTES) return onCsv(null, `${file.name} is larger than ${mebibytesText(BATCH_CSV_MAX_BYTES)}. Split it into smaller files.`);
    try {
      onCsv({ text: await file.text(), fileName: file.name });
    } catch {
      onCsv(null, `${file.name} could not be read. Choose it again.`);
    }
  }

  return (
    <div>
      <Segmented
        label="How to add rows"
        options={SOURCES}
        value={source}
        onChange={(s) => {
          setSource(s);
          onCsv(null);
        }}
      />
      {source === "file" ? <FileDrop resetKey={resetKey} onFile={readFile} /> : <PasteBox resetKey={resetKey} onCsv={onCsv} />}
    </div>
  );
}
