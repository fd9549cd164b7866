"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Badge, Button, Card, CopyButton, EmptyState, ErrorState, LoadingState, PageHeader, formatDateTime } from "@/components/ui";
import { useMode, type Mode } from "@/components/dashboard/mode";
import { keyStatus } from "@/lib/schemas/keys";
import { errorInfo, useTRPC } from "@/components/trpc/client";
import { CreateKeyDialog, RevokeKeyDialog, RotateKeyDialog, type ListedKey } from "./key-dialogs";
import { SecretOnceDialog, type ShownOnceKey } from "@/components/dashboard/secret-once-dialog";
import { ApiExamples } from "./api-examples";
import { SigningSecretCard } from "./signing-secret-card";

/**
 * Re-renders every `ms` so "Expires in …" counts down and lapsed keys move to Inactive; restarts
 * when `freshAt` (the list's fetch time) moves so a just-rotated key reads "1h", not "1h 1m".
 */
function useNow(freshAt: number, ms = 30_000) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms, freshAt]);
  return now;
}

function formatRemaining(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours}h ${minutes % 60}m` : `${hours}h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days}d ${hours % 24}h` : `${days}d`;
}

function StatusBadge({ k, now }: { k: ListedKey; now: number }) {
  const status = keyStatus(k, now);
  if (status === "active") return <Badge tone="green">Active</Badge>;
  if (status === "rotating") return <Badge tone="amber">Expires in {formatRemaining(new Date(k.expiresAt!).getTime() - now)} (rotating)</Badge>;
  if (status === "expired") return <Badge>Expired</Badge>;
  return <Badge tone="red">Revoked</Badge>;
}

function KeyItem({ k, now, onRotate, onRevoke }: { k: ListedKey; now: number; onRotate?: () => void; onRevoke?: () => void }) {
  const status = keyStatus(k, now);
  const working = status === "active" || status === "rotating";
  return (
    <li className="py-4 first:pt-0 last:pb-0">
      <div className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <h3 className="truncate text-sm font-semibold text-slate-900">{k.label}</h3>
          <StatusBadge k={k} now={now} />
        </div>
        {(onRotate || onRevoke) && (
          <div className="flex gap-2">
            {onRotate && status === "active" && (
              <Button variant="secondary" size="sm" onClick={onRotate} aria-label={`Rotate ${k.label}`}>
                Rotate
              </Button>
            )}
            {onRevoke && (
              <Button variant="ghost" size="sm" className="text-red-700 hover:bg-red-50" onClick={onRevoke} aria-label={`Revoke ${k.label}`}>
                {status === "rotating" ? "Revoke now" : "Revoke"}
              </Button>
            )}
          </div>
        )}
      </div>
      <dl className="mt-3 flex flex-wrap gap-x-10 gap-y-3 text-sm">
        <div className="min-w-0">
          <dt className="text-xs text-slate-500">Public key</dt>
          <dd className="mt-0.5 flex min-h-7 items-center gap-2">
            <code className="min-w-0 break-all font-mono text-[13px] text-slate-800">{k.publicKey}</code>
            {working && <CopyButton value={k.publicKey} />}
          </dd>
        </div>
        <div>
          <dt className="text-xs text-slate-500">Secret key</dt>
          <dd
            className="mt-0.5 flex min-h-7 items-center font-mono text-[13px] text-slate-800"
            title="The full secret is shown only once, when the key is created or rotated"
          >
            {k.secretHint}
          </dd>
        </div>
        <div className="flex basis-full flex-wrap gap-x-6 gap-y-1 text-xs text-slate-500">
          <span>
            Created <span className="text-slate-700">{formatDateTime(k.createdAt)}</span>
          </span>
          <span>
            Last used <span className="text-slate-700">{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "Never"}</span>
          </span>
          {status === "rotating" && (
            <span>
              Stops <span className="text-slate-700">{formatDateTime(k.expiresAt)}</span>
            </span>
          )}
          {status === "revoked" && (
            <span>
              Revoked <span className="text-slate-700">{formatDateTime(k.revokedAt)}</span>
            </span>
          )}
          {status === "expired" && (
            <span>
              Expired <span className="text-slate-700">{formatDateTime(k.expiresAt)}</span>
            </span>
          )}
        </div>
      </dl>
    </li>
  );
}

function KeysForMode({ mode }: { mode: Mode }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.keys.list.queryOptions({ mode }));
  const now = useNow(list.dataUpdatedAt);
  const [createOpen, setCreateOpen] = useState(false);
  const [rotating, setRotating] = useState<ListedKey | null>(null);
  const [revoking, setRevoking] = useState<ListedKey | null>(null);
  const [shown, setShown] = useState<{ key: ShownOnceKey; title: string } | null>(null);

  const keys = list.data?.keys ?? [];
  const working = keys.filter((k) => ["active", "rotating"].includes(keyStatus(k, now)));
  const inactive = keys.filter((k) => !["active", "rotating"].includes(keyStatus(k, now)));
  const modeName = mode === "live" ? "live" : "sandbox";

  return (
    <>
      <PageHeader
        title="API keys"
        description={`Keys for ${modeName} mode. Each key is a public key (pk_…) and a secret key (sk_…); the secret is shown only once.`}
        actions={<Button onClick={() => setCreateOpen(true)}>Create key</Button>}
      />
      <div className="space-y-6">
        <Card title={`${mode === "live" ? "Live" : "Sandbox"} keys`}>
          {list.isLoading ? (
            <LoadingState label="Loading keys…" />
          ) : list.isError ? (
            <ErrorState message={errorInfo(list.error).message} onRetry={() => void list.refetch()} />
          ) : working.length === 0 ? (
            <EmptyState title={`No working ${modeName} keys`}>
              <p>Create a key to call the API in {modeName} mode.</p>
              <Button className="mt-3" onClick={() => setCreateOpen(true)}>
                Create key
              </Button>
            </EmptyState>
          ) : (
            <ul className="divide-y divide-slate-100">
              {working.map((k) => (
                <KeyItem key={k.id} k={k} now={now} onRotate={() => setRotating(k)} onRevoke={() => setRevoking(k)} />
              ))}
            </ul>
          )}
          {inactive.length > 0 && (
            <details className="group mt-4 rounded-md border border-slate-200">
              <summary className="cursor-pointer list-none px-4 py-2.5 text-sm font-medium text-slate-700 hover:bg-slate-50 [&::-webkit-details-marker]:hidden">
                <span className="mr-1 inline-block transition-transform group-open:rotate-90" aria-hidden="true">
                  ›
                </span>
                Inactive keys ({inactive.length})
              </summary>
              <ul className="divide-y divide-slate-100 border-t border-slate-100 px-4 py-4 opacity-80">
                {inactive.map((k) => (
                  <KeyItem key={k.id} k={k} now={now} />
                ))}
              </ul>
            </details>
          )}
        </Card>

        {list.data && (
          <SigningSecretCard mode={mode} createdAt={list.data.signingSecret.createdAt} previousValidUntil={list.data.signingSecret.previousValidUntil} />
        )}

        {list.data && <ApiExamples mode={mode} merchantId={list.data.merchantId} apiBaseUrls={list.data.apiBaseUrls} keys={working} />}
      </div>

      <CreateKeyDialog open={createOpen} mode={mode} onClose={() => setCreateOpen(false)} onCreated={(key) => setShown({ key, title: "Your new API key" })} />
      <RotateKeyDialog target={rotating} mode={mode} onClose={() => setRotating(null)} onRotated={(key) => setShown({ key, title: "Your rotated API key" })} />
      <RevokeKeyDialog
        target={revoking}
        mode={mode}
        isLastWorking={revoking !== null && working.length === 1 && working[0]!.id === revoking.id}
        onClose={() => setRevoking(null)}
      />
      <SecretOnceDialog
        shown={shown?.key ?? null}
        title={shown?.title ?? ""}
        firstCall={list.data ? { merchantId: list.data.merchantId, apiBaseUrls: list.data.apiBaseUrls } : null}
        onDone={() => setShown(null)}
      />
    </>
  );
}

export function KeysView() {
  const { mode } = useMode();
  // Keyed by mode so a revealed secret or open dialog never carries over to the other mode.
  return <KeysForMode key={mode} mode={mode} />;
}
