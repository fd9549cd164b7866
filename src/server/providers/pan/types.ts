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
}

export interface PanProvider {
  /**
   * `pan` is already normalized and valid. A PAN not on record resolves with status INVALID;
   * source failures throw AppError SOURCE_UNAVAILABLE / SOURCE_TIMEOUT (with retryAfterSeconds).
   */
  lookup(pan: string): Promise<PanRecord>;
}
