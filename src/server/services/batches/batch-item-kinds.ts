/**
 * What the batch worker does with an item of each kind: read its stored input, run it, and write
 * its verification-history row. The worker looks its batch's kind up here once, not item by item
 * (see validateBatchItems on why a per-item `kind === "PAN"` is not trusted).
 */
import type { VerificationRecord } from "@/server/services/audit/audit-writer";
import type { VendorConsent } from "@/lib/consent";
import { AppError } from "@/server/errors";
import type { ProviderSet } from "@/server/providers";
import type { EpfoMember } from "@/server/providers/epfo/types";
import type { PanRecord } from "@/server/providers/pan/types";
import { epfoVerificationRecord, verifyEpfo, type EpfoLookup } from "@/server/services/employment/verify-epfo";
import { checkPan, panCheckOf, panVerificationRecord, type NameScorer, type PanCheck, type PanVerification } from "@/server/services/identity/verify-pan";
import type { BatchKind, EpfoItemInput, ItemOutcome, PanItemInput } from "./batch-items";
import { isStorableText } from "@/lib/stored-text";

export type { NameScorer };

export interface BatchItemKind {
  /**
   * The stored input as this kind's own, or null when it is not one (a damaged item: stored
   * accepted without its PAN, say). Such an item ends with an error of its own instead of failing
   * its chunk's commit on every retry.
   */
  inputOf(stored: unknown): unknown;
  /** Runs a usable input at the source: its result, or it throws the source's error. */
  run(providers: ProviderSet, input: unknown, scoreNames: NameScorer, consent?: VendorConsent): Promise<ItemOutcome>;
  /**
   * As `run`, at once, for sources that answer without waiting (sandbox fixtures); undefined where
   * the providers have no such answer (live sources), or for a kind without one.
   */
  runLocal?(providers: ProviderSet): ((input: unknown, scoreNames: NameScorer) => ItemOutcome) | undefined;
  /** The merchant's verification-history row of a usable input's outcome. */
  record(input: unknown, outcome: ItemOutcome): VerificationRecord;
}

function itemKind<I>(kind: {
  inputOf(stored: unknown): I | null;
  run(providers: ProviderSet, input: I, scoreNames: NameScorer, consent?: VendorConsent): Promise<ItemOutcome>;
  runLocal?(providers: ProviderSet): ((input: I, scoreNames: NameScorer) => ItemOutcome) | undefined;
  record(input: I, outcome: ItemOutcome): VerificationRecord;
}): BatchItemKind {
  return kind as BatchItemKind;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const errorOf = (o: ItemOutcome) => (o.error ? { error: new AppError(o.error.code, o.error.message) } : null);

function panOutcome({ answer, sourceNameMatch, vendor }: PanCheck): ItemOutcome {
  // The source's score and vendor are written only when there are some, so sandbox chunks stay as they were.
  return { result: answer, error: null, ...(sourceNameMatch === null ? {} : { sourceNameMatch }), ...(vendor === null ? {} : { vendor }) };
}

/** A PAN item's outcome from its source record: an entry of a bulk answer (./bulk-pass.ts) ends as a single call's answer does. */
export function panOutcomeOf(record: PanRecord, name: string | null, scoreNames: NameScorer): ItemOutcome {
  return panOutcome(panCheckOf(record, name, scoreNames));
}

function epfoLookup(input: EpfoItemInput): EpfoLookup {
  return "uan" in input && typeof input.uan === "string" ? { uan: input.uan } : { pfNumber: (input as { pf_number: string }).pf_number };
}

export const BATCH_ITEM_KINDS: Record<BatchKind, BatchItemKind> = {
  PAN: itemKind<PanItemInput>({
    // The stored object itself once checked: a chunk's thousand items are read twice (run, commit).
    // A name no database stores as sent (stored before the door refused it) would fail its chunk's commit every time.
    inputOf: (stored) =>
      isObject(stored) && typeof stored.pan === "string" && (stored.name === null || (typeof stored.name === "string" && isStorableText(stored.name)))
        ? (stored as PanItemInput)
        : null,
    run: async (providers, { pan, name }, scoreNames, consent) =>
      panOutcome(await providers.batchLane("pan", () => checkPan(providers.pan, pan, name, scoreNames, consent))),
    runLocal: ({ pan: provider }) => {
      const lookup = provider.lookupLocal;
      return lookup && (({ pan, name }, scoreNames) => panOutcome(panCheckOf(lookup(pan, { name }), name, scoreNames)));
    },
    record: ({ pan, name }, o) =>
      panVerificationRecord(
        pan,
        name,
        errorOf(o) ?? { result: { answer: o.result as PanVerification, sourceNameMatch: o.sourceNameMatch ?? null, vendor: o.vendor ?? null } },
      ),
  }),
  EPFO: itemKind<EpfoItemInput>({
    inputOf: (stored) => (isObject(stored) && (typeof stored.uan === "string") !== (typeof stored.pf_number === "string") ? (stored as EpfoItemInput) : null),
    run: async (providers, input, _scoreNames, consent) => ({
      result: await providers.batchLane("epfo", () => verifyEpfo(providers.epfo, epfoLookup(input), consent)),
      error: null,
      ...(providers.epfo.vendor ? { vendor: providers.epfo.vendor } : {}),
    }),
    record: (input, o) => epfoVerificationRecord(epfoLookup(input), errorOf(o) ?? { result: o.result as EpfoMember }, o.vendor),
  }),
};

/** The outcome of an item whose stored input is not one of its kind: it fails alone, its chunk goes on. */
export const UNUSABLE_ITEM_ERROR = {
  code: "INTERNAL_ERROR",
  message: "This item could not be run: its stored input is incomplete or unusable. Submit it again in a new batch.",
} as const;
