import type { VendorConsent } from "@/lib/consent";
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
  /** The live vendor that answered; absent in sandbox. */
  vendor?: AnsweringVendor;
}

/** Which live vendor answered (kept on the verification record for operators; never in the merchant's answer). */
export type AnsweringVendor = "cashfree" | "setu";

export interface PanLookupOptions {
  /**
   * The person's consent to a live check and why it is made, from the merchant's request or its
   * standing attestation (contract C6), on every live call (absent in sandbox). Vendors that take them
   * are sent them (Setu's `consent` and `reason`); a vendor that needs them does not call out without them.
   */
  consent?: VendorConsent;
  /** When the whole call must end (Date.now() milliseconds); set by the family's router. */
  deadlineAt?: number;
  /** The name the caller sent, passed on where the source takes one. */
  name?: string | null;
  /** YYYY-MM-DD; a source that cannot give `dob` then checks it and answers `dobMatch`. */
  dob?: string | null;
}

/** One PAN of a bulk request: the name is sent where the item has one. */
export interface PanBulkEntry {
  pan: string;
  name: string | null;
}

/**
 * How a bulk submission ended. `maybe`: it failed in a way that leaves open whether the vendor
 * took it (a timeout, a 5xx other than 503, a connection cut after the request went out): it must
 * be read back by its id, never sent again blindly.
 */
export type PanBulkSubmission = { sent: true; reference: string | null } | { sent: false; maybe: boolean; reason: string };

/** One entry of a bulk answer: the PAN and name it answers for, and its record (null: the entry failed, not a PAN outcome). */
export interface PanBulkAnswerEntry {
  pan: string | null;
  nameProvided: string | null;
  record: PanRecord | null;
}

/**
 * A bulk request read back: still in work, unknown to the vendor (never taken), or answered, with
 * the entries the vendor gives (maybe fewer than were sent).
 */
export type PanBulkStatus = { state: "PENDING" } | { state: "UNKNOWN" } | { state: "ANSWERED"; entries: PanBulkAnswerEntry[] };

/** A source's bulk verification: many PANs in one request, answered later and read back by the request's id. */
export interface PanBulkSource {
  /** Entries one request may hold, at most and at least. */
  maxEntries: number;
  minEntries: number;
  /** Sends the request; never throws for the vendor's answer (see PanBulkSubmission). */
  submit(bulkId: string, entries: PanBulkEntry[], options?: { consent?: VendorConsent }): Promise<PanBulkSubmission>;
  /** Reads the request back; throws the source's errors (SOURCE_UNAVAILABLE, SOURCE_TIMEOUT…) when it could not be read now. */
  status(bulkId: string, reference: string | null): Promise<PanBulkStatus>;
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
  /** The source's bulk verification, where it has one (live batches use it). */
  bulk?: PanBulkSource;
}
