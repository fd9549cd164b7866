/**
 * Live EPFO source: Cashfree Secure ID's "Get Employment Details" (`POST /advance-employment`) by
 * UAN. Each employment the vendor names (one per `uan_details` entry, plus its "recent employment"
 * from PF filings) becomes one record, newest joining first:
 *
 *   member_id (MHBAN12342200000012345)  → pf_number in slash form, establishment_id its first 12 characters
 *   establishment_name                  → employer
 *   joining_date / exit_date            → date_of_joining / date_of_exit
 *   (not given)                         → last_contribution_month null
 *
 * The newest employment without an exit date makes the member ACTIVE, with one EXITED. The vendor
 * has no lookup by PF number (422 LOOKUP_NOT_SUPPORTED) and `EMPLOYMENT_DETAILS_NOT_FOUND` or no
 * employment is "no such member" (null).
 */
import { establishmentId, formatPfNumber, parsePfNumber } from "@/lib/epfo";
import { AppError } from "@/server/errors";
import { unreadableAnswer, type UpstreamClient } from "@/server/providers/upstream/client";
import { isoDate, newVerificationId, objectBody, text, unexpectedRefusal, upper } from "@/server/providers/cashfree/secure-id";
import type { EmploymentRecord, EpfoMember, EpfoProvider } from "@/server/providers/epfo/types";

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json => (value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {});

function employment(details: Json): Omit<EmploymentRecord, "is_current"> | null {
  const parts = parsePfNumber(text(details.member_id) ?? "");
  const joined = isoDate(details.joining_date);
  if (!parts || !joined) return null;
  return {
    establishment_id: establishmentId(parts),
    employer: text(details.establishment_name) ?? "",
    pf_number: formatPfNumber(parts),
    date_of_joining: joined,
    date_of_exit: isoDate(details.exit_date),
    last_contribution_month: null,
  };
}

/** The member in an employment answer, or null for none (exported for the mapping tests). */
export function epfoMemberFromAnswer(uan: string, body: Json): EpfoMember | null {
  const entries = (Array.isArray(body.uan_details) ? body.uan_details : []).map(asObject).filter((e) => (text(e.uan) ?? uan) === uan);
  const recent = asObject(asObject(body.recent_employment_details).employee_details);
  const found = [...entries.map((e) => employment(asObject(e.employment_details))), (text(recent.uan) ?? uan) === uan ? employment(recent) : null];
  const byPf = new Map<string, Omit<EmploymentRecord, "is_current">>();
  for (const e of found) {
    if (!e) continue;
    const seen = byPf.get(e.pf_number);
    // The same account from both places: keep the fuller record.
    byPf.set(e.pf_number, seen ? { ...seen, employer: seen.employer || e.employer, date_of_exit: seen.date_of_exit ?? e.date_of_exit } : e);
  }
  if (byPf.size === 0) {
    if (entries.length > 0) throw unreadableAnswer("no employment with a member id and a joining date");
    return null;
  }
  const history = [...byPf.values()]
    .sort((a, b) => (a.date_of_joining < b.date_of_joining ? 1 : a.date_of_joining > b.date_of_joining ? -1 : 0))
    .map((e, i) => ({ ...e, is_current: i === 0 && e.date_of_exit === null }));
  const latest = history[0]!;
  const name = entries.map((e) => upper(asObject(e.basic_details).employee_name)).find((n) => n !== null);
  if (!name) throw unreadableAnswer("no member name");
  return {
    uan,
    pf_number: latest.pf_number,
    member_name: name,
    employer: latest.employer,
    member_status: latest.date_of_exit === null ? "ACTIVE" : "EXITED",
    last_contribution_month: null,
    date_of_exit: latest.date_of_exit,
    employment_history: history,
  };
}

export function createCashfreeEpfoProvider(client: UpstreamClient): EpfoProvider {
  return {
    vendor: "cashfree",
    async byUan(uan) {
      // One id for the call and its retries, so the vendor sees a retry as the same check.
      const body = { verification_id: newVerificationId("uan"), uan };
      return client.call({ method: "POST", path: "/advance-employment", body }, (answer) => {
        if (answer.status !== 200) throw unexpectedRefusal(client, answer);
        const json = objectBody(answer);
        if (upper(json.status) === "EMPLOYMENT_DETAILS_NOT_FOUND") return null;
        return epfoMemberFromAnswer(uan, json);
      });
    },
    async byPfNumber() {
      throw new AppError("LOOKUP_NOT_SUPPORTED", "Live EPFO lookups need a UAN: the source has no lookup by PF number.");
    },
  };
}
