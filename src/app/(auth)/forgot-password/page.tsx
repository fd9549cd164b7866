import type { Metadata } from "next";
import { Suspense } from "react";
import { TrpcProviders } from "@/lib/trpc/client";
import { ForgotForm } from "./forgot-form";

export const metadata: Metadata = { title: "Reset your password" };

export default function ForgotPasswordPage() {
  return (
    <TrpcProviders>
      <Suspense>
        <ForgotForm />
      </Suspense>
    </TrpcProviders>
  );
}
