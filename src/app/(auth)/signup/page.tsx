import type { Metadata } from "next";
import { TrpcProviders } from "@/lib/trpc/client";
import { SignupForm } from "./signup-form";

export const metadata: Metadata = { title: "Create your account" };

export default function SignupPage() {
  return (
    <TrpcProviders>
      <SignupForm />
    </TrpcProviders>
  );
}
