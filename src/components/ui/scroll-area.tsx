"use client";

import { useEffect, useRef, useState } from "react";

/**
 * A box that scrolls sideways and shows it: a shade on the edge with more behind it and a line
 * under the box saying so. While it scrolls it is a focusable region, so arrow keys reach it too.
 */
export function HorizontalScroll({ label, className, children }: { label?: string; className?: string; children: React.ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [edges, setEdges] = useState({ left: false, right: false });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    // One pixel of slack: zoomed pages report fractional widths.
    const update = () => {
      const left = el.scrollLeft > 1;
      const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
      setEdges((e) => (e.left === left && e.right === right ? e : { left, right }));
    };
    update();
    el.addEventListener("scroll", update, { passive: true });
    const resized = new ResizeObserver(update);
    resized.observe(el);
    if (el.firstElementChild) resized.observe(el.firstElementChild);
    return () => {
      el.removeEventListener("scroll", update);
      resized.disconnect();
    };
  }, []);
  const scrolls = edges.left || edges.right;
  return (
    <div className={className}>
      <div className="relative">
        <div
          ref={ref}
          className="overflow-x-auto"
          data-overflowing={scrolls ? "true" : undefined}
          tabIndex={scrolls ? 0 : undefined}
          role={scrolls ? "region" : undefined}
          aria-label={scrolls ? `${label ?? "Table"}, scrolls sideways` : undefined}
        >
          {children}
        </div>
        {edges.left && <div aria-hidden="true" className="pointer-events-none absolute inset-y-0 left-0 w-8 bg-linear-to-r from-slate-900/15 to-transparent" />}
        {edges.right && (
          <div aria-hidden="true" className="pointer-events-none absolute inset-y-0 right-0 w-8 bg-linear-to-l from-slate-900/15 to-transparent" />
        )}
      </div>
      {scrolls && (
        <p className="mt-2 px-4 text-xs text-slate-500 sm:px-0" aria-hidden="true">
          {edges.right ? "More columns to the right: scroll sideways →" : "← More columns to the left"}
        </p>
      )}
    </div>
  );
}

/**
 * A long id shortened in the middle ("pay_17642…Kl9Mn2"), so both its recognisable ends stay on
 * screen. The full id is the tooltip, what screen readers read, and what copying the text gives.
 */
export function MiddleTruncate({ value, head = 10, tail = 6, className }: { value: string; head?: number; tail?: number; className?: string }) {
  const short = value.length > head + tail + 1 ? `${value.slice(0, head)}…${value.slice(-tail)}` : value;
  return (
    <code
      className={className ?? "font-mono text-xs"}
      title={value}
      data-full={value}
      onCopy={(e) => {
        // A selection of the shortened text copies the whole id, never the "…".
        e.preventDefault();
        e.clipboardData.setData("text/plain", value);
      }}
    >
      <span className="sr-only">{value}</span>
      <span aria-hidden="true">{short}</span>
    </code>
  );
}
