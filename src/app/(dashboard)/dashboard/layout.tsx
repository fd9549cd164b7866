import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { DashboardShell } from "@/components/dashboard/shell";
import { ModeProvider } from "@/components/dashboard/mode";
import { ReauthProvider } from "@/components/dashboard/reauth";
import { MODE_COOKIE, type Mode } from "@/lib/mode";
import { ToastProvider } from "@/components/ui";
import { TrpcProviders } from "@/components/trpc/client";
import { requireUser } from "@/server/auth/session";
import { getServices } from "@/server/services";
import { merchantHeader } from "@/server/services/merchants/account";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const user = await requireUser("merchant", "/dashboard");
  const merchant = await merchantHeader(getServices().db, user.id);
  if (!merchant) redirect("/login");
  const cookieMode = (await cookies()).get(MODE_COOKIE)?.value;
  const initialMode: Mode = cookieMode === "live" && merchant.liveEnabled ? "live" : "sandbox";
  return (
    <TrpcProviders>
      <ToastProvider>
        <ModeProvider initialMode={initialMode} liveEnabled={merchant.liveEnabled}>
          <ReauthProvider>
            <DashboardShell
              merchantName={merchant.name}
              email={merchant.email}
              suspended={merchant.status === "SUSPENDED"}
              supportEmail={getServices().config.supportEmail}
            >
              {children}
            </DashboardShell>
          </ReauthProvider>
        </ModeProvider>
      </ToastProvider>
    </TrpcProviders>
  );
}
