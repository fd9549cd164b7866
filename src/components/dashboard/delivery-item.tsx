"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { Badge, Button, useToast } from "@/components/ui";
import { useMode } from "@/components/dashboard/mode";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { formatIst } from "@/lib/ist";
import { HttpStatusBadge, formatLatency } from "@/components/dashboard/http-status";

// One webhook delivery with its attempts and a Resend button; used by the Webhooks page and the
// webhook sections of the payment and batch pages.

export type Delivery = RouterOutputs["webhooks"]["deliveries"]["items"][number];
type DeliveryAttempt = Delivery["attempts"][number];

export function DeliveryStatusBadge({ status, attemptCount }: { status: string; attemptCount: number }) {
  if (status === "DELIVERED") return <Badge tone="green">Delivered</Badge>;
  if (status === "FAILED") return <Badge tone="red">Failed</Badge>;
  return attemptCount === 0 ? <Badge tone="blue">Queued</Badge> : <Badge tone="amber">Retrying</Badge>;
}

function nextTry(iso: string): string {
  const minutes = Math.round((new Date(iso).getTime() - Date.now()) / 60_000);
  const at = formatIst(iso, true);
  if (minutes <= 0) return `due now (${at})`;
  if (minutes < 60) return `in ${minutes} min (${at})`;
  const hours = Math.floor(minutes / 60);
  return `in ${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ""} (${at})`;
}

function summary(d: Delivery): string {
  const tries = `${d.attemptCount} ${d.attemptCount === 1 ? "attempt" : "attempts"}`;
  if (d.status === "DELIVERED") return `Delivered ${d.deliveredAt ? formatIst(d.deliveredAt, true) : ""} · ${tries}`;
  if (d.status === "FAILED") return d.attemptCount ? `Gave up after ${tries}` : "Stopped before it was sent (endpoint deleted)";
  if (d.attemptCount === 0) return "Queued: goes out within seconds";
  return `${tries} so far · next try ${d.nextAttemptAt ? nextTry(d.nextAttemptAt) : "soon"}`;
}

function AttemptRow({ a }: { a: DeliveryAttempt }) {
  return (
    <li className="py-2.5">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-600">
        <span className="font-medium text-slate-800">Attempt {a.attemptNo}</span>
        <span>{formatIst(a.createdAt, true)}</span>
        {a.statusCode !== null ? <HttpStatusBadge status={a.statusCode} /> : <Badge tone="red">No response</Badge>}
        <span className="tabular-nums">{formatLatency(a.latencyMs)}</span>
      </div>
      {a.error && <p className="mt-1 break-words text-xs text-red-700">{a.error}</p>}
      {a.responseExcerpt && (
        <pre className="mt-1.5 max-h-40 overflow-auto whitespace-pre-wrap rounded bg-slate-50 px-2.5 py-1.5 font-mono text-[11px] leading-relaxed text-slate-700 [overflow-wrap:anywhere]">
          {a.responseExcerpt}
        </pre>
      )}
    </li>
  );
}

/** `grouped`: listed under its event (payment detail), so the event's type, id and payment are not repeated. */
export function DeliveryItem({ d, onChanged, grouped = false }: { d: Delivery; onChanged: () => unknown; grouped?: boolean }) {
  const trpc = useTRPC();
  const toast = useToast();
  const { mode } = useMode();
  const resend = useMutation(trpc.webhooks.resend.mutationOptions());
  const isTest = d.eventType === "webhook.test";
  return (
    <li className="px-4 py-3 sm:px-5">
      <div className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <DeliveryStatusBadge status={d.status} attemptCount={d.attemptCount} />
            {!grouped && <code className="font-mono text-xs font-medium text-slate-900">{d.eventType}</code>}
            {isTest && <Badge>Test</Badge>}
            <span className="text-xs text-slate-500">{formatIst(d.createdAt, true)}</span>
          </div>
          <p className="mt-1 break-all font-mono text-xs text-slate-600" title={d.endpointDescription ?? undefined}>
            {d.url}
          </p>
          <p className="mt-0.5 text-xs text-slate-500">{summary(d)}</p>
          {!grouped && (
            <p className="mt-0.5 flex flex-wrap gap-x-3 text-xs text-slate-500">
              <span className="break-all font-mono">{d.eventId}</span>
              {d.subjectId?.startsWith("pay_") && (
                <Link href={`/dashboard/payments/${encodeURIComponent(d.subjectId)}`} className="text-brand-600 hover:underline">
                  View payment
                </Link>
              )}
              {d.subjectId?.startsWith("batch_") && (
                <Link href={`/dashboard/batches/${encodeURIComponent(d.subjectId)}`} className="text-brand-600 hover:underline">
                  View batch
                </Link>
              )}
            </p>
          )}
        </div>
        <Button
          variant="secondary"
          size="sm"
          loading={resend.isPending}
          aria-label={`Resend ${d.eventType} event ${d.eventId} to ${d.url}`}
          onClick={async () => {
            try {
              await resend.mutateAsync({ mode, deliveryId: d.id });
              toast("success", `Resending ${d.eventType} to ${d.url}. It goes out within seconds.`);
              await onChanged();
            } catch (err) {
              toast("error", errorInfo(err).message);
            }
          }}
        >
          Resend
        </Button>
      </div>
      {d.attempts.length > 0 && (
        <details className="group mt-2">
          <summary className="cursor-pointer select-none text-xs font-medium text-brand-600 hover:underline">
            <span className="group-open:hidden">Show {d.attempts.length === 1 ? "the attempt" : `${d.attempts.length} attempts`}</span>
            <span className="hidden group-open:inline">Hide attempts</span>
          </summary>
          <ol className="mt-1 divide-y divide-slate-100 border-l-2 border-slate-100 pl-3">
            {d.attempts.map((a) => (
              <AttemptRow key={a.id} a={a} />
            ))}
          </ol>
        </details>
      )}
    </li>
  );
}
