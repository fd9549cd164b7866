"use client";

import { useEffect, useRef, useState } from "react";

// Small dependency-free SVG charts. They draw at the container's real pixel width (so text stays
// legible on a phone) and describe their data in an aria-label for screen readers.
// The SVG is taken out of the flow (absolute): a fixed-width SVG in the flow would hold its grid
// column at the old width when the window narrows, leaving the page with a horizontal scroll.

const LABEL_HEIGHT = 22;
const TOP_PAD = 18;

function useWidth<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth);
    const ro = new ResizeObserver(([entry]) => setWidth(Math.floor(entry!.contentRect.width)));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width] as const;
}

/** The smallest round number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten) at least `n`. */
export function niceCeil(n: number): number {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

function compact(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1_000) return `${+(n / 1_000).toFixed(1)}k`;
  return `${+n.toFixed(1)}`;
}

/** Room for the y-axis tick labels (about 6.5 px per character at 11 px). */
function axisWidth(max: number, unit: string): number {
  return Math.max(28, Math.ceil((compact(max) + unit).length * 6.5) + 10);
}

function Gridlines({
  width,
  axis,
  plotHeight,
  max,
  unit = "",
  integer,
  empty,
}: {
  width: number;
  axis: number;
  plotHeight: number;
  max: number;
  unit?: string;
  integer?: boolean;
  empty?: boolean;
}) {
  // Counts get no half-way line when it would read "0.5" or "2.5"; an empty chart only its baseline.
  const fractions = empty ? [0] : integer && !Number.isInteger(max / 2) ? [0, 1] : [0, 0.5, 1];
  return (
    <g>
      {fractions.map((f) => {
        const y = TOP_PAD + plotHeight * (1 - f);
        return (
          <g key={f}>
            <line x1={axis} x2={width} y1={y} y2={y} className="stroke-slate-200" strokeDasharray={f === 0 ? undefined : "3 3"} />
            <text x={axis - 6} y={y + 4} textAnchor="end" className="fill-slate-400 text-[11px]">
              {compact(max * f)}
              {f === 1 ? unit : ""}
            </text>
          </g>
        );
      })}
    </g>
  );
}

export interface BarDatum {
  label: string;
  /** Used instead of `label` when the bars are narrow (phones). */
  shortLabel?: string;
  value: number;
  /** The part of `value` drawn in the alert colour (e.g. errors among calls). */
  part?: number;
  /** Hover text for the bar. */
  title?: string;
}

/** Vertical bars with an optional highlighted part (stacked at the top of each bar). */
export function BarChart({
  data,
  summary,
  height = 180,
  partLabel,
  valueLabel,
  emptyText = "No data yet",
}: {
  data: BarDatum[];
  summary: string;
  height?: number;
  valueLabel: string;
  partLabel?: string;
  emptyText?: string;
}) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const max = niceCeil(Math.max(...data.map((d) => d.value), 1));
  const empty = data.every((d) => d.value === 0);
  const axis = axisWidth(max, "");
  const plotHeight = height - TOP_PAD - LABEL_HEIGHT;
  const slot = (width - axis) / Math.max(data.length, 1);
  const narrow = slot < 52;
  const barWidth = Math.max(6, Math.min(40, slot * 0.6));
  return (
    <div>
      <div ref={ref} className="relative w-full min-w-0 overflow-hidden" style={{ height }}>
        {width > 0 && (
          <svg width={width} height={height} role="img" aria-label={summary} className="absolute inset-0">
            <Gridlines width={width} axis={axis} plotHeight={plotHeight} max={max} integer empty={empty} />
            {empty && <EmptyNote x={axis + (width - axis) / 2} y={TOP_PAD + plotHeight / 2} text={emptyText} />}
            {data.map((d, i) => {
              const x = axis + slot * i + (slot - barWidth) / 2;
              const h = (d.value / max) * plotHeight;
              const ph = ((d.part ?? 0) / max) * plotHeight;
              const y = TOP_PAD + plotHeight - h;
              return (
                <g key={d.label + i}>
                  <title>{d.title ?? `${d.label}: ${d.value}`}</title>
                  {d.value > 0 && <rect x={x} y={y} width={barWidth} height={h} rx={2} className="fill-brand-500" />}
                  {ph > 0 && <rect x={x} y={y} width={barWidth} height={Math.max(ph, 1.5)} rx={2} className="fill-red-500" />}
                  {d.value > 0 && (
                    <text x={x + barWidth / 2} y={y - 4} textAnchor="middle" className="fill-slate-600 text-[11px]">
                      {compact(d.value)}
                    </text>
                  )}
                  <text x={x + barWidth / 2} y={height - 6} textAnchor="middle" className="fill-slate-500 text-[11px]">
                    {narrow ? (d.shortLabel ?? d.label) : d.label}
                  </text>
                </g>
              );
            })}
          </svg>
        )}
      </div>
      <Legend items={[{ label: valueLabel, className: "bg-brand-500" }, ...(partLabel ? [{ label: partLabel, className: "bg-red-500" }] : [])]} />
    </div>
  );
}

