"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useMode } from "@/components/dashboard/mode";
import { Button, Card, ErrorState, Field, LoadingState, Notice, Table, Td, Th, cx, useToast } from "@/components/ui";
import { BATCH_CSV_COLUMNS, BATCH_CSV_MAX_BYTES, BATCH_CSV_TEMPLATES, batchItemsFromCsv, type BatchCsvRows } from "@/lib/batches-csv";
import { BATCH_MAX_ITEMS as BATCH_UPLOAD_MAX_ITEMS, type BatchKindValue } from "@/lib/schemas/batches";
import { errorInfo, useTRPC } from "@/lib/trpc/client";

const KINDS: { value: BatchKindValue; title: string; detail: string }[] = [
  { value: "PAN", title: "PAN", detail: "Status, name on record, category, Aadhaar link and a name match" },
  { value: "EPFO", title: "EPFO", detail: "Member status, employer and exit date, by UAN or PF number" },
];

const COLUMN_HELP: Record<BatchKindValue, React.ReactNode> = {
  PAN: (
    <>
      <code>pan</code> (required), <code>name</code> (optional: adds a name match), <code>reference_id</code> (optional: your own id, up to 100 characters,
      returned with each result)
    </>
  ),
  EPFO: (
    <>
      <code>uan</code> or <code>pf_number</code> (exactly one per row), <code>reference_id</code> (optional: your own id, up to 100 characters, returned with
      each result)
    </>
  ),
};

/** Rejected rows listed in the preview; the rest are counted (and all are in the batch's results). */
const REJECTIONS_SHOWN = 100;

const n = (v: number) => v.toLocaleString("en-IN");
const rows = (v: number) => `${n(v)} ${v === 1 ? "row" : "rows"}`;

type Csv = { text: string; fileName: string | null };
type Rows = Extract<BatchCsvRows, { ok: true }>;

function TemplateLink({ kind }: { kind: BatchKindValue }) {
  const href = `data:text/csv;charset=utf-8,${encodeURIComponent(BATCH_CSV_TEMPLATES[kind])}`;
  return (
    <a href={href} download={`${kind.toLowerCase()}-batch-template.csv`} className="font-medium text-brand-600 hover:underline">
      Download the {kind} template
    </a>
  );
}

