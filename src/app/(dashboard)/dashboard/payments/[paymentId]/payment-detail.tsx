"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Button, Card, PageHeader } from "@/components/ui";
import { BackLink, DetailPending, NotFoundHint, retryUnlessMissing } from "@/components/dashboard/detail-page";
import { useMode } from "@/components/dashboard/mode";
import { WebhookEvents } from "@/components/dashboard/webhook-events";
import { formatRupees } from "@/lib/money";
import { useTRPC } from "@/components/trpc/client";
import { formatIst } from "../../logs/parts";
import { RefundSummaryBadge } from "../../refunds/parts";
import { PaymentStatusBadge } from "../parts";
import { AttemptsSection } from "./attempts-section";
import type { PaymentDetailData } from "./payment-detail-data";
import { LateResultNote } from "./late-result-note";
import { PaymentFacts } from "./payment-facts";
import { PaymentTimeline } from "./payment-timeline";
import { RefundDialog } from "./refund-dialog";
import { RefundsSection } from "./refunds-section";

const back = <BackLink href="/dashboard/payments">Payments</BackLink>;

function usePaymentDetail(paymentId: string) {
  const { mode } = useMode();
  const trpc = useTRPC();
  return useQuery(
    trpc.payments.get.queryOptions(
      { mode, paymentId },
      {
        retry: retryUnlessMissing,
        // While the customer may still pay, a refund awaits the bank, or a webhook is on its way, keep the page current.
        refetchInterval: (q) => {
          const d = q.state.data;
          if (!d) return false;
          const busy =
            !d.payment.isFinal ||
            d.refunds.some((r) => r.status === "PENDING") ||
            d.webhooks.some((w) => w.deliveries.some((x) => x.status === "PENDING" && x.attemptCount === 0));
          return busy ? 4000 : false;
        },
      },
    ),
  );
}

/** Amount as the title; status, order id and time below; the checkout link or Refund on the right. */
function PaymentHeader({ p, onRefund }: { p: PaymentDetailData["payment"]; onRefund: () => void }) {
  return (
    <PageHeader
      title={formatRupees(p.amountPaise)}
      description={
        <span className="inline-flex flex-wrap items-center gap-2">
          <PaymentStatusBadge status={p.status} />
          <RefundSummaryBadge refundStatus={p.refundStatus} />
          <span className="font-mono text-xs text-slate-700">{p.orderId}</span>
          <span>Created {formatIst(p.createdAt)} IST</span>
        </span>
      }
      actions={
        p.checkoutUrl ? (
          <a href={p.checkoutUrl} target="_blank" rel="noreferrer" className="text-sm font-medium text-brand-600 hover:underline">
            Open checkout page <span aria-hidden="true">↗</span>
          </a>
        ) : p.refundablePaise > 0 ? (
          <Button onClick={onRefund}>Refund</Button>
        ) : undefined
      }
    />
  );
}

/** The Refunds card's line: what is refunded of the payment, and why automatic refunds are apart. */
function refundsDescription(d: PaymentDetailData): string {
  const p = d.payment;
  return [
    p.status === "SUCCESS" && `${formatRupees(p.refundedPaise)} of ${formatRupees(p.amountPaise)} refunded · ${formatRupees(p.refundablePaise)} refundable.`,
    d.refunds.some((r) => r.automatic) && "Automatic refunds return a late attempt's money, beyond the payment: they are not counted.",
  ]
    .filter(Boolean)
    .join(" ");
}

function PaymentWebhooks({ d, onChanged }: { d: PaymentDetailData; onChanged: () => unknown }) {
  return (
    <WebhookEvents
      events={d.webhooks}
      onChanged={onChanged}
      notSent="Not sent: no enabled endpoint was subscribed to this event when it happened."
      empty={{
        title: "No webhook events for this payment yet",
        children: (
          <>
            Events are sent when a payment succeeds, fails, expires or is cancelled, and when a refund is processed or fails, to the endpoints on the{" "}
            <Link href="/dashboard/webhooks" className="text-brand-600 hover:underline">
              Webhooks
            </Link>{" "}
            page.
          </>
        ),
      }}
    />
  );
}

export function PaymentDetail({ paymentId }: { paymentId: string }) {
  const { mode } = useMode();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const detail = usePaymentDetail(paymentId);
  const [refunding, setRefunding] = useState(false);
  const refresh = () => qc.invalidateQueries(trpc.payments.get.queryFilter({ mode, paymentId }));
  const refundsChanged = () => Promise.all([refresh(), qc.invalidateQueries(trpc.refunds.pathFilter())]);

  if (detail.isLoading || detail.isError || !detail.data) {
    return (
      <DetailPending
        query={detail}
        back={back}
        label="Loading payment…"
        title="Payment"
        notFound={{ title: `No payment ${paymentId} in ${mode} mode`, children: <NotFoundHint noun="payment" listHref="/dashboard/payments" /> }}
      />
    );
  }
  const d = detail.data;
  const p = d.payment;
  return (
    <>
      {back}
      <PaymentHeader p={p} onRefund={() => setRefunding(true)} />
      {p.refundablePaise > 0 && (
        <RefundDialog
          open={refunding}
          payment={{ id: p.id, orderId: p.orderId, amountPaise: p.amountPaise, refundablePaise: p.refundablePaise }}
          onClose={() => setRefunding(false)}
          onChanged={refundsChanged}
        />
      )}
      <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="min-w-0 space-y-6">
          <PaymentFacts p={p} />
        </div>
        <div className="min-w-0 space-y-6">
          <Card title="Timeline">
            <PaymentTimeline d={d} />
          </Card>
        </div>
      </div>
      <div className="mt-6 space-y-6">
        <Card title="Refunds" description={refundsDescription(d)}>
          <RefundsSection d={d} />
        </Card>
        <Card title="Attempts" description="Card numbers are never stored: only the network and last four digits.">
          <LateResultNote d={d} />
          <AttemptsSection d={d} />
        </Card>
        <Card
          title="Webhooks"
          description="Events about this payment and every delivery attempt. Deliveries can arrive in any order, and an abandoned UPI attempt can still succeed after payment.failed: the status API's answer is the one to act on."
        >
          <PaymentWebhooks d={d} onChanged={refresh} />
        </Card>
      </div>
    </>
  );
}