export interface LineSeries {
  name: string;
  /** Tailwind stroke/fill classes, e.g. "stroke-brand-600 fill-brand-600". */
  className: string;
  swatch: string;
  values: (number | null)[];
}

/** Lines over shared labels; null values leave a gap (e.g. a day without calls). */
export function LineChart({
  labels,
  shortLabels,
  series,
  summary,
  unit,
  height = 180,
  emptyText = "No data yet",
}: {
  labels: string[];
  /** Used instead of `labels` when the points are close together (phones). */
  shortLabels?: string[];
  series: LineSeries[];
  summary: string;
  unit: string;
  height?: number;
  emptyText?: string;
}) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const all = series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const max = niceCeil(Math.max(...all, 1));
  const axis = axisWidth(max, ` ${unit}`);
  const plotHeight = height - TOP_PAD - LABEL_HEIGHT;
  const slot = (width - axis) / Math.max(labels.length, 1);
  const shown = slot < 52 && shortLabels ? shortLabels : labels;
  const xAt = (i: number) => axis + slot * i + slot / 2;
  const yAt = (v: number) => TOP_PAD + plotHeight * (1 - v / max);
  return (
    <div>
      <div ref={ref} className="relative w-full min-w-0 overflow-hidden" style={{ height }}>
        {width > 0 && (
          <svg width={width} height={height} role="img" aria-label={summary} className="absolute inset-0">
            <Gridlines width={width} axis={axis} plotHeight={plotHeight} max={max} unit={` ${unit}`} empty={all.length === 0} />
            {all.length === 0 && <EmptyNote x={axis + (width - axis) / 2} y={TOP_PAD + plotHeight / 2} text={emptyText} />}
            {shown.map((l, i) => (
              <text key={l + i} x={xAt(i)} y={height - 6} textAnchor="middle" className="fill-slate-500 text-[11px]">
                {l}
              </text>
            ))}
            {series.map((s) => {
              // Consecutive non-null points form one segment.
              const segments: [number, number][][] = [];
              s.values.forEach((v, i) => {
                if (v === null) return;
                const prev = i > 0 ? s.values[i - 1] : null;
                if (prev === null || prev === undefined || segments.length === 0) segments.push([]);
                segments[segments.length - 1]!.push([xAt(i), yAt(v)]);
              });
              return (
                <g key={s.name} className={s.className}>
                  {segments.map((seg, j) => (
                    <polyline key={j} points={seg.map((p) => p.join(",")).join(" ")} fill="none" strokeWidth={2} strokeLinejoin="round" />
                  ))}
                  {s.values.map((v, i) =>
                    v === null ? null : (
                      <circle key={i} cx={xAt(i)} cy={yAt(v)} r={3} className="stroke-white" strokeWidth={1}>
                        <title>{`${labels[i]}: ${s.name} ${v.toFixed(1)} ${unit}`}</title>
                      </circle>
                    ),
                  )}
                </g>
              );
            })}
          </svg>
        )}
      </div>
      <Legend items={series.map((s) => ({ label: s.name, className: s.swatch }))} />
    </div>
  );
}

function EmptyNote({ x, y, text }: { x: number; y: number; text: string }) {
  return (
    <text x={x} y={y} textAnchor="middle" className="fill-slate-400 text-xs">
      {text}
    </text>
  );
}

function Legend({ items }: { items: { label: string; className: string }[] }) {
  return (
    <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600" aria-hidden="true">
      {items.map((it) => (
        <li key={it.label} className="inline-flex items-center gap-1.5">
          <span className={`inline-block h-2.5 w-2.5 rounded-sm ${it.className}`} />
          {it.label}
        </li>
      ))}
    </ul>
  );
}
