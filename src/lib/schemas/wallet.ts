import { z } from "zod";
import { MODES } from "@/lib/mode";
import { formatRupees, parseAmountToPaise } from "@/lib/money";
import { datedListFilters } from "@/lib/schemas/logs";
import { merchantIdSchema } from "@/lib/schemas/admin";

// Browser-safe: the Wallet page's forms and ledger filters, shared with the wallet router, the CSV
// export and the operator's wallet and fee forms.

/** Every ledger reason, in the order the filter lists them. */
export const LEDGER_REASONS = [
  "SANDBOX_CREDIT",
  "TEST_FUNDS",
  "TOP_UP",
  "OPERATOR_CREDIT",
  "OPERATOR_DEBIT",
  "KYC_AADHAAR",
  "KYC_PAN",
  "KYC_BANK",
  "KYC_REVERSAL",
] as const;
export type LedgerReason = (typeof LEDGER_REASONS)[number];

export const LEDGER_REASON_LABELS: Record<LedgerReason, string> = {
  SANDBOX_CREDIT: "Opening sandbox credit",
  TEST_FUNDS: "Test funds",
  TOP_UP: "Top-up",
  OPERATOR_CREDIT: "Credit by Parakh",
  OPERATOR_DEBIT: "Debit by Parakh",
  KYC_AADHAAR: "Aadhaar OTP KYC",
  KYC_PAN: "PAN KYC",
  KYC_BANK: "Bank account KYC",
  KYC_REVERSAL: "KYC charge reversed",
};

export function ledgerReasonLabel(reason: string): string {
  return (LEDGER_REASON_LABELS as Record<string, string>)[reason] ?? reason;
}

/** The ledger's type filter: every credit, every debit, or one reason. */
export const LEDGER_TYPES = ["credits", "debits", ...LEDGER_REASONS] as const;
export const ledgerTypeSchema = z.enum(LEDGER_TYPES, { error: "Choose an entry type from the list" });

/** The page and the CSV export read the same query names. */
const ledgerList = datedListFilters({ type: ledgerTypeSchema.optional() }, { type: "type", from: "from", to: "to" });

export const ledgerFiltersSchema = ledgerList.schema;
export type LedgerFilters = z.infer<typeof ledgerFiltersSchema>;
export const ledgerListInput = ledgerList.listInput;
export const ledgerFiltersFromQuery = ledgerList.fromQuery;
export const ledgerFiltersToQuery = ledgerList.toQuery;

// ---- Amounts typed in rupees ------------------------------------------------------------------

/** At most this much test money per click (₹1,00,000.00). */
export const TEST_FUNDS_MAX_PAISE = 10_000_000;
/** A sandbox wallet is not topped up past this (₹10,00,000.00), so test money cannot grow without bound. */
export const SANDBOX_BALANCE_CAP_PAISE = 100_000_000;
/** The largest low-balance threshold (₹1,00,00,000.00). */
export const THRESHOLD_MAX_PAISE = 1_000_000_000;
/** The largest operator credit or debit (₹1,00,00,000.00), as the wallet takes it. */
export const OPERATOR_ADJUST_MAX_PAISE = 1_000_000_000;
/** The highest KYC fee an operator may set (₹1,000.00), as the fee service checks. */
export const KYC_FEE_MAX_PAISE = 100_000;

/** Rupees as typed ("3", "3.5", "1,000.00") → paise within [min, max], or the problem to show. */
function rupeesToPaise(text: string, opts: { min: number; max: number; what: string }): number | string {
  const paise = parseAmountToPaise(text.replace(/,/g, ""));
  if (text === "" || paise === null) return `Enter ${opts.what} in rupees, e.g. 250 or 99.50`;
  if (paise < opts.min || paise > opts.max) return `Enter ${formatRupees(opts.min)} to ${formatRupees(opts.max)}`;
  return paise;
}

/** A rupee amount typed into a form, as paise. */
export function rupeesSchema(opts: { min: number; max: number; what: string }) {
  return z
    .string({ error: `Enter ${opts.what}` })
    .trim()
    .max(20, "That amount is too long")
    .transform((text, ctx) => {
      const r = rupeesToPaise(text, opts);
      if (typeof r === "number") return r;
      ctx.addIssue({ code: "custom", message: r });
      return z.NEVER;
    });
}

export const addTestFundsInput = z.object({ amount: rupeesSchema({ min: 100, max: TEST_FUNDS_MAX_PAISE, what: "an amount" }) });

/** Empty or null turns the alert off. */
export const lowBalanceThresholdInput = z.object({
  threshold: z
    .string()
    .trim()
    .max(20, "That amount is too long")
    .nullable()
    .transform((text, ctx) => {
      if (text === null || text === "") return null;
      const r = rupeesToPaise(text, { min: 100, max: THRESHOLD_MAX_PAISE, what: "a threshold" });
      if (typeof r === "number") return r;
      ctx.addIssue({ code: "custom", message: r });
      return z.NEVER;
    }),
});

// ---- Operator forms ---------------------------------------------------------------------------

const feeSchema = rupeesSchema({ min: 0, max: KYC_FEE_MAX_PAISE, what: "a fee" });

export const kycFeesInput = z.object({ merchantId: merchantIdSchema, aadhaarOtp: feeSchema, pan: feeSchema, bank: feeSchema });

export const walletAdjustReasonSchema = z
  .string()
  .trim()
  .min(3, "Give a reason of at least 3 characters")
  .max(200, "Keep the reason to 200 characters or fewer");

export const walletAdjustInput = z.object({
  merchantId: merchantIdSchema,
  mode: z.enum(MODES),
  direction: z.enum(["credit", "debit"]),
  amount: rupeesSchema({ min: 1, max: OPERATOR_ADJUST_MAX_PAISE, what: "an amount" }),
  reason: walletAdjustReasonSchema,
});
