import type { VendorConsent } from "@/lib/consent";
import type { AnsweringVendor } from "@/server/providers/pan/types";

export type BankAccountStatus = "VALID" | "INVALID" | "BLOCKED" | "CLOSED" | "PENDING";

/** Each part is null when the source does not give it (the live source never gives the state, nor anything for an account that does not exist). */
export interface IfscDetails {
  bank: string | null;
  branch: string | null;
  city: string | null;
  state: string | null;
}

export interface BankAccountCheck {
  accountExists: boolean;
  accountStatus: BankAccountStatus;
  /** Name the bank holds, upper case; null when the account does not exist, or while the penny-drop is PENDING (no name has come back yet). */
  nameAtBank: string | null;
  /** The penny-drop's bank reference (UTR-like, 12 chars; live: the bank's UTR, else the source's reference id). */
  bankReference: string;
  ifscDetails: IfscDetails;
  /** The live vendor that answered; absent in sandbox. */
  vendor?: AnsweringVendor;
}

export interface BankCheckOptions {
  /** The person's consent and the purpose, on every live call (absent in sandbox); sent to vendors that take them. */
  consent?: VendorConsent;
  /** When the whole call must end (Date.now() milliseconds); set by the family's router. */
  deadlineAt?: number;
}

export interface BankProvider {
  /** Inputs already valid (accountNumber 9–18 digits, ifsc matches IFSC_PATTERN). Throws SOURCE_UNAVAILABLE / SOURCE_TIMEOUT. */
  verifyAccount(accountNumber: string, ifsc: string, options?: BankCheckOptions): Promise<BankAccountCheck>;
}
