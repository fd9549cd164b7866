import type { PanCategory } from "@/lib/pan";

export type PanRecordStatus = "VALID" | "INVALID" | "DEACTIVATED" | "DELETED";

export type AadhaarSeedingStatus = "LINKED" | "NOT_LINKED" | "NOT_APPLICABLE";

export interface PanRecord {
  pan: string;
  status: PanRecordStatus;
  /** Name on record, upper case; null when the PAN is not on record. */
  name: string | null;
  category: PanCategory;
  aadhaarSeedingStatus: AadhaarSeedingStatus;
  /** Date of birth or incorporation on record (YYYY-MM-DD); null when not on record. */
  dob: string | null;
  /** Event marks from the source (e.g. deceased, deactivated); null when there are none. */
  remarks: string | null;
  /**
   * Whether the date of birth asked for (`dob` in the lookup options) is the one on record, when
   * the source checks it itself instead of giving `dob`; absent otherwise. null: not checked (e.g.
   * the PAN is not VALID).
   */
  dobMatch?: boolean | null;
  /** The source's own name-match score (0–100) for the name sent, kept for operators; Parakh scores names itself. */
  sourceNameMatchScore?: number | null;
}

export interface PanLookupOptions {
  /** The name the caller sent, passed on where the source takes one. */
  name?: string | null;
  /** YYYY-MM-DD; a source that cannot give `dob` then checks it and answers `dobMatch`. */
  dob?: string | null;
}

export interface PanProvider {
  /**
   * `pan` is already normalized and valid. A PAN not on record resolves with status INVALID;
   * source failures throw AppError SOURCE_UNAVAILABLE / SOURCE_TIMEOUT (with retryAfterSeconds).
   */
  lookup(pan: string, options?: PanLookupOptions): Promise<PanRecord>;
  /**
   * The same answer at once, for a source that reads local fixtures (sandbox): no I/O, no waiting,
   * the same record for the same PAN. Absent on a source that calls out.
   */
  lookupLocal?(pan: string, options?: PanLookupOptions): PanRecord;
}
