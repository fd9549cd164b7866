"use client";

import { DeliveryItem, type Delivery } from "@/components/dashboard/delivery-item";
import { EmptyState, cx } from "@/components/ui";
import { formatIst } from "@/lib/ist";

/** A webhook event about one payment or batch, with its deliveries (none when no endpoint took it). */
export interface WebhookEvent {
  eventId: string;
  type: string;
  createdAt: string;
  deliveries: Delivery[];
}

/**
 * The Webhooks card of a detail page: each event about the subject, its deliveries with their
 * attempts and a Resend button each.
 */
export function WebhookEvents({
  events,
  onChanged,
  empty,
  notSent,
  breakEventIds = false,
}: {
  events: WebhookEvent[];
  /** Called after a resend, to refetch the page. */
  onChanged: () => unknown;
  /** Shown while there is no event yet: title and what would send one. */
  empty: { title: string; children: React.ReactNode };
  /** Why an event without deliveries was not sent. */
  notSent: string;
  /** Long event ids may break anywhere to fit a phone. */
  breakEventIds?: boolean;
}) {
  if (events.length === 0) return <EmptyState title={empty.title}>{empty.children}</EmptyState>;
  return (
    <div className="space-y-4">
      {events.map((w) => (
        <section key={w.eventId} aria-label={`${w.type} event`}>
          <h3 className="flex flex-wrap items-baseline gap-x-2 text-sm">
            <code className="font-mono font-medium text-slate-900">{w.type}</code>
            <span className={cx(breakEventIds && "break-all", "font-mono text-xs text-slate-500")}>{w.eventId}</span>
            <span className="text-xs text-slate-500">{formatIst(w.createdAt, true)}</span>
          </h3>
          {w.deliveries.length === 0 ? (
            <p className="mt-1 text-sm text-slate-500">{notSent}</p>
          ) : (
            <ul className="-mx-4 mt-2 divide-y divide-slate-100 border-y border-slate-100 sm:mx-0 sm:rounded-md sm:border">
              {w.deliveries.map((x) => (
                <DeliveryItem key={x.id} d={x} onChanged={onChanged} grouped />
              ))}
            </ul>
          )}
        </section>
      ))}
      {events.some((w) => w.deliveries.length > 0) && (
        <p className="text-xs text-slate-500">
          Resend sends the same event (same id and body) again; your endpoint should ignore event ids it has already handled.
        </p>
      )}
    </div>
  );
}