function KindChoice({ kind, onChange }: { kind: BatchKindValue; onChange: (k: BatchKindValue) => void }) {
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-700">What to verify</legend>
      <div className="mt-1 grid gap-2 sm:grid-cols-2">
        {KINDS.map((k) => (
          <label
            key={k.value}
            className={cx(
              "flex cursor-pointer items-start gap-3 rounded-md border px-3 py-2.5",
              kind === k.value ? "border-brand-500 bg-brand-50 ring-1 ring-brand-500" : "border-slate-300 bg-white hover:bg-slate-50",
            )}
          >
            <input type="radio" name="batch-kind" value={k.value} checked={kind === k.value} onChange={() => onChange(k.value)} className="mt-1" />
            <span>
              <span className="block text-sm font-semibold text-slate-900">{k.title}</span>
              <span className="block text-xs text-slate-500">{k.detail}</span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** The file picker (also a drop target) or a text box to paste into. */
function CsvSource({ onCsv, resetKey }: { onCsv: (csv: Csv | null, error?: string) => void; resetKey: number }) {
  const [source, setSource] = useState<"file" | "paste">("file");
  const [pasted, setPasted] = useState("");
  const [dragging, setDragging] = useState(false);
  const fileId = useId();
  const pasteId = useId();

  useEffect(() => setPasted(""), [resetKey]);

  async function readFile(file: File | undefined) {
    if (!file) return onCsv(null);
    if (file.size > BATCH_CSV_MAX_BYTES) return onCsv(null, `${file.name} is larger than 8 MB. Split it into smaller files.`);
    try {
      onCsv({ text: await file.text(), fileName: file.name });
    } catch {
      onCsv(null, `${file.name} could not be read. Choose it again.`);
    }
  }

  return (
    <div>
      <div role="group" aria-label="How to add rows" className="inline-flex rounded-md border border-slate-300 bg-white p-0.5 text-sm">
        {(["file", "paste"] as const).map((s) => (
          <button
            key={s}
            type="button"
            aria-pressed={source === s}
            onClick={() => {
              setSource(s);
              onCsv(null);
            }}
            className={cx("rounded px-3 py-1", source === s ? "bg-slate-800 font-medium text-white" : "text-slate-700 hover:bg-slate-100")}
          >
            {s === "file" ? "Upload a file" : "Paste CSV"}
          </button>
        ))}
      </div>
      {source === "file" ? (
        <div
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDragging(false);
            void readFile(e.dataTransfer.files[0]);
          }}
          className={cx(
            "mt-3 rounded-md border-2 border-dashed px-4 py-5 text-center",
            dragging ? "border-brand-500 bg-brand-50" : "border-slate-300 bg-slate-50",
          )}
        >
          <label htmlFor={fileId} className="block text-sm font-medium text-slate-700">
            CSV file
          </label>
          <p className="mt-0.5 text-xs text-slate-500">Choose a .csv file or drop it here (up to {n(BATCH_UPLOAD_MAX_ITEMS)} rows).</p>
          <input
            key={resetKey}
            id={fileId}
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => void readFile(e.target.files?.[0])}
            className="mx-auto mt-3 block w-full max-w-xs text-sm text-slate-700 file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium file:text-slate-800 hover:file:bg-slate-50"
          />
        </div>
      ) : (
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
      )}
    </div>
  );
}

type Preview = {
  total: number;
  accepted: number;
  rejected: number;
  rejections: { index: number; reference_id: string | null; code: string; message: string }[];
};

function Rejections({ preview, parsed, kind }: { preview: Preview; parsed: Rows; kind: BatchKindValue }) {
  const shown = preview.rejections.slice(0, REJECTIONS_SHOWN);
  const value = (index: number) => {
    const item = parsed.items[index] ?? {};
    return kind === "PAN" ? item.pan : (item.uan ?? item.pf_number);
  };
  return (
    <div className="mt-3">
      <div className="hidden max-h-80 overflow-y-auto rounded-md border border-slate-200 md:block">
        <Table
          caption="Rejected rows"
          head={
            <tr>
              <Th>Line</Th>
              <Th>Reference</Th>
              <Th>{kind === "PAN" ? "PAN" : "UAN / PF number"}</Th>
              <Th>Reason</Th>
            </tr>
          }
        >
          {shown.map((r) => (
            <tr key={r.index}>
              <Td className="tabular-nums">{parsed.lines[r.index]}</Td>
              <Td className="max-w-[10rem] truncate">{r.reference_id ?? <span className="text-slate-400">—</span>}</Td>
              <Td className="max-w-[12rem] truncate font-mono text-xs">{value(r.index) ?? <span className="font-sans text-slate-400">missing</span>}</Td>
              <Td>
                <div className="min-w-[16rem] whitespace-normal">
                  <code className="font-mono text-xs text-slate-800">{r.code}</code>
                  <span className="text-xs text-slate-600"> · {r.message}</span>
                </div>
              </Td>
            </tr>
          ))}
        </Table>
      </div>
      <ul className="max-h-80 divide-y divide-slate-100 overflow-y-auto rounded-md border border-slate-200 md:hidden" aria-label="Rejected rows">
        {shown.map((r) => (
          <li key={r.index} className="px-3 py-2 text-sm">
            <div className="flex flex-wrap items-baseline gap-x-2">
              <span className="font-medium text-slate-900">Line {parsed.lines[r.index]}</span>
              <span className="break-all font-mono text-xs text-slate-700">{value(r.index) ?? "missing"}</span>
              {r.reference_id && <span className="break-all text-xs text-slate-500">{r.reference_id}</span>}
            </div>
            <p className="mt-0.5 text-xs text-slate-600">
              <code className="font-mono">{r.code}</code> · {r.message}
            </p>
          </li>
        ))}
      </ul>
      {preview.rejected > shown.length && (
        <p className="mt-2 text-xs text-slate-500">
          The first {n(shown.length)} of {n(preview.rejected)} rejected rows are listed; every row is in the batch&apos;s results.
        </p>
      )}
    </div>
  );
}

/** Upload or paste a CSV, see what would be accepted and rejected (nothing stored yet), then queue the batch. */
export function NewBatch() {
  const { mode } = useMode();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const [kind, setKind] = useState<BatchKindValue>("PAN");
  const [csv, setCsv] = useState<Csv | null>(null);
  const [readError, setReadError] = useState<string>();
  const [reference, setReference] = useState("");
  const [webhookUrl, setWebhookUrl] = useState("");
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [resetKey, setResetKey] = useState(0);
  const [created, setCreated] = useState<{ id: string; total: number; kind: BatchKindValue } | null>(null);
  const autoReference = useRef("");

  const parsed = useMemo(() => (csv ? batchItemsFromCsv(kind, csv.text, BATCH_UPLOAD_MAX_ITEMS) : null), [kind, csv]);
  const preview = useMutation(trpc.batches.preview.mutationOptions());
  const create = useMutation(trpc.batches.create.mutationOptions());
  const [previewed, setPreviewed] = useState<{ for: Rows; data: Preview } | null>(null);

  const { mutateAsync: runPreview, reset: resetPreview } = preview;
  useEffect(() => {
    setPreviewed(null);
    resetPreview();
    if (!parsed?.ok) return;
    let current = true;
    runPreview({ mode, kind, items: parsed.items })
      .then((data) => {
        // A newer file or kind may have replaced this one meanwhile.
        if (current) setPreviewed({ for: parsed, data });
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [parsed, kind, mode, runPreview, resetPreview]);

  function onCsv(next: Csv | null, error?: string) {
    setReadError(error);
    setCsv(next);
    setCreated(null);
    if (next?.fileName && (reference === "" || reference === autoReference.current)) {
      const base = next.fileName.replace(/\.csv$/i, "").slice(0, 100);
      autoReference.current = base;
      setReference(base);
    }
  }

  function reset() {
    setCsv(null);
    setReadError(undefined);
    setReference("");
    setWebhookUrl("");
    setFieldErrors({});
    setPreviewed(null);
    autoReference.current = "";
    setResetKey((k) => k + 1);
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!previewed || previewed.data.accepted === 0) return;
    setFieldErrors({});
    try {
      const r = await create.mutateAsync({
        mode,
        kind,
        items: previewed.for.items,
        ...(webhookUrl.trim() ? { webhookUrl: webhookUrl.trim() } : {}),
        ...(reference.trim() ? { clientBatchId: reference.trim() } : {}),
      });
      await qc.invalidateQueries(trpc.batches.list.pathFilter());
      reset();
      setCreated({ id: r.batch_id, total: r.total, kind });
      toast("success", `Batch ${r.batch_id} queued: ${rows(r.total)}.`);
    } catch (err) {
      const info = errorInfo(err);
      if (Object.keys(info.fieldErrors).some((k) => k === "webhookUrl" || k === "clientBatchId")) setFieldErrors(info.fieldErrors);
      else toast("error", info.message);
    }
  }

  const ready = previewed && previewed.for === parsed ? previewed.data : null;
  return (
    <Card title="New batch" description="Upload a CSV with a header row. Each row is checked before anything is queued.">
      {created && (
        <div className="mb-4">
          <Notice tone="success">
            {created.kind} batch <code className="font-mono text-xs">{created.id}</code> is queued with {rows(created.total)}. Progress shows below;{" "}
            <Link href={`/dashboard/batches/${encodeURIComponent(created.id)}`} className="font-medium underline">
              open the batch
            </Link>{" "}
            for its results.
          </Notice>
        </div>
      )}
      <div className="space-y-5">
        <KindChoice kind={kind} onChange={setKind} />
        <div className="rounded-md bg-slate-50 px-3 py-2 text-xs text-slate-600 [&_code]:font-mono [&_code]:text-slate-800">
          <p>Columns: {COLUMN_HELP[kind]}. Other columns are ignored.</p>
          <p className="mt-1">
            <TemplateLink kind={kind} /> <span className="text-slate-400">({BATCH_CSV_COLUMNS[kind].join(",")})</span>
          </p>
        </div>
        <CsvSource onCsv={onCsv} resetKey={resetKey} />

        {readError && <Notice tone="error">{readError}</Notice>}
        {parsed && !parsed.ok && (
          <Notice tone="error">
            {csv?.fileName ? <strong className="font-semibold">{csv.fileName}: </strong> : null}
            {parsed.message}
          </Notice>
        )}
        {parsed?.ok && parsed.ignoredColumns.length > 0 && (
          <Notice tone="warning">
            Ignored {parsed.ignoredColumns.length === 1 ? "column" : "columns"}: {parsed.ignoredColumns.join(", ")}.
          </Notice>
        )}
        {parsed?.ok && preview.isPending && <LoadingState label={`Checking ${rows(parsed.items.length)}…`} />}
        {parsed?.ok && preview.isError && (
          <ErrorState
            message={errorInfo(preview.error).message}
            onRetry={() => {
              setCsv((c) => (c ? { ...c } : c));
            }}
          />
        )}

        {ready && parsed?.ok && (
          <form onSubmit={submit} noValidate aria-label="Submit batch" className="space-y-4">
            <section aria-label="Preview" className="rounded-md border border-slate-200 p-3 sm:p-4">
              <h3 className="text-sm font-semibold text-slate-900">Preview{csv?.fileName ? ` of ${csv.fileName}` : ""}</h3>
              <dl className="mt-2 grid grid-cols-3 gap-2 text-center">
                <div className="rounded-md bg-slate-50 px-2 py-2">
                  <dt className="text-xs text-slate-500">Rows</dt>
                  <dd className="text-lg font-semibold tabular-nums text-slate-900" data-testid="preview-total">
                    {n(ready.total)}
                  </dd>
                </div>
                <div className="rounded-md bg-green-50 px-2 py-2">
                  <dt className="text-xs text-green-800">Ready</dt>
                  <dd className="text-lg font-semibold tabular-nums text-green-800" data-testid="preview-accepted">
                    {n(ready.accepted)}
                  </dd>
                </div>
                <div className={cx("rounded-md px-2 py-2", ready.rejected ? "bg-amber-50" : "bg-slate-50")}>
                  <dt className={cx("text-xs", ready.rejected ? "text-amber-800" : "text-slate-500")}>Rejected</dt>
                  <dd className={cx("text-lg font-semibold tabular-nums", ready.rejected ? "text-amber-800" : "text-slate-900")} data-testid="preview-rejected">
                    {n(ready.rejected)}
                  </dd>
                </div>
              </dl>
              {ready.rejected > 0 && (
                <>
                  <Rejections preview={ready} parsed={parsed} kind={kind} />
                  <p className="mt-2 text-xs text-slate-500">
                    {ready.accepted > 0
                      ? "Rejected rows stay in the batch as failed items, so its results line up with your file. To leave them out, fix or remove them and check the file again."
                      : "No row can be verified. Fix the file and check it again."}
                  </p>
                </>
              )}
            </section>

            <details className="group rounded-md border border-slate-200 px-3 py-2 sm:px-4">
              <summary className="cursor-pointer text-sm font-medium text-slate-700">Reference and webhook (optional)</summary>
              <div className="mt-3 grid gap-3 pb-1 sm:grid-cols-2">
                <Field
                  label="Your reference"
                  name="clientBatchId"
                  value={reference}
                  onChange={(e) => setReference(e.target.value)}
                  maxLength={100}
                  error={fieldErrors.clientBatchId}
                  hint="Shown in the list and returned as client_batch_id."
                  autoComplete="off"
                />
                <Field
                  label="Completion webhook URL"
                  name="webhookUrl"
                  type="url"
                  inputMode="url"
                  placeholder="https://shop.example/hooks/parakh"
                  value={webhookUrl}
                  onChange={(e) => setWebhookUrl(e.target.value)}
                  error={fieldErrors.webhookUrl}
                  hint={`Also gets ${kind === "PAN" ? "pan" : "epfo"}.batch.completed, besides endpoints subscribed to it.`}
                  autoComplete="off"
                  spellCheck={false}
                />
              </div>
            </details>

            <div className="flex flex-wrap items-center gap-2">
              <Button type="submit" loading={create.isPending} disabled={ready.accepted === 0}>
                {ready.rejected > 0 ? `Submit batch (${rows(ready.accepted)} to verify)` : `Submit batch of ${rows(ready.total)}`}
              </Button>
              <Button type="button" variant="ghost" onClick={reset} disabled={create.isPending}>
                Start over
              </Button>
            </div>
          </form>
        )}
      </div>
    </Card>
  );
}
