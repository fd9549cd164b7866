import type { Metadata } from "next";
import { Suspense } from "react";
import { LoadingState } from "@/components/ui";
import { PaymentsView } from "./payments-view";

export const metadata: Metadata = { title: "Payments" };

export default function PaymentsPage() {
  // The view reads its filters from the URL query (useSearchParams needs a Suspense boundary).
  return (
    <Suspense fallback={<LoadingState label="Loading payments…" />}>
      <PaymentsView />
    </Suspense>
  );
}
