"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useMode } from "@/components/dashboard/mode";
import { Button, Card, CopyButton, EmptyState, ErrorState, LoadingState, PageHeader, formatDateTime } from "@/components/ui";
import { KYC_KIND_LABELS } from "@/lib/kyc";
import { formatRupees } from "@/lib/money";
import { ledgerReasonLabel } from "@/lib/schemas/wallet";
import { errorInfo, useTRPC } from "@/lib/trpc/client";
import { formatIst } from "../../logs/parts";
import { KycOutcomeBadge, NameMatchScore } from "../parts";

function BackLink() {
  return (
    <Link href="/dashboard/kyc" className="mb-3 inline-flex items-center gap-1 text-sm text-brand-600 hover:underline">
      <span aria-hidden="true">←</span> KYC
    </Link>
  );
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid gap-1 py-2.5 sm:grid-cols-[10rem_minmax(0,1fr)] sm:gap-4">
      <dt className="text-sm text-slate-500">{label}</dt>
      <dd className="min-w-0 break-words text-sm text-slate-900">{children}</dd>
    </div>
  );
}

const none = <span className="text-slate-400">—</span>;

/** Instants in the stored answer (verifiedAt) are shown in IST like every dashboard time. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

/**
 * The stored answer, fetched only when asked for: the list and the summary never carry the photo,
 * the address or unmasked numbers. Hiding it drops it from the page's cache too.
 */
function FullResult({ id, retained, expiresAt, retentionDays }: { id: string; retained: boolean; expiresAt: string | null; retentionDays: number }) {
  const { mode } = useMode();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [show, setShow] = useState(false);
  const opts = trpc.kyc.result.queryOptions({ mode, id }, { enabled: show, staleTime: 0, gcTime: 0, retry: false });
  const result = useQuery(opts);

  const deleted =
    retentionDays > 0
      ? `The full result was deleted after ${retentionDays} ${retentionDays === 1 ? "day" : "days"}; the masked summary stays.`
      : "Full results are not kept on this service (retention is 0 days); the masked summary stays.";

  if (!retained) return <p className="text-sm text-slate-600">{deleted}</p>;

  if (!show) {
    return (
      <div className="space-y-3">
        <p className="text-sm text-slate-600">
          The whole answer of this call, personal data included, is stored encrypted
          {expiresAt ? ` until ${formatDateTime(expiresAt)}` : ""}. It is shown only when you ask for it.
        </p>
        <Button variant="secondary" onClick={() => setShow(true)}>
          Show full result
        </Button>
      </div>
    );
  }

  const hide = (
    <Button
      variant="secondary"
      onClick={() => {
        setShow(false);
        qc.removeQueries({ queryKey: opts.queryKey });
      }}
    >
      Hide full result
    </Button>
  );

  if (result.isLoading) return <LoadingState label="Decrypting the stored result…" />;
  if (result.isError || !result.data) return <ErrorState message={errorInfo(result.error).message} onRetry={() => void result.refetch()} />;
  const r = result.data;
  if (!r.retained) return <p className="text-sm text-slate-600">{deleted}</p>;
  return (
    <div className="space-y-5" data-testid="kyc-full-result">
      <div className="flex flex-col gap-5 sm:flex-row sm:items-start">
        {r.photo && (
          <figure className="shrink-0">
            {/* A data URI from the stored answer: nothing for next/image to optimise. */}
            <img
              src={`data:image/jpeg;base64,${r.photo}`}
              alt="Photo on the Aadhaar record"
              className="h-32 w-28 rounded-md border border-slate-200 bg-slate-50 object-cover"
            />
            <figcaption className="mt-1 text-xs text-slate-500">Aadhaar photo</figcaption>
          </figure>
        )}
        <dl className="-my-2.5 min-w-0 flex-1 divide-y divide-slate-100">
          {r.facts.map((f) => (
            <Row key={f.label} label={f.label}>
              {ISO_INSTANT.test(f.value) ? `${formatIst(f.value)} IST` : f.value}
            </Row>
          ))}
        </dl>
      </div>
      {r.address && (
        <section aria-label="Address">
          <h3 className="text-xs font-medium uppercase tracking-wide text-slate-500">Address</h3>
          {r.address.full && <p className="mt-1 text-sm text-slate-900">{r.address.full}</p>}
          {r.address.parts.length > 0 && (
            <dl className="mt-2 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
              {r.address.parts.map((p) => (
                <div key={p.label} className="flex flex-wrap justify-between gap-x-3 border-b border-slate-100 py-1">
                  <dt className="text-slate-500">{p.label}</dt>
                  <dd className="min-w-0 break-words text-right text-slate-900">{p.value}</dd>
                </div>
              ))}
            </dl>
          )}
        </section>
      )}
      <div className="flex flex-wrap items-center gap-2">
        {hide}
        <CopyButton value={r.json} label="Copy JSON" />
        {r.expiresAt && <span className="text-xs text-slate-500">Deleted after {formatDateTime(r.expiresAt)}.</span>}
      </div>
    </div>
  );
}

