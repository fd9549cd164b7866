import type { Metadata } from "next";
import { Suspense } from "react";
import { LoadingState } from "@/components/ui";
import { BatchesView } from "./batches-view";

export const metadata: Metadata = { title: "Batches" };

export default function BatchesPage() {
  // The view reads its kind filter from the URL query (useSearchParams needs a Suspense boundary).
  return (
    <Suspense fallback={<LoadingState label="Loading batches…" />}>
      <BatchesView />
    </Suspense>
  );
}
