import Link from "next/link";

const products = [
  { title: "PAN verification", body: "Holder name, status, category, Aadhaar link and a name-match score, in milliseconds.", href: "/docs#/Identity" },
  { title: "EPFO verification", body: "Employment history by UAN or PF number: employer, status, last contribution.", href: "/docs#/Employment" },
  { title: "Hosted checkout", body: "UPI, cards and netbanking on a page your customers trust, with signed results.", href: "/docs" },
  { title: "KYC", body: "Aadhaar OTP, PAN and bank-account KYC, paid from a prepaid wallet.", href: "/docs" },
];

export default function Home() {
  return (
    <main className="mx-auto max-w-5xl px-6 py-16">
      <header className="flex items-center justify-between">
        <span className="text-xl font-semibold tracking-tight">Parakh</span>
        <nav className="flex gap-4 text-sm">
          <Link className="text-slate-600 hover:text-slate-900" href="/docs">
            API reference
          </Link>
          <Link className="text-slate-600 hover:text-slate-900" href="/login">
            Sign in
          </Link>
        </nav>
      </header>
      <section className="mt-16 max-w-2xl">
        <h1 className="text-4xl font-semibold tracking-tight">Verify, collect and onboard, behind one login.</h1>
        <p className="mt-4 text-lg text-slate-600">
          Identity and employment checks, payments and KYC for Indian businesses, with a sandbox that answers every case deterministically.
        </p>
        <div className="mt-8 flex gap-3">
          <Link href="/docs" className="rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700">
            Read the API reference
          </Link>
        </div>
      </section>
      <section className="mt-16 grid gap-4 sm:grid-cols-2">
        {products.map((p) => (
          <Link key={p.title} href={p.href} className="rounded-lg border border-slate-200 bg-white p-5 hover:border-brand-500">
            <h2 className="font-medium">{p.title}</h2>
            <p className="mt-1 text-sm text-slate-600">{p.body}</p>
          </Link>
        ))}
      </section>
    </main>
  );
}
