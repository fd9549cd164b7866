"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { useMode } from "@/components/dashboard/mode";
import { Button, Card, ErrorState, Field, LoadingState, Notice, cx, useToast } from "@/components/ui";
import { BATCH_CSV_COLUMNS, BATCH_CSV_TEMPLATES, batchItemsFromCsv, type BatchCsvRows } from "@/lib/batches-csv";
import { BATCH_MAX_ITEMS, type BatchKindValue } from "@/lib/schemas/batches";
import { useFormFields, type FieldBinding } from "@/components/ui/form";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { useBatchConsent, type BatchConsentInput } from "./batch-consent";
import { BatchPreview } from "./batch-preview";
import { CsvSource, type Csv } from "./csv-source";

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

const n = (v: number) => v.toLocaleString("en-IN");
const rows = (v: number) => `${n(v)} ${v === 1 ? "row" : "rows"}`;

type Rows = Extract<BatchCsvRows, { ok: true }>;
type Preview = RouterOutputs["batches"]["preview"];

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

/** The CSV read as rows of `kind`, and the server's check of them (re-run whenever the file, kind or mode changes). */
function useBatchPreview(kind: BatchKindValue, csv: Csv | null) {
  const { mode } = useMode();
  const trpc = useTRPC();
  const parsed = useMemo(() => (csv ? batchItemsFromCsv(kind, csv.text, BATCH_MAX_ITEMS) : null), [kind, csv]);
  const preview = useMutation(trpc.batches.preview.mutationOptions());
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
  return { parsed, preview, previewed, setPreviewed };
}

/** What was just queued, with a link to its page. */
function CreatedNotice({ created }: { created: { id: string; total: number; kind: BatchKindValue } }) {
  return (
    <div className="mb-4">
      <Notice tone="success">
        {created.kind} batch <code className="font-mono text-xs">{created.id}</code> is queued with {rows(created.total)}. Progress shows below;{" "}
        <Link href={`/dashboard/batches/${encodeURIComponent(created.id)}`} className="font-medium underline">
          open the batch
        </Link>{" "}
        for its results.
      </Notice>
    </div>
  );
}

/** The columns the kind reads, and its template. */
function ColumnsHelp({ kind }: { kind: BatchKindValue }) {
  return (
    <div className="rounded-md bg-slate-50 px-3 py-2 text-xs text-slate-600 [&_code]:font-mono [&_code]:text-slate-800">
      <p>Columns: {COLUMN_HELP[kind]}. Other columns are ignored.</p>
      <p className="mt-1">
        <TemplateLink kind={kind} /> <span className="text-slate-400">({BATCH_CSV_COLUMNS[kind].join(",")})</span>
      </p>
    </div>
  );
}

/** Optional: the batch's own reference, and a URL to call when it completes. */
function BatchOptions({ kind, bind }: { kind: BatchKindValue; bind: (field: "clientBatchId" | "webhookUrl") => FieldBinding }) {
  return (
    <details className="group rounded-md border border-slate-200 px-3 py-2 sm:px-4">
      <summary className="cursor-pointer text-sm font-medium text-slate-700">Reference and webhook (optional)</summary>
      <div className="mt-3 grid gap-3 pb-1 sm:grid-cols-2">
        <Field label="Your reference" {...bind("clientBatchId")} maxLength={100} hint="Shown in the list and returned as client_batch_id." autoComplete="off" />
        <Field
          label="Completion webhook URL"
          type="url"
          inputMode="url"
          placeholder="https://shop.example/hooks/parakh"
          {...bind("webhookUrl")}
          hint={`Also gets ${kind === "PAN" ? "pan" : "epfo"}.batch.completed, besides endpoints subscribed to it.`}
          autoComplete="off"
          spellCheck={false}
        />
      </div>
    </details>
  );
}

/** Why the file cannot be used, or which of its columns are ignored. */
function CsvNotices({ readError, fileName, parsed }: { readError?: string; fileName: string | null; parsed: BatchCsvRows | null }) {
  return (
    <>
      {readError && <Notice tone="error">{readError}</Notice>}
      {parsed && !parsed.ok && (
        <Notice tone="error">
          {fileName ? <strong className="font-semibold">{fileName}: </strong> : null}
          {parsed.message}
        </Notice>
      )}
      {parsed?.ok && parsed.ignoredColumns.length > 0 && (
        <Notice tone="warning">
          Ignored {parsed.ignoredColumns.length === 1 ? "column" : "columns"}: {parsed.ignoredColumns.join(", ")}.
        </Notice>
      )}
    </>
  );
}

