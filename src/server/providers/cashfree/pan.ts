/**
 * Live PAN source: Cashfree Secure ID's "Verify PAN Sync" (`POST /pan`), and for a date-of-birth
 * check its "PAN Lite" (`POST /pan-lite`), which checks a name and a date of birth together. For
 * batches, its "Verify PAN in bulk" (`POST /pan/bulk`) and that request's "Get Status"
 * (`GET /pan/bulk`), whose entries have the very schema of a Verify PAN Sync answer: each is read
 * by panRecordFromAnswer, as a single call's answer is.
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
import { unreadableAnswer, UpstreamFailure, vendorErrorCode, type UpstreamAnswer, type UpstreamClient } from "@/server/providers/upstream/client";
import { isAccountProblem, newVerificationId, objectBody, score, text, unexpectedRefusal, upper } from "@/server/providers/cashfree/secure-id";
import type { AadhaarSeedingStatus, PanBulkAnswerEntry, PanBulkSource, PanProvider, PanRecord, PanRecordStatus } from "@/server/providers/pan/types";

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

/**
 * The PAN record in a Verify PAN answer, or in one entry of a bulk status (the same schema): the one
 * reading of both, so a batch item answers alike whichever way it went (exported for the mapping tests).
 */
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

/** Entries per bulk request: the reference takes up to 10,000 ("verify up to 10,000 PANs") and at least 2 (its `minItems`). */
export const PAN_BULK_MAX_ENTRIES = 10_000;
const PAN_BULK_MIN_ENTRIES = 2;

/** One entry of a bulk status; an entry without a readable PAN status failed at the vendor (record null), it is no outcome. */
function bulkEntry(entry: unknown): PanBulkAnswerEntry {
  const body = entry !== null && typeof entry === "object" && !Array.isArray(entry) ? (entry as Record<string, unknown>) : {};
  const pan = upper(body.pan);
  let record: PanRecord | null = null;
  if (pan !== null) {
    try {
      record = panRecordFromAnswer(pan, body);
    } catch (err) {
      if (!(err instanceof UpstreamFailure)) throw err;
    }
  }
  return { pan, nameProvided: text(body.name_provided), record };
}

function cashfreePanBulk(client: UpstreamClient): PanBulkSource {
  const headers = { "x-api-version": PAN_API_VERSION };
  return {
    maxEntries: PAN_BULK_MAX_ENTRIES,
    minEntries: PAN_BULK_MIN_ENTRIES,
    async submit(bulkId, entries) {
      const body = { bulk_verification_id: bulkId, entries: entries.map(({ pan, name }) => (name ? { pan, name } : { pan })) };
      try {
        return await client.call({ method: "POST", path: "/pan/bulk", body, headers }, (answer) => {
          if (answer.status !== 200) throw unexpectedRefusal(client, answer);
          return { sent: true as const, reference: text(objectBody(answer).reference_id) };
        });
      } catch (err) {
        // Retried only where the try provably did not take effect (C2); what failed after the vendor may have read it is a maybe.
        const maybe = err instanceof UpstreamFailure && err.countsAsFailure && !err.retryable;
        return { sent: false, maybe, reason: err instanceof Error ? err.message : String(err) };
      }
    },
    async status(bulkId, reference) {
      const query = new URLSearchParams({ bulk_verification_id: bulkId, ...(reference ? { reference_id: reference } : {}) });
      return client.call({ method: "GET", path: `/pan/bulk?${query.toString()}`, headers }, (answer) => {
        if (answer.status !== 200) {
          if (isAccountProblem(vendorErrorCode(answer.body))) throw unexpectedRefusal(client, answer);
          // The vendor's word on the id: it holds no such request, so none was taken.
          return { state: "UNKNOWN" as const };
        }
        const entries = objectBody(answer).entries;
        // "File is being processed": no entries yet.
        if (!Array.isArray(entries) || entries.length === 0) return { state: "PENDING" as const };
        return { state: "ANSWERED" as const, entries: entries.map(bulkEntry) };
      });
    },
  };
}

export function createCashfreePanProvider(client: UpstreamClient): PanProvider {
  return {
    bulk: cashfreePanBulk(client),
    async lookup(pan, options = {}) {
      const name = options.name?.trim() || null;
      const record = await client.call(
        { method: "POST", path: "/pan", body: name ? { pan, name } : { pan }, headers: { "x-api-version": PAN_API_VERSION }, deadlineAt: options.deadlineAt },
        (answer) => {
          if (answer.status !== 200) throw refusal(client, answer);
          return panRecordFromAnswer(pan, objectBody(answer));
        },
      );
      if (!options.dob) return record;
      if (record.status !== "VALID" || !record.name) return { ...record, dobMatch: null };
      // The registered name goes with the date: PAN Lite checks both and needs both.
      const body = { verification_id: newVerificationId("pan"), pan, name: record.name, dob: options.dob };
      const dobMatch = await client.call({ method: "POST", path: "/pan-lite", body, deadlineAt: options.deadlineAt }, (answer) => {
        if (answer.status !== 200) throw refusal(client, answer);
        const flag = upper(objectBody(answer).dob_match);
        return flag === "Y" ? true : flag === "N" ? false : null;
      });
      return { ...record, dobMatch };
    },
  };
}
