"use client";

import { useEffect, useState } from "react";
import { cx } from "@/components/ui";

/** A big round icon at the top of an outcome screen. */
export function OutcomeIcon({ tone }: { tone: "success" | "error" | "neutral" | "warning" }) {
  const styles = {
    success: "bg-green-100 text-green-700",
    error: "bg-red-100 text-red-700",
    neutral: "bg-slate-100 text-slate-600",
    warning: "bg-amber-100 text-amber-700",
  }[tone];
  const path = {
    success: "M5 13l4 4L19 7",
    error: "M6 6l12 12M18 6L6 18",
    neutral: "M6 6l12 12M18 6L6 18",
    warning: "M12 7v5l3 3",
  }[tone];
  return (
    <span aria-hidden="true" className={cx("mx-auto flex h-14 w-14 items-center justify-center rounded-full", styles)}>
      <svg viewBox="0 0 24 24" className="h-7 w-7" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" strokeLinejoin="round">
        {tone === "warning" && <circle cx="12" cy="12" r="9" />}
        <path d={path} />
      </svg>
    </span>
  );
}

/** Label/value rows (receipt, bank page). */
export function DetailList({ rows }: { rows: [string, React.ReactNode][] }) {
  return (
    <dl className="divide-y divide-slate-100 rounded-lg border border-slate-200 text-sm">
      {rows.map(([label, value]) => (
        // A value too long to sit beside its label moves under it rather than breaking mid-word.
        <div key={label} className="flex flex-wrap items-start justify-between gap-x-4 gap-y-0.5 px-4 py-2.5">
          <dt className="text-slate-500">{label}</dt>
          <dd className="ml-auto wrap-break-word text-right font-medium text-slate-900">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

const REDIRECT_DELAY_MS = 3000;

/** On a final state with a merchant redirect: tell the customer, go after ~3 s, and offer a link now. */
export function ReturnToMerchant({ redirectTo, merchantName }: { redirectTo: string; merchantName: string }) {
  const [secondsLeft, setSecondsLeft] = useState(Math.ceil(REDIRECT_DELAY_MS / 1000));
  useEffect(() => {
    const started = Date.now();
    const tick = setInterval(() => setSecondsLeft(Math.max(0, Math.ceil((REDIRECT_DELAY_MS - (Date.now() - started)) / 1000))), 250);
    const go = setTimeout(() => window.location.assign(redirectTo), REDIRECT_DELAY_MS);
    return () => {
      clearInterval(tick);
      clearTimeout(go);
    };
  }, [redirectTo]);
  return (
    <div className="mt-5 flex flex-wrap items-center justify-between gap-3 rounded-lg bg-slate-50 px-4 py-3 text-sm">
      <p className="text-slate-700">
        {/* A no-break space and nowrap: "(3" and "s)" never land on two lines. */}
        Returning to {merchantName}…{" "}
        <span className="whitespace-nowrap text-slate-500" data-redirect-countdown>
          {secondsLeft > 0 ? `(${secondsLeft}\u00a0s)` : ""}
        </span>
      </p>
      <a href={redirectTo} className="font-medium text-brand-600 underline-offset-2 hover:underline">
        Continue now
      </a>
    </div>
  );
}

/** "12 Nov 2026, 4:05 pm IST": fixed to India time so server and browser render the same text. */
export function formatIst(iso: string | null | undefined): string {
  if (!iso) return "—";
  const text = new Date(iso).toLocaleString("en-IN", {
    timeZone: "Asia/Kolkata",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "numeric",
    minute: "2-digit",
  });
  return `${text} IST`;
}

/** mm:ss, or h:mm:ss for long-lived links. */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`;
}

/** "UPI · success@parakh", "VISA •••• 1111", "Netbanking · HDFC Bank". */
export function methodLabel(
  attempt: { method: string; vpa: string | null; cardNetwork: string | null; cardLast4: string | null; bank: string | null } | null,
  method?: string | null,
): string {
  const m = attempt?.method ?? method;
  if (m === "UPI") return attempt?.vpa ? `UPI · ${attempt.vpa}` : "UPI";
  if (m === "CARD")
    return attempt?.cardLast4
      ? `${attempt.cardNetwork && attempt.cardNetwork !== "CARD" ? cardNetworkName(attempt.cardNetwork) : "Card"} •••• ${attempt.cardLast4}`
      : "Card";
  if (m === "NETBANKING") return attempt?.bank ? `Netbanking · ${attempt.bank}` : "Netbanking";
  return "—";
}

export function cardNetworkName(network: string): string {
  return { VISA: "Visa", MASTERCARD: "Mastercard", RUPAY: "RuPay", AMEX: "American Express", DINERS: "Diners Club" }[network] ?? "Card";
}
