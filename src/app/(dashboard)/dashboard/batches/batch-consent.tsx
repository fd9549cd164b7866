"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { Field } from "@/components/ui";
import { PURPOSE_MAX_CHARS, PURPOSE_MIN_CHARS, purposeSchema } from "@/lib/consent";
import { useTRPC } from "@/components/trpc/client";

/** What a live batch sends of its consent: nothing of a field left at the merchant's standing setting, so the batch records it as standing, as the API does. */
export interface BatchConsentInput {
  consent?: boolean;
  purpose?: string;
}

type Standing = { purpose: string | null; standing: boolean };

/**
 * The consent and purpose of a live batch (contract C6), prefilled from the merchant's standing
 * attestation and default purpose. A box or purpose left as prefilled is not sent, so the batch
 * rests on the standing settings (source "standing"); one the merchant set here is sent (source
 * "request"). Both are checked here as the API checks them, and refusals come back by field.
 */
export function useBatchConsent(live: boolean) {
  const trpc = useTRPC();
  const settings = useQuery(trpc.account.consentSettings.queryOptions(undefined, { enabled: live }));
  const standing: Standing = settings.data ?? { purpose: null, standing: false };
  // null: untouched, showing the standing setting.
  const [ticked, setTicked] = useState<boolean | null>(null);
  const [purposeDraft, setPurposeDraft] = useState<string | null>(null);
  const [errors, setErrors] = useState<{ consent?: string; purpose?: string }>({});

  const consent = ticked ?? standing.standing;
  const purpose = purposeDraft ?? standing.purpose ?? "";

  /** The fields to send, or undefined with the errors shown. Sandbox sends none. */
  function check(): BatchConsentInput | undefined {
    if (!live) return {};
    const next: typeof errors = {};
    if (!consent) next.consent = "Tick the box: live batches need each person's consent.";
    const parsed = purposeSchema.safeParse(purpose);
    if (!parsed.success)
      next.purpose =
        purpose.trim() === "" ? `Enter the purpose (${PURPOSE_MIN_CHARS}–${PURPOSE_MAX_CHARS} characters).` : `The purpose ${parsed.error.issues[0]!.message}.`;
    setErrors(next);
    if (next.consent || next.purpose) return undefined;
    const sameAsDefault = standing.purpose !== null && parsed.data === standing.purpose;
    return {
      ...(ticked === null && standing.standing ? {} : { consent: true }),
      ...(sameAsDefault ? {} : { purpose: parsed.data }),
    };
  }

  /** The server's word on a field (CONSENT_REQUIRED names one; a purpose it refused is the other). */
  function showServerErrors(fieldErrors: Record<string, string>) {
    setErrors({ consent: fieldErrors.consent, purpose: fieldErrors.purpose });
  }

  function reset() {
    setTicked(null);
    setPurposeDraft(null);
    setErrors({});
  }

  const fields = live ? (
    <ConsentFields
      consent={consent}
      purpose={purpose}
      standing={standing}
      loading={settings.isLoading}
      errors={errors}
      onConsent={(v) => {
        setTicked(v);
        if (v) setErrors(({ consent: _, ...rest }) => rest);
      }}
      onPurpose={(v) => {
        setPurposeDraft(v);
        setErrors(({ purpose: _, ...rest }) => rest);
      }}
    />
  ) : null;
  return { fields, check, showServerErrors, reset };
}

function ConsentFields({
  consent,
  purpose,
  standing,
  loading,
  errors,
  onConsent,
  onPurpose,
}: {
  consent: boolean;
  purpose: string;
  standing: Standing;
  loading: boolean;
  errors: { consent?: string; purpose?: string };
  onConsent: (v: boolean) => void;
  onPurpose: (v: string) => void;
}) {
  const id = useId();
  const length = purpose.trim().length;
  const fromSettings = standing.purpose !== null && purpose === standing.purpose;
  return (
    <fieldset className="space-y-3 rounded-md border border-slate-200 px-3 py-3 sm:px-4" aria-describedby={`${id}-note`} disabled={loading}>
      <legend className="px-1 text-sm font-medium text-slate-700">Consent and purpose</legend>
      <p id={`${id}-note`} className="text-xs text-slate-500">
        Live checks need the person&apos;s consent for a stated purpose (DPDP Act 2023). Both are stored with the batch and each of its checks.{" "}
        {standing.standing || standing.purpose ? (
          <>
            Filled in from your{" "}
            <Link href="/dashboard/settings" className="text-brand-600 hover:underline">
              consent settings
            </Link>
            ; change them here for this batch only.
          </>
        ) : (
          <>
            To fill them in every time, set a standing attestation and a default purpose in{" "}
            <Link href="/dashboard/settings" className="text-brand-600 hover:underline">
              Settings
            </Link>
            .
          </>
        )}
      </p>
      <div>
        <label className="flex items-start gap-2 text-sm text-slate-700">
          <input
            type="checkbox"
            name="consent"
            className="mt-0.5 h-4 w-4 rounded border-slate-300"
            checked={consent}
            onChange={(e) => onConsent(e.target.checked)}
            aria-invalid={errors.consent ? true : undefined}
            aria-describedby={errors.consent ? `${id}-consent-error` : undefined}
          />
          <span>We have the consent of each person in this file for the purpose below.</span>
        </label>
        {errors.consent && (
          <p id={`${id}-consent-error`} className="mt-1 text-xs text-red-700">
            {errors.consent}
          </p>
        )}
      </div>
      <Field
        label="Purpose"
        name="purpose"
        value={purpose}
        onChange={(e) => onPurpose(e.target.value)}
        error={errors.purpose}
        placeholder="Employee onboarding: identity check before the offer letter"
        hint={`Why you check these people, as they were told (${PURPOSE_MIN_CHARS}–${PURPOSE_MAX_CHARS} characters; ${length} now).${fromSettings ? " Your default purpose." : ""} Sent to vendors that take it.`}
        autoComplete="off"
      />
    </fieldset>
  );
}
