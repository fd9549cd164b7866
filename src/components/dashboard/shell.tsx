"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { useState } from "react";
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

function ModeSwitch() {
  const { mode, setMode, liveEnabled } = useMode();
  return (
    <div role="radiogroup" aria-label="Mode" className="inline-flex rounded-md border border-slate-300 bg-white p-0.5 text-xs font-medium">
      {(["sandbox", "live"] as const).map((m) => {
        const locked = m === "live" && !liveEnabled;
        return (
          <button
            key={m}
            role="radio"
            aria-checked={mode === m}
            disabled={locked}
            title={locked ? "Live mode unlocks when an operator approves your go-live request (Settings)" : undefined}
            onClick={() => setMode(m)}
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
          <div className="flex items-center gap-3 text-sm">
            <span className="hidden text-slate-500 sm:inline">{email}</span>
            <button className="rounded-md px-2 py-1 text-slate-700 hover:bg-slate-100" onClick={() => void signOut({ callbackUrl: "/login" })}>
              Sign out
            </button>
          </div>
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
