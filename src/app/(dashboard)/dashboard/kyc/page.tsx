import type { Metadata } from "next";
import { Suspense } from "react";
import { LoadingState } from "@/components/ui";
import { KycView } from "./kyc-view";

export const metadata: Metadata = { title: "KYC" };

export default function KycPage() {
  // The view reads its filters from the URL query (useSearchParams needs a Suspense boundary).
  return (
    <Suspense fallback={<LoadingState label="Loading KYC transactions…" />}>
      <KycView />
    </Suspense>
  );
}
