"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { z } from "zod";
import type { DashboardRouter } from "@/server/api/dashboard/router";

// In the browser zod would probe `new Function` for its fast path, which the pages' CSP forbids
// (and reports); the forms' schemas are small, so the plain path costs nothing noticeable.
if (typeof window !== "undefined") z.config({ jitless: true });

export const { TRPCProvider, useTRPC } = createTRPCContext<DashboardRouter>();

export function TrpcProviders({ children }: { children: React.ReactNode }) {
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: 1, refetchOnWindowFocus: false } } }));
  const [trpcClient] = useState(() =>
    createTRPCClient<DashboardRouter>({
      // The custom header marks requests from our own pages (checked on every mutation).
      links: [httpBatchLink({ url: "/api/trpc", headers: () => ({ "x-parakh-csrf": "1" }) })],
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
