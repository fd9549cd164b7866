"use client";

import { useRef } from "react";
import { cx } from "@/components/ui";

export type Method = "UPI" | "CARD" | "NETBANKING";

const ALL_METHODS: { id: Method; label: string; hint: string }[] = [
  { id: "UPI", label: "UPI", hint: "QR, app or UPI ID" },
  { id: "CARD", label: "Card", hint: "Debit or credit" },
  { id: "NETBANKING", label: "Netbanking", hint: "All major banks" },
];

/** The methods a payment's page offers: the same three in both modes (how a card is paid differs: `cardPanelFor`). */
export function methodsFor(): Method[] {
  return ["UPI", "CARD", "NETBANKING"];
}

/**
 * What the Card tab holds: the card form in sandbox (test cards only), and in live mode a hand-off
 * to the payment processor's own page, so live card numbers are never typed into Parakh's page.
 */
export function cardPanelFor(mode: "sandbox" | "live"): "form" | "hand-off" {
  return mode === "sandbox" ? "form" : "hand-off";
}

/** Tabs with roving focus: arrow keys move between methods, Tab goes into the panel. */
export function MethodTabs({ value, onChange, offered }: { value: Method; onChange: (m: Method) => void; offered: Method[] }) {
  const METHODS = ALL_METHODS.filter((m) => offered.includes(m.id));
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  function onKeyDown(e: React.KeyboardEvent) {
    const i = METHODS.findIndex((m) => m.id === value);
    const next =
      e.key === "ArrowRight"
        ? (i + 1) % METHODS.length
        : e.key === "ArrowLeft"
          ? (i - 1 + METHODS.length) % METHODS.length
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? METHODS.length - 1
              : -1;
    if (next < 0) return;
    e.preventDefault();
    const id = METHODS[next]!.id;
    onChange(id);
    refs.current[id]?.focus();
  }
  return (
    <div
      role="tablist"
      aria-label="Payment method"
      onKeyDown={onKeyDown}
      className={cx("mt-3 grid gap-2", METHODS.length === 3 ? "grid-cols-3" : "grid-cols-2")}
    >
      {METHODS.map((m) => {
        const selected = m.id === value;
        return (
          <button
            key={m.id}
            ref={(el) => {
              refs.current[m.id] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${m.id}`}
            aria-selected={selected}
            aria-controls={selected ? `panel-${m.id}` : undefined}
            tabIndex={selected ? 0 : -1}
            onClick={() => onChange(m.id)}
            className={cx(
              "flex flex-col items-center gap-1 rounded-lg border px-2 py-2.5 text-sm transition-colors",
              selected
                ? "border-brand-600 bg-brand-50 text-slate-900 ring-1 ring-brand-600"
                : "border-slate-200 text-slate-600 hover:border-slate-300 hover:text-slate-900",
            )}
          >
            <MethodIcon method={m.id} />
            <span className="font-medium">{m.label}</span>
            <span className="hidden text-[11px] text-slate-500 sm:block">{m.hint}</span>
          </button>
        );
      })}
    </div>
  );
}

function MethodIcon({ method }: { method: Method }) {
  const d = {
    UPI: "M7 3h10a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2Zm4 15h2",
    CARD: "M3 7a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V7Zm0 3h18M7 15h3",
    NETBANKING: "M3 10h18M5 10v8m4.67-8v8m4.66-8v8M19 10v8M3 21h18M12 3l9 5H3l9-5Z",
  }[method];
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      className="h-5 w-5"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={d} />
    </svg>
  );
}
