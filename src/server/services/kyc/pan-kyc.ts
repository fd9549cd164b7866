import { maskPan } from "@/lib/pan";
import type { PanProvider } from "@/server/providers/pan/types";
import { nameMatchResult, nameMatchScore, type NameMatchResult } from "@/server/services/identity/name-match";
import { runChargedKyc, withSourceTimeout, type KycCaller, type KycVault } from "@/server/services/kyc/charge";

export interface NameMatch {
  score: number;
  result: NameMatchResult;
}

/** The name-match block of a KYC answer; null when no name was sent or none is on record. */
export function nameMatchOf(sent: string | null, onRecord: string | null): NameMatch | null {
  if (!sent || !onRecord) return null;
  const score = nameMatchScore(sent, onRecord);
  return { score, result: nameMatchResult(score) };
}

/**
 * PAN KYC: the PAN source and the name matcher of PAN verification, plus a date-of-birth check,
 * charged from the wallet. Every status is an answer (INVALID included), so every one is charged.
 */
export async function panKyc(vault: KycVault, provider: PanProvider, caller: KycCaller, input: { pan: string; name: string | null; dob: string | null }) {
  return runChargedKyc(vault, caller, "PAN", async () => {
    const record = await withSourceTimeout(provider.lookup(input.pan, { name: input.name, dob: input.dob }));
    const nameMatch = nameMatchOf(input.name, record.name);
    return {
      data: {
        pan: record.pan,
        status: record.status,
        registeredName: record.name,
        category: record.category,
        nameMatch,
        // A source that checks the date itself answers dobMatch; one that gives the date is compared here.
        dobMatch: record.dobMatch !== undefined ? record.dobMatch : input.dob && record.dob ? input.dob === record.dob : null,
        aadhaarSeedingStatus: record.aadhaarSeedingStatus,
      },
      summary: { kind: "PAN", subjectMasked: maskPan(record.pan), outcome: record.status, nameMatchScore: nameMatch?.score ?? null },
    };
  });
}
