"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Card, CopyButton, Dialog, DialogActions, Notice, formatDateTime, useToast } from "@/components/ui";
import type { Mode } from "@/components/dashboard/mode";
import { isReauthCancelled, useReauth } from "@/components/dashboard/reauth";
import { errorInfo, useTRPC } from "@/components/trpc/client";

/** A new secret from now on; the previous one keeps working for 24 hours. */
function RotateSecretDialog({ mode, open, onClose, onRotated }: { mode: Mode; open: boolean; onClose: () => void; onRotated: (secret: string) => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const rotate = useMutation(trpc.keys.rotateSigningSecret.mutationOptions());
  const withReauth = useReauth();
  const [rotateError, setRotateError] = useState<string | null>(null);
  return (
    <Dialog
      open={open}
      onClose={() => {
        onClose();
        setRotateError(null);
      }}
      title="Rotate signing secret"
    >
      <div className="space-y-4">
        {rotateError && <Notice tone="error">{rotateError}</Notice>}
        <p className="text-sm text-slate-600">
          A new secret signs everything from now on. The previous secret stays valid for <strong className="font-medium text-slate-900">24 hours</strong>:
          during that time each webhook carries two <code className="font-mono text-xs">v1=</code> signatures, one per secret, so your receiver keeps working
          while you deploy the new one.
        </p>
        <DialogActions onCancel={onClose}>
          <Button
            loading={rotate.isPending}
            onClick={async () => {
              setRotateError(null);
              try {
                const r = await withReauth("rotate the signing secret", (reauth) => rotate.mutateAsync({ mode, reauth }));
                onRotated(r.secret);
                void qc.invalidateQueries(trpc.keys.list.queryFilter());
                toast("success", "Signing secret rotated. The new secret is shown; the previous one works for 24 hours.");
              } catch (err) {
                if (!isReauthCancelled(err)) setRotateError(errorInfo(err).message);
              }
            }}
          >
            Rotate secret
          </Button>
        </DialogActions>
      </div>
    </Dialog>
  );
}

/** The mode's webhook/redirect signing secret: masked until the merchant asks to see it. */
export function SigningSecretCard({ mode, createdAt, previousValidUntil }: { mode: Mode; createdAt: string | null; previousValidUntil: string | null }) {
  const trpc = useTRPC();
  const toast = useToast();
  const reveal = useMutation(trpc.keys.revealSigningSecret.mutationOptions());
  const withReauth = useReauth();
  const [secret, setSecret] = useState<string | null>(null);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const graceOpen = previousValidUntil && new Date(previousValidUntil).getTime() > Date.now();

  return (
    <Card
      title="Webhook signing secret"
      description={
        <>
          Signs webhooks and checkout redirects in {mode} mode (<code className="font-mono text-xs">X-Webhook-Signature</code>). Verify it on your server.
        </>
      }
    >
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <code
          className="min-w-0 break-all rounded-md bg-slate-100 px-3 py-2 font-mono text-sm text-slate-800 sm:flex-1"
          aria-label={secret ? "Signing secret" : "Signing secret (hidden)"}
        >
          {secret ?? "whsec_••••••••••••••••"}
        </code>
        <div className="flex gap-2">
          {secret ? (
            <>
              <CopyButton value={secret} />
              <Button variant="secondary" size="sm" onClick={() => setSecret(null)}>
                Hide
              </Button>
            </>
          ) : (
            <Button
              variant="secondary"
              size="sm"
              loading={reveal.isPending}
              onClick={async () => {
                try {
                  const r = await withReauth("reveal the signing secret", (reauth) => reveal.mutateAsync({ mode, reauth }));
                  setSecret(r.secret);
                } catch (err) {
                  if (!isReauthCancelled(err)) toast("error", errorInfo(err).message);
                }
              }}
            >
              Reveal
            </Button>
          )}
          <Button variant="secondary" size="sm" onClick={() => setConfirmOpen(true)}>
            Rotate
          </Button>
        </div>
      </div>
      <p className="mt-2 text-xs text-slate-500">
        {createdAt ? `Current secret since ${formatDateTime(createdAt)}.` : null}
        {graceOpen ? ` The previous secret is still accepted until ${formatDateTime(previousValidUntil)}.` : null}
      </p>

      <RotateSecretDialog
        mode={mode}
        open={confirmOpen}
        onClose={() => setConfirmOpen(false)}
        onRotated={(newSecret) => {
          setSecret(newSecret);
          setConfirmOpen(false);
        }}
      />
    </Card>
  );
}
