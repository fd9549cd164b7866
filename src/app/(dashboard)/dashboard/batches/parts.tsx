"use client";

import { ToneBadge, cx, type Tone } from "@/components/ui";
import { maskPan } from "@/lib/pan";
import { BATCH_STATUS_LABELS, type BatchStatusValue } from "@/lib/schemas/batches";

// Pieces shared by the batches list and the batch detail.

const STATUS_TONES: Record<BatchStatusValue, Tone> = {
  QUEUED: "slate",
  PROCESSING: "blue",
  COMPLETED: "green",
  FAILED: "red",
};

export function BatchStatusBadge({ status }: { status: string }) {
  return <ToneBadge status={status} tones={STATUS_TONES} labels={BATCH_STATUS_LABELS} />;
}

type Counts = { batch_id: string; status: string; total: number; processed: number; succeeded: number; failed: number };

/** Whole percent done; 100 only when every item is processed. */
export function percentDone(b: { total: number; processed: number }): number {
  if (b.total <= 0) return 0;
  const p = Math.floor((b.processed / b.total) * 100);
  return b.processed >= b.total ? 100 : Math.min(p, 99);
}

const n = (v: number) => v.toLocaleString("en-IN");

/**
 * Items processed of the total, as a bar: the succeeded share green, the failed share red (rejected
 * rows are failed from the start), the rest still to run.
 */
export function BatchProgress({ b, size = "md" }: { b: Counts; size?: "sm" | "md" }) {
  const pct = percentDone(b);
  const share = (v: number) => (b.total > 0 ? `${(v / b.total) * 100}%` : "0%");
  return (
    <div className="min-w-0">
      <div
        role="progressbar"
        aria-label={`Progress of ${b.batch_id}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        aria-valuetext={`${pct}%: ${n(b.processed)} of ${n(b.total)} processed`}
        className={cx("flex w-full overflow-hidden rounded-full bg-slate-100", size === "sm" ? "h-1.5" : "h-2.5")}
      >
        <div className="h-full bg-green-500 transition-[width] duration-500" style={{ width: share(b.succeeded) }} />
        <div className="h-full bg-red-400 transition-[width] duration-500" style={{ width: share(b.failed) }} />
      </div>
      <p className={cx("mt-1 flex flex-wrap gap-x-2 tabular-nums text-slate-500", size === "sm" ? "text-[11px]" : "text-xs")}>
        <span className="font-medium text-slate-700">{pct}%</span>
        <span>
          {n(b.processed)} / {n(b.total)}
        </span>
        <span className="text-green-700">{n(b.succeeded)} succeeded</span>
        {b.failed > 0 && <span className="text-red-700">{n(b.failed)} failed</span>}
      </p>
    </div>
  );
}

/** "850 ms", "12.4 s", "3 min 05 s", "1 h 02 min". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(Math.floor(s % 60)).padStart(2, "0")} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

/** What was sent for an item: the PAN (masked, like every screen) and name, the UAN or the PF number; anything else as JSON. */
export function inputSummary(input: unknown): { primary: string; secondary: string | null } {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return { primary: input === null ? "—" : JSON.stringify(input), secondary: null };
  const i = input as Record<string, unknown>;
  const text = (v: unknown) => (v === undefined || v === null ? null : typeof v === "string" ? v : JSON.stringify(v));
  const pan = text(i.pan);
  const primary = (pan === null ? null : maskPan(pan)) ?? text(i.uan) ?? text(i.pf_number);
  if (primary === null) return { primary: Object.keys(i).length ? JSON.stringify(i) : "(empty row)", secondary: null };
  const secondary = "pan" in i ? text(i.name) : i.uan !== undefined && i.pf_number !== undefined ? text(i.pf_number) : null;
  return { primary, secondary };
}
