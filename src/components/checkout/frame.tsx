import { brandTheme, merchantInitial, safeLogoUrl } from "@/components/checkout/branding";

/** The page around every checkout screen: sandbox ribbon, a centred card and the trust footer. */
export function CheckoutFrame({
  sandbox,
  supportEmail,
  brandColor,
  children,
}: {
  sandbox: boolean;
  supportEmail?: string | null;
  brandColor?: string | null;
  children: React.ReactNode;
}) {
  const theme = brandTheme(brandColor);
  return (
    <div className="flex min-h-screen flex-col bg-slate-100" style={theme.cssVars as React.CSSProperties}>
      {sandbox && <p className="bg-amber-400 px-4 py-1.5 text-center text-xs font-semibold text-amber-950">Sandbox: a test payment. No real money moves.</p>}
      <main className="mx-auto w-full max-w-lg flex-1 px-3 py-4 sm:px-4 sm:py-10">{children}</main>
      <footer className="px-4 pb-6 text-center text-xs text-slate-500">
        <p className="inline-flex items-center gap-1.5 font-medium text-slate-600">
          <LockIcon className="h-3.5 w-3.5" /> Secured by Parakh
        </p>
        {supportEmail && (
          <p className="mt-1">
            Questions about this payment?{" "}
            <a className="text-slate-700 underline" href={`mailto:${supportEmail}`}>
              {supportEmail}
            </a>
          </p>
        )}
      </footer>
    </div>
  );
}

/** The merchant's band at the top of the card: logo (or initial), name and the amount. */
export function MerchantHeader({
  name,
  logoUrl,
  brandColor,
  amountLabel,
  caption = "Amount to pay",
}: {
  name: string;
  logoUrl?: string | null;
  brandColor?: string | null;
  amountLabel: string;
  caption?: string;
}) {
  const theme = brandTheme(brandColor);
  const logo = safeLogoUrl(logoUrl);
  return (
    <header className="px-5 pb-5 pt-4 sm:px-6" style={{ background: theme.background, color: theme.foreground }}>
      <div className="flex items-center gap-3">
        {logo ? (
          // A plain <img>: the merchant's own address, which next/image would have to allow-list.
          <img src={logo} alt="" referrerPolicy="no-referrer" className="h-10 w-10 shrink-0 rounded-lg bg-white object-contain p-1" />
        ) : (
          <span
            aria-hidden="true"
            className="flex h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-white/20 text-lg font-semibold ring-1 ring-current/20"
          >
            {merchantInitial(name)}
          </span>
        )}
        <p className="min-w-0 truncate text-base font-semibold">{name}</p>
      </div>
      <p className="mt-4 text-xs font-medium uppercase tracking-wide opacity-80">{caption}</p>
      <p className="text-3xl font-semibold tabular-nums tracking-tight">{amountLabel}</p>
    </header>
  );
}

export function LockIcon({ className }: { className?: string }) {
  return (
    <svg className={className} viewBox="0 0 20 20" fill="currentColor" aria-hidden="true">
      <path
        fillRule="evenodd"
        d="M10 1a4.5 4.5 0 0 0-4.5 4.5V9H5a2 2 0 0 0-2 2v6a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-6a2 2 0 0 0-2-2h-.5V5.5A4.5 4.5 0 0 0 10 1Zm3 8V5.5a3 3 0 1 0-6 0V9h6Z"
        clipRule="evenodd"
      />
    </svg>
  );
}
