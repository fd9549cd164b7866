/** The three charged KYC checks, as stored on KYC transactions and used to key fees. */
export const KYC_KINDS = ["AADHAAR_OTP", "PAN", "BANK"] as const;
export type KycKind = (typeof KYC_KINDS)[number];

export type KycFees = Record<KycKind, number>;

/** Defaults for a new merchant, in paise (operators change them per merchant). */
export const DEFAULT_KYC_FEES: KycFees = { AADHAAR_OTP: 300, PAN: 100, BANK: 200 };

export const KYC_KIND_LABELS: Record<KycKind, string> = { AADHAAR_OTP: "Aadhaar OTP KYC", PAN: "PAN KYC", BANK: "Bank account KYC" };

/** The ledger reason of each kind's charge. */
export const KYC_LEDGER_REASON: Record<KycKind, string> = { AADHAAR_OTP: "KYC_AADHAAR", PAN: "KYC_PAN", BANK: "KYC_BANK" };

/** An account number shown by its last four digits. */
export function maskAccountNumber(accountNumber: string): string {
  return `${"X".repeat(Math.max(0, accountNumber.length - 4))}${accountNumber.slice(-4)}`;
}