export function KycDetail({ id }: { id: string }) {
  const { mode, liveEnabled } = useMode();
  const trpc = useTRPC();
  const detail = useQuery(
    trpc.kyc.get.queryOptions(
      { mode, id },
      { retry: (count, err) => !["NOT_FOUND", "BAD_REQUEST"].includes((err as { data?: { code?: string } }).data?.code ?? "") && count < 1 },
    ),
  );

  if (detail.isLoading) {
    return (
      <>
        <BackLink />
        <LoadingState label="Loading KYC transaction…" />
      </>
    );
  }
  if (detail.isError || !detail.data) {
    const code = (detail.error as { data?: { code?: string } } | null)?.data?.code;
    return (
      <>
        <BackLink />
        <PageHeader title="KYC transaction" />
        {code === "NOT_FOUND" || code === "BAD_REQUEST" ? (
          <EmptyState title={`No KYC transaction ${id} in ${mode} mode`}>
            <p>
              {liveEnabled ? `It may be a ${mode === "live" ? "sandbox" : "live"} call: switch mode at the top of the page, or ` : "Check the id, or "}
              <Link href="/dashboard/kyc" className="text-brand-600 hover:underline">
                go back to the list
              </Link>
              .
            </p>
          </EmptyState>
        ) : (
          <ErrorState message={errorInfo(detail.error).message} onRetry={() => void detail.refetch()} />
        )}
      </>
    );
  }

  const t = detail.data;
  return (
    <>
      <BackLink />
      <PageHeader
        title={KYC_KIND_LABELS[t.kind] ?? t.kind}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <KycOutcomeBadge outcome={t.outcome} />
            <span className="font-mono text-xs text-slate-700">{t.subjectMasked}</span>
            <span>{formatIst(t.createdAt)} IST</span>
          </span>
        }
      />
      <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <Card title="Summary" description="Masked, kept for as long as the ledger.">
          <dl className="-my-2.5 divide-y divide-slate-100">
            <Row label="Transaction id">
              <span className="inline-flex flex-wrap items-center gap-2">
                <code className="break-all font-mono text-[13px]">{t.id}</code>
                <CopyButton value={t.id} label="Copy" />
              </span>
            </Row>
            <Row label="Type">{KYC_KIND_LABELS[t.kind] ?? t.kind}</Row>
            <Row label="Subject">
              <code className="break-all font-mono text-[13px]">{t.subjectMasked}</code>
            </Row>
            <Row label="Outcome">
              <KycOutcomeBadge outcome={t.outcome} />
            </Row>
            <Row label="Name match">
              <NameMatchScore score={t.nameMatchScore} />
            </Row>
            <Row label="Request">
              {t.requestId ? (
                <Link href={`/dashboard/logs/${encodeURIComponent(t.requestId)}`} className="break-all font-mono text-[13px] text-brand-600 hover:underline">
                  {t.requestId}
                </Link>
              ) : (
                none
              )}
            </Row>
            <Row label="Time">{formatIst(t.createdAt)} IST</Row>
            <Row label="Mode">
              <span className="capitalize">{t.mode}</span>
            </Row>
          </dl>
        </Card>
        <Card title="Charge">
          <dl className="-my-2.5 divide-y divide-slate-100">
            <Row label="Fee">
              <span className="tabular-nums">{formatRupees(t.feePaise)}</span>
            </Row>
            <Row label="Balance after">
              <span className="tabular-nums">{formatRupees(t.balanceAfterPaise)}</span>
            </Row>
            <Row label="Ledger entry">
              {t.ledgerEntry ? (
                <span className="flex flex-col">
                  <code className="break-all font-mono text-[13px]">{t.ledgerEntry.id}</code>
                  <span className="text-xs text-slate-500">
                    {ledgerReasonLabel(t.ledgerEntry.reason)} · −{formatRupees(Math.abs(t.ledgerEntry.amountPaise))}
                  </span>
                </span>
              ) : (
                none
              )}
            </Row>
          </dl>
          <p className="mt-4 text-xs text-slate-500">
            <Link href="/dashboard/wallet" className="text-brand-600 hover:underline">
              Open the wallet ledger
            </Link>
          </p>
        </Card>
      </div>
      <div className="mt-6">
        <Card title="Full result" description="The answer your server received, as stored for re-reading.">
          <FullResult id={t.id} retained={t.result.retained} expiresAt={t.result.expiresAt} retentionDays={t.result.retentionDays} />
        </Card>
      </div>
    </>
  );
}
