import type { Metadata } from "next";
import { Suspense } from "react";
import { LoadingState } from "@/components/ui";
import { VerificationsView } from "./verifications-view";

export const metadata: Metadata = { title: "Verifications" };

export default function VerificationsPage() {
  // The view reads its search from the URL query (useSearchParams needs a Suspense boundary).
  return (
    <Suspense fallback={<LoadingState label="Loading verifications…" />}>
      <VerificationsView />
    </Suspense>
  );
}
