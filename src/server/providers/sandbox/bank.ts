/**
 * Sandbox bank account source (docs/kyc.md, Sandbox KYC). Any valid IFSC and account number answers, the same
 * pair always the same way; the account's last four digits pick the special outcomes:
 *
 *   0000 not found (INVALID, no name)   1111 BLOCKED   2222 PENDING (no name yet)   9998 throws SOURCE_UNAVAILABLE
 *   anything else VALID, with a name fixed by a hash of account and IFSC
 *
 * The bank comes from the IFSC's 4-letter code (real codes, a made-up name for unknown ones); the branch, city
 * and state from a hash of the IFSC, so one IFSC is always the same branch.
 */
import { isValidAccountNumber, isValidIfsc } from "@/lib/bank";
import { AppError } from "@/server/errors";
import { SANDBOX_PLACES } from "@/server/providers/sandbox/aadhaar";
import { fnv1a32, mix32, pick, sandboxPersonName } from "@/server/providers/sandbox-names/names";
import type { BankAccountCheck, BankAccountStatus, BankProvider, IfscDetails } from "@/server/providers/bank/types";

/** Real IFSC bank codes. */
export const SANDBOX_BANK_NAMES: Readonly<Record<string, string>> = {
  SBIN: "State Bank of India",
  HDFC: "HDFC Bank",
  ICIC: "ICICI Bank",
  UTIB: "Axis Bank",
  KKBK: "Kotak Mahindra Bank",
  PUNB: "Punjab National Bank",
  BARB: "Bank of Baroda",
  CNRB: "Canara Bank",
  UBIN: "Union Bank of India",
  IDIB: "Indian Bank",
  YESB: "Yes Bank",
  IDFB: "IDFC FIRST Bank",
  INDB: "IndusInd Bank",
  BKID: "Bank of India",
  FDRL: "Federal Bank",
  MAHB: "Bank of Maharashtra",
  IOBA: "Indian Overseas Bank",
  UCBA: "UCO Bank",
  CBIN: "Central Bank of India",
  PSIB: "Punjab & Sind Bank",
  AUBL: "AU Small Finance Bank",
  RATN: "RBL Bank",
  KARB: "Karnataka Bank",
  SIBL: "South Indian Bank",
  KVBL: "Karur Vysya Bank",
  CIUB: "City Union Bank",
  TMBL: "Tamilnad Mercantile Bank",
  DBSS: "DBS Bank India",
  SCBL: "Standard Chartered Bank",
  HSBC: "HSBC",
  CITI: "Citibank",
  IBKL: "IDBI Bank",
  BDBL: "Bandhan Bank",
  ESFB: "Equitas Small Finance Bank",
  UJVN: "Ujjivan Small Finance Bank",
  PYTM: "Paytm Payments Bank",
  AIRP: "Airtel Payments Bank",
  IPOS: "India Post Payments Bank",
};

const ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

const SUFFIX_STATUS: Record<string, BankAccountStatus> = { "0000": "INVALID", "1111": "BLOCKED", "2222": "PENDING" };

/** The sandbox always knows every part of a branch's details. */
type SandboxIfscDetails = { [K in keyof IfscDetails]: string };

export function sandboxIfscDetails(ifsc: string): SandboxIfscDetails {
  const code = ifsc.slice(0, 4);
  const place = pick(SANDBOX_PLACES, fnv1a32(`ifsc:${ifsc}`), 0);
  return {
    bank: SANDBOX_BANK_NAMES[code] ?? `${code} BANK`,
    branch: place.locality === "" ? place.vtc : place.locality,
    city: place.vtc,
    state: place.state,
  };
}

/** The penny-drop answer for a valid account and IFSC (throws the source error the account asks for). */
export function sandboxBankCheck(accountNumber: string, ifsc: string): BankAccountCheck & { ifscDetails: SandboxIfscDetails } {
  if (!isValidAccountNumber(accountNumber)) throw new AppError("INVALID_ACCOUNT_NUMBER");
  if (!isValidIfsc(ifsc)) throw new AppError("INVALID_IFSC");
  const suffix = accountNumber.slice(-4);
  if (suffix === "9998") throw new AppError("SOURCE_UNAVAILABLE", undefined, { retryAfterSeconds: 30 });

  const h = fnv1a32(`bank:${accountNumber}:${ifsc}`);
  const accountStatus = SUFFIX_STATUS[suffix] ?? "VALID";
  const accountExists = accountStatus !== "INVALID";
  let bankReference = "";
  for (let i = 0; i < 12; i++) bankReference += ALNUM.charAt(mix32(h, 100 + i) % ALNUM.length);
  return {
    accountExists,
    accountStatus,
    nameAtBank: accountExists && accountStatus !== "PENDING" ? sandboxPersonName(h) : null,
    bankReference,
    ifscDetails: sandboxIfscDetails(ifsc),
  };
}

export const sandboxBankProvider = {
  async verifyAccount(accountNumber: string, ifsc: string) {
    return sandboxBankCheck(accountNumber, ifsc);
  },
} satisfies BankProvider;
