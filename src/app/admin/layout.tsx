import type { Metadata } from "next";
import { ToastProvider } from "@/components/ui";
import { TrpcProviders } from "@/components/trpc/client";
import { requireUser } from "@/server/auth/session";
import { AdminShell } from "./admin-shell";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: { default: "Operator", template: "%s · Parakh Operator" } };

/** The operator area: admins only; signed-out visitors go to the operator sign-in. */
export default async function AdminLayout({ children }: { children: React.ReactNode }) {
  const admin = await requireUser("admin", "/admin");
  return (
    <TrpcProviders>
      <ToastProvider>
        <AdminShell email={admin.email}>{children}</AdminShell>
      </ToastProvider>
    </TrpcProviders>
  );
}
