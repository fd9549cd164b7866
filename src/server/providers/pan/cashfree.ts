/**
 * Live PAN source: Cashfree Secure ID's "Verify PAN Sync" (`POST /pan`), and for a date-of-birth
 * check its "PAN Lite" (`POST /pan-lite`), which checks a name and a date of birth together.
 *
 * Status, from the vendor's PAN status when it sends one (either vocabulary):
 *
 *   VALID, E                              → VALID
 *   EC EA ED EI EL EM EP ES EU            → VALID, with the event in `remarks`
 *   INVALID, N (not on record), F (fake)  → INVALID (name null)
 *   DEACTIVATED, X                        → DEACTIVATED
 *   DELETED, D                            → DELETED
 *
 * Without a status code: `valid: false` → INVALID, `valid: true` → VALID. Aadhaar seeding `Y` →
 * LINKED; anything else NOT_LINKED for individuals, NOT_APPLICABLE for others and for a PAN that is
 * not on record (as the sandbox answers it).
 */
import { panCategory } from "@/lib/pan";
import { AppError } from "@/server/errors";
import { unreadableAnswer, type UpstreamAnswer, type UpstreamClient } from "@/server/providers/upstream/client";
import { newVerificationId, objectBody, score, text, unexpectedRefusal, upper } from "@/server/providers/cashfree/secure-id";
import type { AadhaarSeedingStatus, PanProvider, PanRecord, PanRecordStatus } from "./types";

/** Any date after 2022-09-12 makes the vendor include the Aadhaar seeding status. */
export const PAN_API_VERSION = "2023-12-18";

const STATUS_BY_VENDOR_CODE: Record<string, PanRecordStatus> = {
  VALID: "VALID",
  E: "VALID",
  EC: "VALID",
  EA: "VALID",
  ED: "VALID",
  EI: "VALID",
  EL: "VALID",
  EM: "VALID",
  EP: "VALID",
  ES: "VALID",
  EU: "VALID",
  INVALID: "INVALID",
  N: "INVALID",
  F: "INVALID",
  DEACTIVATED: "DEACTIVATED",
  X: "DEACTIVATED",
  DELETED: "DELETED",
  D: "DELETED",
};

const REMARKS_BY_VENDOR_CODE: Record<string, string> = {
  EC: "ACQUISITION",
  EA: "AMALGAMATION",
  ED: "DECEASED",
  EI: "DISSOLUTION",
  EL: "LIQUIDATED",
  EM: "MERGER",
  EP: "PARTITION",
  ES: "SPLIT",
  EU: "UNDER LIQUIDATION",
};

function statusOf(body: Record<string, unknown>): { status: PanRecordStatus; remarks: string | null } {
  const code = upper(body.pan_status);
  if (code !== null) {
    const status = STATUS_BY_VENDOR_CODE[code];
    if (!status) throw unreadableAnswer(`unknown PAN status "${code.slice(0, 8)}"`);
    return { status, remarks: REMARKS_BY_VENDOR_CODE[code] ?? null };
  }
  if (body.valid === true) return { status: "VALID", remarks: null };
  if (body.valid === false) return { status: "INVALID", remarks: null };
  throw unreadableAnswer("no PAN status");
}

/** The PAN record in a Verify PAN answer (exported for the mapping tests). */
export function panRecordFromAnswer(pan: string, body: Record<string, unknown>): PanRecord {
  const { status, remarks } = statusOf(body);
  const category = panCategory(pan);
  let aadhaarSeedingStatus: AadhaarSeedingStatus;
  if (status !== "INVALID" && upper(body.aadhaar_seeding_status) === "Y") aadhaarSeedingStatus = "LINKED";
  else if (status !== "INVALID" && category === "INDIVIDUAL") aadhaarSeedingStatus = "NOT_LINKED";
  else aadhaarSeedingStatus = "NOT_APPLICABLE";
  return {
    pan,
    status,
    name: status === "INVALID" ? null : upper(body.registered_name),
    category,
    aadhaarSeedingStatus,
    dob: null,
    remarks,
    sourceNameMatchScore: score(body.name_match_score),
  };
}

function refusal(client: UpstreamClient, answer: UpstreamAnswer): Error {
  const code = text(objectBody(answer).code);
  if (answer.status === 400 && code !== null && /^pan_/.test(code)) return new AppError("INVALID_PAN");
  return unexpectedRefusal(client, answer);
}

export function createCashfreePanProvider(client: UpstreamClient): PanProvider {
  return {
    async lookup(pan, options = {}) {
      const name = options.name?.trim() || null;
      const record = await client.call(
        { method: "POST", path: "/pan", body: name ? { pan, name } : { pan }, headers: { "x-api-version": PAN_API_VERSION } },
        (answer) => {
          if (answer.status !== 200) throw refusal(client, answer);
          return panRecordFromAnswer(pan, objectBody(answer));
        },
      );
      if (!options.dob) return record;
      if (record.status !== "VALID" || !record.name) return { ...record, dobMatch: null };
      // The registered name goes with the date: PAN Lite checks both and needs both.
      const body = { verification_id: newVerificationId("pan"), pan, name: record.name, dob: options.dob };
      const dobMatch = await client.call({ method: "POST", path: "/pan-lite", body }, (answer) => {
        if (answer.status !== 200) throw refusal(client, answer);
        const flag = upper(objectBody(answer).dob_match);
        return flag === "Y" ? true : flag === "N" ? false : null;
      });
      return { ...record, dobMatch };
    },
  };
}
