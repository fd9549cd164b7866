"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { Button, cx, formatDateTime, useToast } from "@/components/ui";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";

type Onboarding = RouterOutputs["overview"]["onboarding"];
type StepId = Onboarding["steps"][number]["id"];
type RefusedCall = NonNullable<Onboarding["lastRefused"]>;

const linkClass = "text-brand-600 hover:underline";

/** What each step asks, and what ticks it (told plainly, so a tick is never a mystery). */
const STEPS: Record<StepId, { title: string; how: React.ReactNode }> = {
  sandboxKeyUsed: {
    title: "Save your sandbox secret key",
    how: (
      <>
        Ticks at the first call made with a sandbox key, which only a kept secret can make. Lost it? Create another on{" "}
        <Link href="/dashboard/keys" className={linkClass}>
          API keys
        </Link>
        .
      </>
    ),
  },
  firstVerification: {
    title: "Make your first verification call",
    how: (
      <>
        <code className="font-mono text-xs">POST /v1/identity/pan/verify</code> or <code className="font-mono text-xs">POST /v1/employment/epfo/verify</code>{" "}
        from your server with the sandbox key; see the{" "}
        <Link href="/docs" className={linkClass}>
          API docs
        </Link>{" "}
        for test values.
      </>
    ),
  },
  serverIpWhitelisted: {
    title: "Whitelist your server’s IP address",
    how: (
      <>
        Payment calls from an address not on the{" "}
        <Link href="/dashboard/whitelist" className={linkClass}>
          IP whitelist
        </Link>{" "}
        are refused with <code className="font-mono text-xs">403 IP_NOT_WHITELISTED</code>.
      </>
    ),
  },
  firstTestPayment: {
    title: "Create a test payment",
    how: (
      <>
        <code className="font-mono text-xs">POST /api/checkout</code> with your sandbox keys; it shows up under{" "}
        <Link href="/dashboard/payments" className={linkClass}>
          Payments
        </Link>
        .
      </>
    ),
  },
  webhookEndpoint: {
    title: "Add a webhook endpoint",
    how: (
      <>
        So your server hears about payments and batches without polling:{" "}
        <Link href="/dashboard/webhooks" className={linkClass}>
          Webhooks
        </Link>
        .
      </>
    ),
  },
  goLiveRequested: {
    title: "Request go-live",
    how: (
      <>
        When the steps above work in sandbox, ask for live keys in{" "}
        <Link href="/dashboard/settings" className={linkClass}>
          Settings
        </Link>
        ; an operator approves it.
      </>
    ),
  },
};

