"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, ErrorState, Field, LoadingState, formatDateTime, useToast } from "@/components/ui";
import { PURPOSE_MAX_CHARS, PURPOSE_MIN_CHARS, consentSettingsInput } from "@/lib/consent";
import { errorInfo, useTRPC } from "@/components/trpc/client";

type Settings = { purpose: string | null; standing: boolean; standingSince: Date | string | null };

function ConsentForm({ initial }: { initial: Settings }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const [purpose, setPurpose] = useState(initial.purpose ?? "");
  const [standing, setStanding] = useState(initial.standing);
  const [error, setError] = useState<string | undefined>();
  const save = useMutation(trpc.account.updateConsentSettings.mutationOptions());

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    const parsed = consentSettingsInput.safeParse({ purpose, standing });
    if (!parsed.success) {
      setError(`The purpose ${parsed.error.issues[0]!.message}.`);
      return;
    }
    setError(undefined);
    try {
      await save.mutateAsync({ purpose, standing });
      await qc.invalidateQueries({ queryKey: trpc.account.consentSettings.queryKey() });
      toast("success", "Consent settings saved.");
    } catch (err) {
      const info = errorInfo(err);
      setError(info.fieldErrors.purpose ?? info.message);
      toast("error", info.message);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label="Consent settings">
      <Field
        label="Default purpose"
        name="purpose"
        value={purpose}
        onChange={(e) => setPurpose(e.target.value)}
        error={error}
        placeholder="Customer onboarding: identity check before account opening"
        hint={`Why you run checks, as your customers are told (${PURPOSE_MIN_CHARS}–${PURPOSE_MAX_CHARS} characters). Used by live calls that send no purpose of their own. Leave empty for none.`}
      />
      <label className="flex items-start gap-2 text-sm text-slate-700">
        <input
          type="checkbox"
          name="standing"
          className="mt-0.5 h-4 w-4 rounded border-slate-300"
          checked={standing}
          onChange={(e) => setStanding(e.target.checked)}
        />
        <span>
          We collect each person&apos;s consent for the stated purpose before every check we make through Parakh (a standing attestation, used by live calls
          that send no <code className="font-mono text-xs">consent</code> of their own).
          {initial.standing && initial.standingSince && <span className="block text-xs text-slate-500">Given {formatDateTime(initial.standingSince)}.</span>}
        </span>
      </label>
      <Button type="submit" loading={save.isPending}>
        Save consent settings
      </Button>
    </form>
  );
}

/**
 * The default purpose and the standing consent attestation of live checks (contract C6): a live call
 * without consent and a purpose, in the request or here, is refused with 422 CONSENT_REQUIRED.
 */
export function ConsentSettings() {
  const trpc = useTRPC();
  const settings = useQuery(trpc.account.consentSettings.queryOptions());
  if (settings.isLoading) return <LoadingState />;
  if (settings.error || !settings.data) return <ErrorState message={errorInfo(settings.error).message} onRetry={() => void settings.refetch()} />;
  return <ConsentForm key={`${settings.data.purpose}|${String(settings.data.standingSince)}`} initial={settings.data} />;
}
