import { maskPan } from "@/lib/pan";
import type { PanProvider, PanRecord } from "@/server/providers/pan/types";
import { nameHolderOfPan, nameMatchResult, nameMatchScore, type NameHolder, type NameMatchResult } from "@/server/services/identity/name-match";
import { runChargedKyc, runLocallyAnsweredKyc, vendorOptionsOf, withSourceTimeout, type KycCaller, type KycVault } from "@/server/services/kyc/charge";

interface PanKycInput {
  pan: string;
  name: string | null;
  dob: string | null;
}

export interface NameMatch {
  score: number;
  result: NameMatchResult;
}

/** The name-match block of a KYC answer; null when no name was sent or none is on record. */
export function nameMatchOf(sent: string | null, onRecord: string | null, holder: NameHolder): NameMatch | null {
  if (!sent || !onRecord) return null;
  const score = nameMatchScore(sent, onRecord, holder);
  return { score, result: nameMatchResult(score) };
}

/** The answer for one PAN record: the caller's name and date of birth checked against it. */
function panAnswer(record: PanRecord, input: PanKycInput) {
  const nameMatch = nameMatchOf(input.name, record.name, nameHolderOfPan(record.category));
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
    summary: {
      kind: "PAN" as const,
      subjectMasked: maskPan(record.pan),
      outcome: record.status,
      nameMatchScore: nameMatch?.score ?? null,
      vendor: record.vendor ?? null,
    },
  };
}

/**
 * PAN KYC: the PAN source and the name matcher of PAN verification, plus a date-of-birth check,
 * charged from the wallet. Every status is an answer (INVALID included), so every one is charged.
 * A source of local fixtures answers first and is charged after, without a hold.
 */
export async function panKyc(vault: KycVault, provider: PanProvider, caller: KycCaller, input: PanKycInput) {
  const options = { name: input.name, dob: input.dob, ...vendorOptionsOf(caller) };
  const local = provider.lookupLocal;
  if (local) return runLocallyAnsweredKyc(vault, caller, () => panAnswer(local(input.pan, options), input));
  return runChargedKyc(vault, caller, "PAN", async () => panAnswer(await withSourceTimeout(provider.lookup(input.pan, options)), input));
}
