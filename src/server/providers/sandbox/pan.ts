/**
 * Sandbox PAN source (docs/api.md, Sandbox fixtures): every well-formed PAN answers, the same PAN always with the
 * same record, and the serial (digits 6–9) picks the special outcomes:
 *
 *   9991 INVALID (not on record, name null)   9992 DEACTIVATED   9993 DELETED
 *   9994 individual whose Aadhaar is not linked
 *   9997 throws SOURCE_TIMEOUT                 9998 throws SOURCE_UNAVAILABLE
 *
 * Names are picked by a hash of the PAN and start with its 5th letter, as real PANs do: the
 * surname for individuals, the first word of the name for everyone else.
 */
import { isValidPan, panCategory } from "@/lib/pan";
import { AppError } from "@/server/errors";
import { entityName, fnv1a32 } from "@/server/providers/sandbox-names/names";
import type { AadhaarSeedingStatus, PanProvider, PanRecord, PanRecordStatus } from "@/server/providers/pan/types";

/** Date of birth (or incorporation) on every sandbox record. */
export const SANDBOX_PAN_DOB = "1990-01-01";

const SERIAL_STATUS: Record<string, PanRecordStatus> = {
  "9991": "INVALID",
  "9992": "DEACTIVATED",
  "9993": "DELETED",
};

/** The sandbox record for a normalized, valid PAN (throws the source errors the serial asks for). */
export function sandboxPanRecord(pan: string): PanRecord {
  if (!isValidPan(pan)) throw new AppError("INVALID_PAN");
  const serial = pan.slice(5, 9);
  if (serial === "9997") throw new AppError("SOURCE_TIMEOUT", undefined, { retryAfterSeconds: 5 });
  if (serial === "9998") throw new AppError("SOURCE_UNAVAILABLE", undefined, { retryAfterSeconds: 30 });

  const category = panCategory(pan);
  const status = SERIAL_STATUS[serial] ?? "VALID";
  const individual = category === "INDIVIDUAL";
  let aadhaarSeedingStatus: AadhaarSeedingStatus;
  if (status === "INVALID" || !individual) aadhaarSeedingStatus = "NOT_APPLICABLE";
  // A deactivated or deleted PAN carries no live seeding.
  else if (status !== "VALID" || serial === "9994") aadhaarSeedingStatus = "NOT_LINKED";
  else aadhaarSeedingStatus = "LINKED";

  return {
    pan,
    status,
    name: status === "INVALID" ? null : entityName(category, pan.charAt(4), fnv1a32(pan)),
    category,
    aadhaarSeedingStatus,
    // One date for every sandbox record, so PAN KYC's dobMatch is predictable (docs/kyc.md, Sandbox KYC).
    dob: status === "INVALID" ? null : SANDBOX_PAN_DOB,
    remarks: null,
  };
}

export const sandboxPanProvider: PanProvider = {
  async lookup(pan) {
    return sandboxPanRecord(pan);
  },
  lookupLocal: sandboxPanRecord,
};
