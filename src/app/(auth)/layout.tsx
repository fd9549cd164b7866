import Link from "next/link";
import { Suspense } from "react";
import { TrpcProviders } from "@/components/trpc/client";

// Every auth form is a client component; some read the URL (useSearchParams needs the Suspense
// boundary) and some call tRPC.
export default function AuthLayout({ children }: { children: React.ReactNode }) {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center px-4 py-12">
      <Link href="/" className="mb-8 text-2xl font-semibold tracking-tight">
        Parakh
      </Link>
      <div className="w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <TrpcProviders>
          <Suspense>{children}</Suspense>
        </TrpcProviders>
      </div>
    </main>
  );
}
