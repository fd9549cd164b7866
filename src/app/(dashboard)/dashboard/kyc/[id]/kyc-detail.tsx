"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import {
  BackLink,
  HeaderFacts,
  DetailList,
  DetailPending,
  DetailRow,
  IdRow,
  NotFoundHint,
  noValue,
  retryUnlessMissing,
} from "@/components/dashboard/detail-page";
import { useState } from "react";
import { useMode } from "@/components/dashboard/mode";
import { Button, Card, CopyButton, ErrorState, LoadingState, PageHeader, formatDateTime } from "@/components/ui";
import { consentLabel } from "@/lib/consent";
import { KYC_KIND_LABELS } from "@/lib/kyc";
import { formatRupees } from "@/lib/money";
import { ledgerReasonLabel } from "@/lib/schemas/wallet";
import { errorInfo, useTRPC, type RouterOutputs } from "@/components/trpc/client";
import { formatIst } from "../../logs/parts";
import { NameMatch } from "@/components/dashboard/name-match";
import { KycOutcomeBadge } from "../parts";

const back = <BackLink href="/dashboard/kyc">KYC</BackLink>;

type KycTransaction = RouterOutputs["kyc"]["get"];

/** Instants in the stored answer (verifiedAt) are shown in IST like every dashboard time. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

type StoredAnswer = Extract<RouterOutputs["kyc"]["result"], { retained: true }>;

/** The decrypted answer: the Aadhaar photo, each fact, the address, and the JSON to copy. */
function StoredResult({ r, hide }: { r: StoredAnswer; hide: React.ReactNode }) {
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
        <DetailList labelWidth="10rem" className="-my-2.5 min-w-0 flex-1 divide-y divide-slate-100">
          {r.facts.map((f) => (
            <DetailRow key={f.label} label={f.label}>
              {ISO_INSTANT.test(f.value) ? `${formatIst(f.value)} IST` : f.value}
            </DetailRow>
          ))}
        </DetailList>
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
  return <StoredResult r={r} hide={hide} />;
}

/** The masked Summary card: what was checked, its outcome, and the API request that made it. */
function KycSummary({ t }: { t: KycTransaction }) {
  return (
    <Card title="Summary" description="Masked, kept for as long as the ledger.">
      <DetailList labelWidth="10rem">
        <IdRow label="Transaction id" id={t.id} />
        <DetailRow label="Type">{KYC_KIND_LABELS[t.kind] ?? t.kind}</DetailRow>
        <DetailRow label="Subject">
          <code className="break-all font-mono text-[13px]">{t.subjectMasked}</code>
        </DetailRow>
        <DetailRow label="Outcome">
          <KycOutcomeBadge outcome={t.outcome} />
        </DetailRow>
        <DetailRow label="Name match">
          <NameMatch score={t.nameMatchScore} />
        </DetailRow>
        <DetailRow label="Consent">{consentLabel(t.consent.consent, t.consent.source)}</DetailRow>
        <DetailRow label="Purpose">{t.consent.purpose ? <span className="[overflow-wrap:anywhere]">{t.consent.purpose}</span> : noValue}</DetailRow>
        <DetailRow label="Request">
          {t.requestId ? (
            <Link href={`/dashboard/logs/${encodeURIComponent(t.requestId)}`} className="break-all font-mono text-[13px] text-brand-600 hover:underline">
              {t.requestId}
            </Link>
          ) : (
            noValue
          )}
        </DetailRow>
        <DetailRow label="Time">{formatIst(t.createdAt)} IST</DetailRow>
        <DetailRow label="Mode">
          <span className="capitalize">{t.mode}</span>
        </DetailRow>
      </DetailList>
    </Card>
  );
}

/** What the check cost and the wallet ledger entry that took it. */
function KycCharge({ t }: { t: KycTransaction }) {
  return (
    <Card title="Charge">
      <DetailList labelWidth="10rem">
        <DetailRow label="Fee">
          <span className="tabular-nums">{formatRupees(t.feePaise)}</span>
        </DetailRow>
        <DetailRow label="Balance after">
          <span className="tabular-nums">{formatRupees(t.balanceAfterPaise)}</span>
        </DetailRow>
        {t.reversedAt && (
          <DetailRow label="Reversed">
            <span className="flex flex-col">
              <span>{formatIst(t.reversedAt)} IST</span>
              <span className="text-xs text-slate-500">The answer could not be recorded, so it was not sent and the fee was given back.</span>
            </span>
          </DetailRow>
        )}
        <DetailRow label="Ledger entry">
          {t.ledgerEntry ? (
            <span className="flex flex-col">
              <code className="break-all font-mono text-[13px]">{t.ledgerEntry.id}</code>
              <span className="text-xs text-slate-500">
                {ledgerReasonLabel(t.ledgerEntry.reason)} · −{formatRupees(Math.abs(t.ledgerEntry.amountPaise))}
              </span>
            </span>
          ) : (
            noValue
          )}
        </DetailRow>
      </DetailList>
      <p className="mt-4 text-xs text-slate-500">
        <Link href="/dashboard/wallet" className="text-brand-600 hover:underline">
          Open the wallet ledger
        </Link>
      </p>
    </Card>
  );
}

export function KycDetail({ id }: { id: string }) {
  const { mode } = useMode();
  const trpc = useTRPC();
  const detail = useQuery(trpc.kyc.get.queryOptions({ mode, id }, { retry: retryUnlessMissing }));

  if (detail.isLoading || detail.isError || !detail.data) {
    return (
      <DetailPending
        query={detail}
        back={back}
        label="Loading KYC transaction…"
        title="KYC transaction"
        notFound={{ title: `No KYC transaction ${id} in ${mode} mode`, children: <NotFoundHint noun="call" listHref="/dashboard/kyc" /> }}
      />
    );
  }

  const t = detail.data;
  return (
    <>
      {back}
      <PageHeader
        title={KYC_KIND_LABELS[t.kind] ?? t.kind}
        description={
          <HeaderFacts>
            <KycOutcomeBadge outcome={t.outcome} />
            <span className="font-mono text-xs text-slate-700">{t.subjectMasked}</span>
            <span>{formatIst(t.createdAt)} IST</span>
          </HeaderFacts>
        }
      />
      <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <KycSummary t={t} />
        <KycCharge t={t} />
      </div>
      <div className="mt-6">
        <Card title="Full result" description="The answer your server received, as stored for re-reading.">
          <FullResult id={t.id} retained={t.result.retained} expiresAt={t.result.expiresAt} retentionDays={t.result.retentionDays} />
        </Card>
      </div>
    </>
  );
}
