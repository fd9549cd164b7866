"use client";

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import type { inferRouterOutputs } from "@trpc/server";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { z } from "zod";
import type { DashboardRouter } from "@/server/api/dashboard/router";
import { TRPC_MAX_BATCH } from "@/lib/trpc/limits";

// In the browser zod would probe `new Function` for its fast path, which the pages' CSP forbids
// (and reports); the forms' schemas are small, so the plain path costs nothing noticeable.
if (typeof window !== "undefined") z.config({ jitless: true });

export const { TRPCProvider, useTRPC } = createTRPCContext<DashboardRouter>();

/** What each dashboard procedure returns, as the pages receive it: `RouterOutputs["payments"]["get"]`. */
export type RouterOutputs = inferRouterOutputs<DashboardRouter>;

/**
 * A signed-in page whose session ended meanwhile (signed out everywhere, password changed) goes
 * back to sign-in, and returns here afterwards, instead of showing an error nothing can retry.
 */
function toSignInWhenSessionEnds(error: unknown) {
  const code = (error as { data?: { code?: string } } | null)?.data?.code;
  if (code !== "UNAUTHORIZED" || typeof window === "undefined") return;
  const { pathname, search } = window.location;
  if (!pathname.startsWith("/dashboard") && !pathname.startsWith("/admin")) return;
  const admin = pathname.startsWith("/admin") ? "&as=admin" : "";
  // A full load, not a client navigation: nothing of the ended session's cached data survives it.
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination
  window.location.assign(`/login?next=${encodeURIComponent(pathname + search)}${admin}&ended=1`);
}

export function TrpcProviders({ children }: { children: React.ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        queryCache: new QueryCache({ onError: toSignInWhenSessionEnds }),
        mutationCache: new MutationCache({ onError: toSignInWhenSessionEnds }),
        defaultOptions: {
          queries: {
            staleTime: 5_000,
            retry: (failures, error) => failures < 1 && (error as { data?: { code?: string } })?.data?.code !== "UNAUTHORIZED",
            refetchOnWindowFocus: false,
          },
        },
      }),
  );
  const [trpcClient] = useState(() =>
    createTRPCClient<DashboardRouter>({
      // The custom header marks requests from our own pages (checked on every mutation).
      links: [httpBatchLink({ url: "/api/trpc", maxItems: TRPC_MAX_BATCH, headers: () => ({ "x-parakh-csrf": "1" }) })],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

/** The message and per-field errors of a failed tRPC call, for forms. */
export function errorInfo(error: unknown): { message: string; fieldErrors: Record<string, string>; appCode?: string } {
  const e = error as { message?: string; data?: { fieldErrors?: Record<string, string>; appCode?: string } } | null;
  return {
    message: e?.message ?? "Something went wrong. Please try again.",
    fieldErrors: e?.data?.fieldErrors ?? {},
    appCode: e?.data?.appCode,
  };
}
