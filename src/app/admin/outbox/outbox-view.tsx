"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { Badge, Card, CopyButton, EmptyState, ErrorState, LoadMoreFooter, LoadingState, Notice, PageHeader, formatDateTime } from "@/components/ui";
import { errorInfo, useTRPC } from "@/components/trpc/client";

const STATUS: Record<string, { label: string; tone: "amber" | "green" | "red" | "slate" }> = {
  OUTBOX: { label: "In outbox", tone: "amber" },
  SENDING: { label: "Sending", tone: "slate" },
  SENT: { label: "Sent", tone: "green" },
  FAILED: { label: "Failed", tone: "red" },
};

/** Email the service sent, and without SMTP the messages themselves, for an operator to pass on. */
export function OutboxView({ smtpConfigured }: { smtpConfigured: boolean }) {
  const trpc = useTRPC();
  const q = useInfiniteQuery(trpc.admin.emails.infiniteQueryOptions({}, { getNextPageParam: (last) => last.nextCursor }));
  const items = q.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <div className="space-y-4">
      <PageHeader title="Outbox" description="Email the service sends (password-reset links), newest first." />
      {smtpConfigured ? (
        <Notice tone="info">Email goes out through SMTP_URL. Sent messages keep their envelope only: a reset link is not stored once delivered.</Notice>
      ) : (
        <Notice tone="warning">
          SMTP_URL is not set, so no email leaves this server: messages wait here. Pass a reset link on only to the account owner, through a channel you trust;
          it works once, for 30 minutes.
        </Notice>
      )}
      <Card>
        {q.isPending && <LoadingState label="Loading messages…" />}
        {q.isError && <ErrorState message={errorInfo(q.error).message} onRetry={() => void q.refetch()} />}
        {q.isSuccess && items.length === 0 && <EmptyState title="No email yet">Password-reset requests appear here.</EmptyState>}
        {items.length > 0 && (
          <>
            <ul className="divide-y divide-slate-100">
              {items.map((m) => {
                const status = STATUS[m.status] ?? { label: m.status, tone: "slate" as const };
                return (
                  <li key={m.id} className="py-4">
                    <div className="flex flex-wrap items-center gap-2 text-sm">
                      <Badge tone={status.tone}>{status.label}</Badge>
                      <span className="font-medium text-slate-900">{m.subject}</span>
                    </div>
                    <dl className="mt-1 grid gap-x-6 gap-y-0.5 text-xs text-slate-500 sm:grid-cols-[auto_1fr]">
                      <dt>To</dt>
                      <dd className="break-all text-slate-700">{m.to}</dd>
                      <dt>Created</dt>
                      <dd>{formatDateTime(m.createdAt)}</dd>
                      {m.sentAt && (
                        <>
                          <dt>Sent</dt>
                          <dd>{formatDateTime(m.sentAt)}</dd>
                        </>
                      )}
                      {m.error && (
                        <>
                          <dt>Error</dt>
                          <dd className="break-words text-red-700">{m.error}</dd>
                        </>
                      )}
                    </dl>
                    {m.body !== null ? (
                      <div className="mt-2">
                        <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-all rounded-md bg-slate-50 p-3 text-xs text-slate-800">{m.body}</pre>
                        <div className="mt-1">
                          <CopyButton value={m.body} label="Copy message" />
                        </div>
                      </div>
                    ) : (
                      <p className="mt-2 text-xs text-slate-500">Body not kept (handed to SMTP).</p>
                    )}
                  </li>
                );
              })}
            </ul>
            <LoadMoreFooter count={items.length} noun={["message", "messages"]} query={q} />
          </>
        )}
      </Card>
    </div>
  );
}
