import type { CallConsent } from "@/server/providers/pan/types";
import type { PfNumberParts } from "@/lib/epfo";

export type MemberStatus = "ACTIVE" | "EXITED" | "INACTIVE";

export interface EmploymentRecord {
  /** Region + office + establishment code, e.g. MHBAN0000064. */
  establishment_id: string;
  employer: string;
  /** Slash form. */
  pf_number: string;
  /** YYYY-MM-DD */
  date_of_joining: string;
  /** YYYY-MM-DD, null while employed. */
  date_of_exit: string | null;
  /** YYYY-MM; null when the source does not give it (the live source does not). */
  last_contribution_month: string | null;
  is_current: boolean;
}

export interface EpfoMember {
  uan: string;
  /** Slash form. The top-level pf_number, employer, last_contribution_month and date_of_exit describe the newest employment. */
  pf_number: string;
  member_name: string;
  employer: string;
  member_status: MemberStatus;
  last_contribution_month: string | null;
  date_of_exit: string | null;
  /** Newest first. */
  employment_history: EmploymentRecord[];
}

export interface EpfoProvider {
  /** `uan` is 12 digits. null = no such member. Source failures throw AppError. */
  byUan(uan: string, options?: { consent?: CallConsent }): Promise<EpfoMember | null>;
  /** Parts, or a PF number in either input form. null = no such member account. A source without this lookup throws LOOKUP_NOT_SUPPORTED. */
  byPfNumber(pf: PfNumberParts | string, options?: { consent?: CallConsent }): Promise<EpfoMember | null>;
}
