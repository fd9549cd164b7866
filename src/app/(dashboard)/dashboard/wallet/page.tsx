import type { Metadata } from "next";
import { Suspense } from "react";
import { LoadingState } from "@/components/ui";
import { WalletView } from "./wallet-view";

export const metadata: Metadata = { title: "Wallet" };

export default function WalletPage() {
  // The ledger reads its filters from the URL query (useSearchParams needs a Suspense boundary).
  return (
    <Suspense fallback={<LoadingState label="Loading wallet…" />}>
      <WalletView />
    </Suspense>
  );
}
