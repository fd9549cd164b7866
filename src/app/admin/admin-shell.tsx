"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { cx } from "@/components/ui";

const NAV = [
  { href: "/admin", label: "Merchants" },
  { href: "/admin/activity", label: "Activity" },
  { href: "/admin/outbox", label: "Outbox" },
];

export function AdminShell({ email, children }: { email: string; children: React.ReactNode }) {
  const pathname = usePathname();
  // Merchant detail pages belong under "Merchants".
  const active = (href: string) => (href === "/admin" ? pathname === "/admin" || pathname.startsWith("/admin/merchants") : pathname.startsWith(href));
  return (
    <div className="min-h-screen">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-sm"
      >
        Skip to content
      </a>
      <header className="border-b border-slate-800 bg-slate-900 text-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 md:px-8">
          <Link href="/admin" className="text-base font-semibold tracking-tight">
            Parakh <span className="font-normal text-slate-400">Operator</span>
          </Link>
          <nav aria-label="Operator" className="order-last w-full sm:order-none sm:w-auto">
            <ul className="flex gap-1">
              {NAV.map((item) => (
                <li key={item.href}>
                  <Link
                    href={item.href}
                    aria-current={active(item.href) ? "page" : undefined}
                    className={cx(
                      "block rounded-md px-3 py-1.5 text-sm",
                      active(item.href) ? "bg-white/15 font-medium text-white" : "text-slate-300 hover:bg-white/10 hover:text-white",
                    )}
                  >
                    {item.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <div className="ml-auto flex min-w-0 items-center gap-3 text-sm">
            <span className="max-w-[10rem] truncate text-xs text-slate-300 sm:max-w-xs sm:text-sm" title={email}>
              {email}
            </span>
            <button
              className="rounded-md px-2 py-1 text-slate-200 hover:bg-white/10 hover:text-white"
              onClick={() => void signOut({ callbackUrl: "/login?as=admin" })}
            >
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main id="main" className="mx-auto max-w-6xl px-4 py-6 md:px-8 md:py-8">
        {children}
      </main>
    </div>
  );
}