/** The newest refused address, and one click to put it on the whitelist (with the list's own checks). */
function RefusedAddress({ call }: { call: RefusedCall }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const add = useMutation(trpc.whitelist.add.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="mt-2 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900">
      <p>
        Last refused: <code className="font-mono">{`${call.method} ${call.path}`}</code> from{" "}
        <code className="font-mono font-semibold wrap-anywhere">{call.clientIp}</code> at {formatDateTime(call.at)}.
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <Button
          size="sm"
          loading={add.isPending}
          onClick={async () => {
            setError(null);
            try {
              const entry = await add.mutateAsync({ ip: call.clientIp, label: "Server (from a refused call)" });
              await Promise.all([qc.invalidateQueries(trpc.overview.onboarding.queryFilter()), qc.invalidateQueries(trpc.whitelist.list.queryFilter())]);
              toast("success", `${entry.cidr} added to the whitelist.`);
            } catch (err) {
              setError(errorInfo(err).message);
            }
          }}
        >
          Add {call.clientIp} to the whitelist
        </Button>
        <span>Only if this is your server: calls from it are then accepted.</span>
      </div>
      {error && (
        <p role="alert" className="mt-1 text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}

function StepMark({ done }: { done: boolean }) {
  return done ? (
    <svg viewBox="0 0 20 20" className="h-5 w-5 shrink-0 text-green-600" fill="currentColor" aria-hidden="true">
      <path d="M10 18a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm3.7-9.3-4 4a1 1 0 0 1-1.4 0l-2-2a1 1 0 1 1 1.4-1.4L9 10.6l3.3-3.3a1 1 0 1 1 1.4 1.4Z" />
    </svg>
  ) : (
    <span className="mt-0.5 h-4 w-4 shrink-0 rounded-full border-2 border-slate-300" aria-hidden="true" />
  );
}

const dismissedKey = (merchantId: string) => `parakh:onboarding-dismissed:${merchantId}`;

/**
 * The first-day checklist on the Overview. Every tick comes from stored activity, so it moves on its
 * own as the merchant works; it is gone once every step is done, or when dismissed in this browser.
 */
export function OnboardingChecklist() {
  const trpc = useTRPC();
  const progress = useQuery(
    trpc.overview.onboarding.queryOptions(undefined, { refetchInterval: (q) => (q.state.data?.steps.every((s) => s.done) ? false : 5000) }),
  );
  // Read after mount: the server render has no localStorage, and a flash of the list would jump the page.
  const [dismissed, setDismissed] = useState<boolean | null>(null);
  const merchantId = progress.data?.merchantId;
  useEffect(() => {
    if (merchantId) setDismissed(window.localStorage.getItem(dismissedKey(merchantId)) === "1");
  }, [merchantId]);

  // A step ticked by new activity: the overview's figures count that activity too, so they refresh
  // with it rather than on their own 30 s timer (no "No API calls yet" under a ticked first call).
  const queryClient = useQueryClient();
  const ticked = progress.data?.steps.filter((s) => s.done).length;
  const tickedBefore = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (ticked === undefined) return;
    if (tickedBefore.current !== undefined && ticked > tickedBefore.current) void queryClient.invalidateQueries({ queryKey: trpc.overview.stats.queryKey() });
    tickedBefore.current = ticked;
  }, [ticked, queryClient, trpc]);

  const data = progress.data;
  if (!data || dismissed !== false) return null;
  const doneCount = data.steps.filter((s) => s.done).length;
  if (doneCount === data.steps.length) return null;
  // The first step not done is the one to do now.
  const next = data.steps.find((s) => !s.done)?.id;

  return (
    <section aria-labelledby="onboarding-title" className="rounded-lg border border-slate-200 bg-white">
      <header className="flex flex-wrap items-start justify-between gap-3 border-b border-slate-100 px-4 py-3 sm:px-5">
        <div>
          <h2 id="onboarding-title" className="text-sm font-semibold text-slate-900">
            Set up your integration
          </h2>
          <p className="mt-0.5 text-sm text-slate-500">
            {doneCount} of {data.steps.length} done. Each step ticks itself from your account’s activity.
          </p>
        </div>
        <Button
          variant="ghost"
          size="sm"
          onClick={() => {
            window.localStorage.setItem(dismissedKey(data.merchantId), "1");
            setDismissed(true);
          }}
        >
          Dismiss checklist
        </Button>
      </header>
      <ol className="divide-y divide-slate-100 px-4 sm:px-5" aria-label="Setup steps">
        {data.steps.map((s) => (
          <li key={s.id} className="flex gap-3 py-3" aria-current={s.id === next ? "step" : undefined}>
            <StepMark done={s.done} />
            <div className="min-w-0 flex-1 text-sm">
              <p className={cx("font-medium", s.done ? "text-slate-500" : "text-slate-900")}>
                <span className="sr-only">{s.done ? "Done: " : "To do: "}</span>
                {STEPS[s.id].title}
              </p>
              {!s.done && <p className="mt-0.5 text-slate-600">{STEPS[s.id].how}</p>}
              {s.id === "serverIpWhitelisted" && !s.done && data.lastRefused && <RefusedAddress call={data.lastRefused} />}
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
