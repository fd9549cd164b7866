import type { Metadata } from "next";
import { Suspense } from "react";
import { LoadingState } from "@/components/ui";
import { RefundsView } from "./refunds-view";

export const metadata: Metadata = { title: "Refunds" };

export default function RefundsPage() {
  // The view reads its filters from the URL query (useSearchParams needs a Suspense boundary).
  return (
    <Suspense fallback={<LoadingState label="Loading refunds…" />}>
      <RefundsView />
    </Suspense>
  );
}
