"use client";

import { Badge, ToneBadge, type Tone } from "@/components/ui";
import { KYC_OUTCOME_LABELS } from "@/lib/schemas/kyc-transactions";

// Pieces shared by the KYC list and the KYC transaction detail.

const OUTCOME_TONES: Record<string, Tone> = {
  VERIFIED: "green",
  VALID: "green",
  INVALID: "amber",
  PENDING: "blue",
  DEACTIVATED: "red",
  DELETED: "red",
  BLOCKED: "red",
  CLOSED: "slate",
};

export function KycOutcomeBadge({ outcome }: { outcome: string }) {
  return <ToneBadge status={outcome} tones={OUTCOME_TONES} labels={KYC_OUTCOME_LABELS} />;
}

/** A charge given back: the answer could not be recorded, so it was never sent. */
export function ReversedBadge() {
  return (
    <span title="The answer could not be recorded, so it was not sent and its fee was given back.">
      <Badge tone="slate">Charge reversed</Badge>
    </span>
  );
}
