"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { DetailList } from "@/components/checkout/parts";
import type { CheckoutState } from "@/components/checkout/types";
import { Button, Notice } from "@/components/ui";
import { errorInfo, useTRPC } from "@/components/trpc/client";

/** The sandbox bank's question: approve (Success) or decline (Failure) the netbanking payment. */
function ApprovalRequest({
  merchantName,
  amountLabel,
  orderId,
  error,
  deciding,
  leaving,
  onDecide,
}: {
  merchantName: string;
  amountLabel: string;
  orderId: string;
  error: string | null;
  /** The answer being sent, while it is. */
  deciding: "SUCCESS" | "FAILED" | null;
  /** Answered: on the way back to the checkout. */
  leaving: boolean;
  onDecide: (outcome: "SUCCESS" | "FAILED") => void;
}) {
  return (
    <>
      <h1 className="text-lg font-semibold text-slate-900">Approve this payment?</h1>
      <p className="mt-1 text-sm text-slate-600">
        This is Parakh&apos;s sandbox bank: no account, no money. Choose how the bank answers and you&apos;ll go back to the checkout.
      </p>
      <div className="mt-4">
        <DetailList
          rows={[
            ["Pay to", merchantName],
            ["Amount", amountLabel],
            [
              "Order ID",
              <span key="o" className="font-mono text-xs">
                {orderId}
              </span>,
            ],
          ]}
        />
      </div>
      {error && (
        <div className="mt-4">
          <Notice tone="error">{error}</Notice>
        </div>
      )}
      <div className="mt-5 grid grid-cols-2 gap-3">
        <Button type="button" className="py-2.5" onClick={() => onDecide("SUCCESS")} loading={deciding === "SUCCESS"} disabled={deciding !== null || leaving}>
          Success
        </Button>
        <Button
          type="button"
          variant="danger"
          className="py-2.5"
          onClick={() => onDecide("FAILED")}
          loading={deciding === "FAILED"}
          disabled={deciding !== null || leaving}
        >
          Failure
        </Button>
      </div>
      {leaving && (
        <p role="status" className="mt-3 text-center text-sm text-slate-500">
          Returning to the checkout…
        </p>
      )}
    </>
  );
}

export function MockBank({
  paymentId,
  token,
  state,
  merchantName,
  orderId,
  amountLabel,
}: {
  paymentId: string;
  token: string;
  state: CheckoutState;
  merchantName: string;
  orderId: string;
  amountLabel: string;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const simulate = useMutation(trpc.checkout.simulate.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const [leaving, setLeaving] = useState(false);
  const waiting = state.status === "PENDING" && state.attempt?.method === "NETBANKING";
  const bank = state.attempt?.bank ?? "Your bank";
  const back = `/checkout/${paymentId}`;

  async function decide(outcome: "SUCCESS" | "FAILED") {
    setError(null);
    try {
      await simulate.mutateAsync({ paymentId, token, outcome });
    } catch (err) {
      setError(errorInfo(err).message);
      return;
    }
    setLeaving(true);
    router.replace(back);
  }

  return (
    <div className="overflow-hidden rounded-xl border border-slate-300 bg-white shadow-sm">
      <header className="flex items-center justify-between gap-3 bg-slate-800 px-5 py-4 text-white">
        <div>
          <p className="text-base font-semibold">{bank}</p>
          <p className="text-xs text-slate-300">NetBanking</p>
        </div>
        <span className="rounded bg-amber-400 px-2 py-0.5 text-xs font-semibold text-amber-950">Test bank</span>
      </header>
      <div className="px-5 py-6">
        {waiting ? (
          <ApprovalRequest
            merchantName={merchantName}
            amountLabel={amountLabel}
            orderId={orderId}
            error={error}
            deciding={simulate.isPending ? (simulate.variables?.outcome ?? null) : null}
            leaving={leaving}
            onDecide={decide}
          />
        ) : (
          <>
            <h1 className="text-lg font-semibold text-slate-900">Nothing is waiting for approval</h1>
            <p className="mt-1 text-sm text-slate-600">This payment has no netbanking request open at the bank. The checkout shows where it stands.</p>
          </>
        )}
        <p className="mt-6 text-center text-sm">
          <Link href={back} className="text-slate-600 underline-offset-2 hover:underline">
            Back to the checkout
          </Link>
        </p>
      </div>
    </div>
  );
}
