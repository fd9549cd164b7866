import type { VendorConsent } from "@/lib/consent";
import type { PfNumberParts } from "@/lib/epfo";
import type { AnsweringVendor } from "@/server/providers/pan/types";

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

export interface EpfoLookupOptions {
  /** The person's consent and the purpose, on every live call (absent in sandbox); sent to vendors that take them. */
  consent?: VendorConsent;
}

export interface EpfoProvider {
  /** The live vendor behind every answer of this provider (kept on the verification record); absent in sandbox. */
  readonly vendor?: AnsweringVendor;
  /** `uan` is 12 digits. null = no such member. Source failures throw AppError. */
  byUan(uan: string, options?: EpfoLookupOptions): Promise<EpfoMember | null>;
  /** Parts, or a PF number in either input form. null = no such member account. A source without this lookup throws LOOKUP_NOT_SUPPORTED. */
  byPfNumber(pf: PfNumberParts | string, options?: EpfoLookupOptions): Promise<EpfoMember | null>;
}
