import type { Metadata } from "next";
import { Suspense } from "react";
import { LoadingState } from "@/components/ui";
import { LogsView } from "./logs-view";

export const metadata: Metadata = { title: "Request logs" };

export default function LogsPage() {
  // The view reads its filters from the URL query (useSearchParams needs a Suspense boundary).
  return (
    <Suspense fallback={<LoadingState label="Loading request logs…" />}>
      <LogsView />
    </Suspense>
  );
}
