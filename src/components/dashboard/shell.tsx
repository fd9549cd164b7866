"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { cx } from "@/components/ui";
import { useMode } from "@/components/dashboard/mode";

const NAV = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/payments", label: "Payments" },
  { href: "/dashboard/refunds", label: "Refunds" },
  { href: "/dashboard/verifications", label: "Verifications" },
  { href: "/dashboard/batches", label: "Batches" },
  { href: "/dashboard/kyc", label: "KYC" },
  { href: "/dashboard/wallet", label: "Wallet" },
  { href: "/dashboard/logs", label: "Request logs" },
  { href: "/dashboard/keys", label: "API keys" },
  { href: "/dashboard/whitelist", label: "IP whitelist" },
  { href: "/dashboard/webhooks", label: "Webhooks" },
  { href: "/dashboard/settings", label: "Settings" },
];

const LOCKED_LIVE_NOTE = "Live mode unlocks when an operator approves your go-live request.";

/** Why Live is locked, on tap or click as well as hover; Escape or a tap elsewhere closes it. */
function LockedLiveNote({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const away = (e: PointerEvent) => {
      if (!ref.current?.parentElement?.contains(e.target as Node)) onClose();
    };
    const escape = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    document.addEventListener("pointerdown", away);
    document.addEventListener("keydown", escape);
    return () => {
      document.removeEventListener("pointerdown", away);
      document.removeEventListener("keydown", escape);
    };
  }, [onClose]);
  return (
    <div
      ref={ref}
      id="live-locked-note"
      role="status"
      className="absolute left-0 top-full z-30 mt-2 w-64 rounded-md border border-slate-200 bg-white p-3 text-xs text-slate-700 shadow-lg"
    >
      {LOCKED_LIVE_NOTE}{" "}
      <Link href="/dashboard/settings" className="font-medium text-brand-600 hover:underline" onClick={onClose}>
        Request go-live in Settings
      </Link>
      .
    </div>
  );
}

function ModeSwitch() {
  const { mode, setMode, liveEnabled } = useMode();
  const [explain, setExplain] = useState(false);
  const close = useCallback(() => setExplain(false), []);
  return (
    <div className="relative">
      <div role="radiogroup" aria-label="Mode" className="inline-flex rounded-md border border-slate-300 bg-white p-0.5 text-xs font-medium">
        {(["sandbox", "live"] as const).map((m) => {
          const locked = m === "live" && !liveEnabled;
          return (
            <button
              key={m}
              role="radio"
              aria-checked={mode === m}
              // Not `disabled`: a disabled button gets no tap, and the tap is what explains the lock.
              aria-disabled={locked || undefined}
              aria-describedby={locked && explain ? "live-locked-note" : undefined}
              title={locked ? `${LOCKED_LIVE_NOTE} (Settings)` : undefined}
              onClick={() => (locked ? setExplain((x) => !x) : setMode(m))}
              className={cx(
                "rounded px-3 py-1 capitalize",
                mode === m ? (m === "live" ? "bg-green-600 text-white" : "bg-amber-500 text-white") : "text-slate-600 hover:bg-slate-100",
                locked && "cursor-not-allowed text-slate-400 hover:bg-transparent",
              )}
            >
              {m}
              {locked && (
                <svg className="ml-1 inline h-3 w-3 align-[-1px]" viewBox="0 0 16 16" fill="currentColor" aria-label="locked">
                  <path d="M5 7V5a3 3 0 1 1 6 0v2h.5A1.5 1.5 0 0 1 13 8.5v5a1.5 1.5 0 0 1-1.5 1.5h-7A1.5 1.5 0 0 1 3 13.5v-5A1.5 1.5 0 0 1 4.5 7H5Zm1.5 0h3V5a1.5 1.5 0 0 0-3 0v2Z" />
                </svg>
              )}
            </button>
          );
        })}
      </div>
      {explain && !liveEnabled && <LockedLiveNote onClose={close} />}
    </div>
  );
}

