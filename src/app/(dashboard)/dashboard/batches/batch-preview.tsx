"use client";

import { DataTable } from "@/components/dashboard/list-rows";
import { cx } from "@/components/ui";
import type { BatchCsvRows } from "@/lib/batches-csv";
import { maskPan } from "@/lib/pan";
import type { BatchKindValue } from "@/lib/schemas/batches";
import type { RouterOutputs } from "@/components/trpc/client";

/** Rejected rows listed in the preview; the rest are counted (and all are in the batch's results). */
const REJECTIONS_SHOWN = 100;

const n = (v: number) => v.toLocaleString("en-IN");

type Preview = RouterOutputs["batches"]["preview"];
type Rows = Extract<BatchCsvRows, { ok: true }>;

function Rejections({ preview, parsed, kind }: { preview: Preview; parsed: Rows; kind: BatchKindValue }) {
  const shown = preview.rejections.slice(0, REJECTIONS_SHOWN);
  const value = (index: number) => {
    const item = parsed.items[index] ?? {};
    return kind === "PAN" ? (item.pan === undefined ? undefined : maskPan(item.pan)) : (item.uan ?? item.pf_number);
  };
  return (
    <div className="mt-3">
      <div className="hidden max-h-80 overflow-y-auto rounded-md border border-slate-200 md:block">
        <DataTable
          caption="Rejected rows"
          columns={[
            { head: "Line", className: "tabular-nums", cell: (r) => parsed.lines[r.index] },
            { head: "Reference", className: "max-w-[10rem] truncate", cell: (r) => r.reference_id ?? <span className="text-slate-400">—</span> },
            {
              head: kind === "PAN" ? "PAN" : "UAN / PF number",
              className: "max-w-[12rem] truncate font-mono text-xs",
              cell: (r) => value(r.index) ?? <span className="font-sans text-slate-400">missing</span>,
            },
            {
              head: "Reason",
              cell: (r) => (
                <div className="min-w-[16rem] whitespace-normal">
                  <code className="font-mono text-xs text-slate-800">{r.code}</code>
                  <span className="text-xs text-slate-600"> · {r.message}</span>
                </div>
              ),
            },
          ]}
          rows={shown}
          rowKey={(r) => r.index}
        />
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

/** The tones of a count: its box, its label, its figure. */
const TONES = {
  slate: ["bg-slate-50", "text-slate-500", "text-slate-900"],
  green: ["bg-green-50", "text-green-800", "text-green-800"],
  amber: ["bg-amber-50", "text-amber-800", "text-amber-800"],
} as const;

function Count({ label, value, tone, testId }: { label: string; value: number; tone: keyof typeof TONES; testId: string }) {
  const [box, dt, dd] = TONES[tone];
  return (
    <div className={cx("rounded-md px-2 py-2", box)}>
      <dt className={cx("text-xs", dt)}>{label}</dt>
      <dd className={cx("text-lg font-semibold tabular-nums", dd)} data-testid={testId}>
        {n(value)}
      </dd>
    </div>
  );
}

/** What the server would accept and reject of the file, before anything is stored. */
export function BatchPreview({ preview, parsed, kind, fileName }: { preview: Preview; parsed: Rows; kind: BatchKindValue; fileName: string | null }) {
  return (
    <section aria-label="Preview" className="rounded-md border border-slate-200 p-3 sm:p-4">
      <h3 className="text-sm font-semibold text-slate-900">Preview{fileName ? ` of ${fileName}` : ""}</h3>
      <dl className="mt-2 grid grid-cols-3 gap-2 text-center">
        <Count label="Rows" value={preview.total} tone="slate" testId="preview-total" />
        <Count label="Ready" value={preview.accepted} tone="green" testId="preview-accepted" />
        <Count label="Rejected" value={preview.rejected} tone={preview.rejected ? "amber" : "slate"} testId="preview-rejected" />
      </dl>
      {preview.rejected > 0 && (
        <>
          <Rejections preview={preview} parsed={parsed} kind={kind} />
          <p className="mt-2 text-xs text-slate-500">
            {preview.accepted > 0
              ? "Rejected rows stay in the batch as failed items, so its results line up with your file. To leave them out, fix or remove them and check the file again."
              : "No row can be verified. Fix the file and check it again."}
          </p>
        </>
      )}
    </section>
  );
}