/** Submit (naming how many rows will be verified) and Start over. */
function SubmitActions({ preview, submitting, onReset }: { preview: Preview; submitting: boolean; onReset: () => void }) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Button type="submit" loading={submitting} disabled={preview.accepted === 0}>
        {preview.rejected > 0 ? `Submit batch (${rows(preview.accepted)} to verify)` : `Submit batch of ${rows(preview.total)}`}
      </Button>
      <Button type="button" variant="ghost" onClick={onReset} disabled={submitting}>
        Start over
      </Button>
    </div>
  );
}

/** The fields the form shows a refusal beside. */
const FORM_FIELDS = ["webhookUrl", "clientBatchId", "consent", "purpose"];

/**
 * Queues the checked rows as a batch. Refusals of the reference, webhook URL, consent or purpose
 * come back by field for the form; anything else is a toast.
 */
function useQueueBatch() {
  const { mode } = useMode();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const create = useMutation(trpc.batches.create.mutationOptions());
  async function queue({
    kind,
    items,
    webhookUrl,
    reference,
    consent,
  }: {
    kind: BatchKindValue;
    items: Rows["items"];
    webhookUrl: string;
    reference: string;
    consent: BatchConsentInput;
  }): Promise<{ ok: true; id: string; total: number } | { ok: false; fieldErrors?: Record<string, string> }> {
    try {
      const r = await create.mutateAsync({
        mode,
        kind,
        items,
        ...(webhookUrl.trim() ? { webhookUrl: webhookUrl.trim() } : {}),
        ...(reference.trim() ? { clientBatchId: reference.trim() } : {}),
        ...consent,
      });
      await qc.invalidateQueries(trpc.batches.list.pathFilter());
      toast("success", `Batch ${r.batch_id} queued: ${rows(r.total)}.`);
      return { ok: true, id: r.batch_id, total: r.total };
    } catch (err) {
      const info = errorInfo(err);
      if (Object.keys(info.fieldErrors).some((k) => FORM_FIELDS.includes(k))) return { ok: false, fieldErrors: info.fieldErrors };
      toast("error", info.message);
      return { ok: false };
    }
  }
  return { queue, queueing: create.isPending };
}

/** Upload or paste a CSV, see what would be accepted and rejected (nothing stored yet), then queue the batch. */
export function NewBatch() {
  const { mode } = useMode();
  const [kind, setKind] = useState<BatchKindValue>("PAN");
  const [csv, setCsv] = useState<Csv | null>(null);
  const [readError, setReadError] = useState<string>();
  const options = useFormFields({ clientBatchId: "", webhookUrl: "" });
  const reference = options.values.clientBatchId;
  const [resetKey, setResetKey] = useState(0);
  const [created, setCreated] = useState<{ id: string; total: number; kind: BatchKindValue } | null>(null);
  const autoReference = useRef("");

  const { parsed, preview, previewed, setPreviewed } = useBatchPreview(kind, csv);
  const { queue, queueing } = useQueueBatch();
  const batchConsent = useBatchConsent(mode === "live");

  function onCsv(next: Csv | null, error?: string) {
    setReadError(error);
    setCsv(next);
    setCreated(null);
    if (next?.fileName && (reference === "" || reference === autoReference.current)) {
      const base = next.fileName.replace(/\.csv$/i, "").slice(0, 100);
      autoReference.current = base;
      options.setValue("clientBatchId")(base);
    }
  }

  function reset() {
    setCsv(null);
    setReadError(undefined);
    options.setValues({ clientBatchId: "", webhookUrl: "" });
    options.setErrors({});
    batchConsent.reset();
    setPreviewed(null);
    autoReference.current = "";
    setResetKey((k) => k + 1);
  }

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!previewed || previewed.data.accepted === 0) return;
    options.setErrors({});
    const consent = batchConsent.check();
    if (!consent) return;
    void queue({ kind, items: previewed.for.items, webhookUrl: options.values.webhookUrl, reference, consent }).then((r) => {
      if (r.ok) {
        reset();
        setCreated({ id: r.id, total: r.total, kind });
      } else if (r.fieldErrors) {
        batchConsent.showServerErrors(r.fieldErrors);
        options.setErrors(r.fieldErrors);
      }
    });
  }

  const ready = previewed && previewed.for === parsed ? previewed.data : null;
  return (
    <Card title="New batch" description="Upload a CSV with a header row. Each row is checked before anything is queued.">
      {created && <CreatedNotice created={created} />}
      <div className="space-y-5">
        <KindChoice kind={kind} onChange={setKind} />
        <ColumnsHelp kind={kind} />
        <CsvSource onCsv={onCsv} resetKey={resetKey} />

        <CsvNotices readError={readError} fileName={csv?.fileName ?? null} parsed={parsed} />
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
            <BatchPreview preview={ready} parsed={parsed} kind={kind} fileName={csv?.fileName ?? null} />

            {batchConsent.fields}

            <BatchOptions kind={kind} bind={options.bind} />

            <SubmitActions preview={ready} submitting={queueing} onReset={reset} />
          </form>
        )}
      </div>
    </Card>
  );
}
