import type { ErrorCode } from "@/server/errors";
import type { AnsweringVendor } from "@/server/providers/pan/types";

// What a batch is made of, item by item: the types the batch service, its chunk passes and its item
// kinds share (they import this, not each other).

export type BatchKind = "PAN" | "EPFO";

export interface ItemError {
  code: ErrorCode;
  message: string;
}

/** PAN items after validation: `{pan, name}`; EPFO: `{uan}` or `{pf_number}`. */
export type PanItemInput = { pan: string; name: string | null };
export type EpfoItemInput = { uan: string } | { pf_number: string };

export interface StoredItem {
  index: number;
  reference_id: string | null;
  input: unknown;
  error: ItemError | null;
}

export interface ItemOutcome {
  result: unknown;
  error: ItemError | null;
  /** A PAN item's live source score, kept in the chunk for its verification row; results pages leave it out. */
  sourceNameMatch?: number | null;
  /** An item's answering live vendor, kept as a PAN item's score is; absent in sandbox. */
  vendor?: AnsweringVendor;
}