/** The sections of the dashboard; folded behind Menu on phones. */
function DashboardNav({ open, onNavigate }: { open: boolean; onNavigate: () => void }) {
  const pathname = usePathname();
  const active = (href: string) => (href === "/dashboard" ? pathname === href : pathname.startsWith(href));
  return (
    <nav id="dashboard-nav" aria-label="Dashboard" className={cx("px-2 pb-3 md:block", open ? "block" : "hidden")}>
      <ul className="space-y-0.5">
        {NAV.map((item) => (
          <li key={item.href}>
            <Link
              href={item.href}
              aria-current={active(item.href) ? "page" : undefined}
              onClick={onNavigate}
              className={cx(
                "block rounded-md px-3 py-2 text-sm",
                active(item.href) ? "bg-brand-50 font-medium text-brand-700" : "text-slate-700 hover:bg-slate-100",
              )}
            >
              {item.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A suspended account: what still works, and whom to ask. */
function SuspendedBanner({ supportEmail }: { supportEmail?: string }) {
  return (
    <div role="alert" className="border-b border-red-200 bg-red-50 px-4 py-2 text-center text-sm text-red-800 md:px-8">
      <strong className="font-semibold">This account is suspended.</strong> You can still see your data, but the dashboard is read-only and every API call is
      refused. To have it reinstated, contact support
      {supportEmail ? (
        <>
          {" "}
          at{" "}
          <a className="font-medium underline" href={`mailto:${supportEmail}?subject=${encodeURIComponent("Suspended account")}`}>
            {supportEmail}
          </a>
        </>
      ) : null}
      . You can still change your password and sign out everywhere in Settings.
    </div>
  );
}

/** Which account is signed in: business name and email. */
function SignedInAs({ merchantName, email, className }: { merchantName: string; email: string; className?: string }) {
  return (
    <p className={cx("min-w-0 text-sm leading-tight", className)} data-testid="signed-in-as">
      <span className="sr-only">Signed in as </span>
      <span className="block truncate font-medium text-slate-900" title={merchantName}>
        {merchantName}
      </span>
      <span className="block truncate text-xs text-slate-500" title={email}>
        {email}
      </span>
    </p>
  );
}

export function DashboardShell({
  merchantName,
  email,
  suspended,
  supportEmail,
  children,
}: {
  merchantName: string;
  email: string;
  suspended: boolean;
  /** Parakh's support address, for a suspended account. */
  supportEmail?: string;
  children: React.ReactNode;
}) {
  const { mode } = useMode();
  const [menuOpen, setMenuOpen] = useState(false);
  return (
    <div className="min-h-screen md:flex">
      <aside className="border-b border-slate-200 bg-white md:sticky md:top-0 md:h-screen md:w-60 md:shrink-0 md:border-b-0 md:border-r">
        <div className="flex items-center justify-between px-4 py-3 md:block md:px-5 md:py-5">
          <Link href="/dashboard" className="text-lg font-semibold tracking-tight">
            Parakh
          </Link>
          <button
            className="rounded-md px-2 py-1 text-sm text-slate-700 hover:bg-slate-100 md:hidden"
            aria-expanded={menuOpen}
            aria-controls="dashboard-nav"
            onClick={() => setMenuOpen((o) => !o)}
          >
            Menu
          </button>
          <p className="mt-1 hidden truncate text-sm text-slate-500 md:block" title={merchantName}>
            {merchantName}
          </p>
        </div>
        <DashboardNav open={menuOpen} onNavigate={() => setMenuOpen(false)} />
      </aside>
      <div className="min-w-0 flex-1">
        <header className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 bg-white px-4 py-3 md:px-8">
          <ModeSwitch />
          <div className="flex items-center gap-3 text-sm sm:min-w-0">
            <SignedInAs merchantName={merchantName} email={email} className="hidden sm:block" />
            <button className="shrink-0 rounded-md px-2 py-1 text-slate-700 hover:bg-slate-100" onClick={() => void signOut({ callbackUrl: "/login" })}>
              Sign out
            </button>
          </div>
          {/* Phones: a line of its own under the switch, so neither the name nor the email is cut short. */}
          <SignedInAs merchantName={merchantName} email={email} className="w-full sm:hidden" />
        </header>
        {mode === "sandbox" && (
          <div className="border-b border-amber-200 bg-amber-50 px-4 py-1.5 text-center text-xs text-amber-900 md:px-8">
            Sandbox: test data only. Keys start with <code>sk_test_</code>.
          </div>
        )}
        {suspended && <SuspendedBanner supportEmail={supportEmail} />}
        <main className="mx-auto max-w-6xl px-4 py-6 md:px-8 md:py-8">{children}</main>
      </div>
    </div>
  );
}
