import { z } from "zod";
import { REFUND_REASON_MAX } from "@/lib/limits";
import { REFUND_AMOUNT_PATTERN, parseAmountToPaise } from "@/lib/money";
import { PAGE_SIZE, datedListFilters, idFilterSchema } from "@/lib/schemas/logs";
import { paymentIdSchema } from "@/lib/schemas/payments";

// Browser-safe: the refund rules of the API and of the dashboard's refund form (one amount rule,
// one reason field), and the Refunds list filters, shared by the forms, the refunds router, the
// REST operation and the CSV export.

/** The refund statuses: PENDING → PROCESSED | FAILED, both final. The refund service and the API use this list. */
export const REFUND_STATUSES = ["PENDING", "PROCESSED", "FAILED"] as const;
export const refundStatusSchema = z.enum(REFUND_STATUSES, { error: "Choose a status from the list" });
export type RefundStatusValue = z.infer<typeof refundStatusSchema>;

export const REFUND_STATUS_LABELS: Record<RefundStatusValue, string> = { PENDING: "Pending", PROCESSED: "Processed", FAILED: "Failed" };

/** The reason of the refund that returns a late attempt's money. */
export const AUTO_REFUND_REASON = "AUTO_REFUND_LATE_ATTEMPT";

export { PAGE_SIZE };

/**
 * The refund amount rule (contract B11, money rules of B1): rupees with at most two fraction
 * digits, more than zero. Null when the amount is one, else what is wrong with it.
 */
export function refundAmountProblem(v: unknown): "NOT_AN_AMOUNT" | "NOT_POSITIVE" | null {
  const paise = parseAmountToPaise(v);
  return paise === null ? "NOT_AN_AMOUNT" : paise <= 0 ? "NOT_POSITIVE" : null;
}

/** The API's words for a bad refund amount (a field message of INVALID_AMOUNT). */
export const REFUND_AMOUNT_RULE = "must be a number of at least 0.01 with at most two fraction digits";

/** The API's amount: rupees as a number or numeric string, parsed to paise. More than is refundable is the service's REFUND_EXCEEDS_AMOUNT. */
export const refundAmountField = z
  // The bound and pattern are for the document: the rule below decides.
  .union([z.number().meta({ minimum: 0.01 }), z.string().max(32).meta({ pattern: REFUND_AMOUNT_PATTERN })])
  .superRefine((v, ctx) => {
    if (refundAmountProblem(v)) ctx.addIssue({ code: "custom", message: REFUND_AMOUNT_RULE, params: { code: "INVALID_AMOUNT" } });
  })
  .transform((v) => parseAmountToPaise(v)!)
  .meta({
    description: "Rupees to refund, as a number or numeric string with at most two fraction digits. Default: all that is still refundable.",
    example: "100.00",
  });

/** Rupees as typed in the form: the same rule, in the form's words. */
export const refundAmountSchema = z
  .string({ error: "Enter an amount" })
  .trim()
  .min(1, "Enter an amount")
  .superRefine((v, ctx) => {
    if (v === "") return; // said by min(1)
    const problem = refundAmountProblem(v);
    if (problem === "NOT_AN_AMOUNT") ctx.addIssue({ code: "custom", message: "Enter rupees like 120 or 120.50 (at most two decimals)" });
    else if (problem === "NOT_POSITIVE") ctx.addIssue({ code: "custom", message: "The amount must be more than ₹0.00" });
  });

/** The refund's reason, for the API and the form. */
export const refundReasonSchema = z.string().trim().max(REFUND_REASON_MAX, `At most ${REFUND_REASON_MAX} characters`);

/** The dashboard's refund: the amount is explicit, so a confirmed ₹X is never silently another amount. */
export const refundCreateInput = z.object({ paymentId: paymentIdSchema, amount: refundAmountSchema, reason: refundReasonSchema.optional() });

export const refundsForPaymentInput = z.object({ paymentId: paymentIdSchema });

/** One box for a refund id, payment id, merchant refund id or order id; matched exactly. */
export const refundSearchSchema = idFilterSchema("id", 80);

/** The dates are IST days of the refund's creation. The page and the CSV export read the same query names. */
const refundList = datedListFilters(
  { status: refundStatusSchema.optional(), q: refundSearchSchema.optional() },
  { status: "status", q: "q", from: "from", to: "to" },
);

export const refundFiltersSchema = refundList.schema;
export type RefundFilters = z.infer<typeof refundFiltersSchema>;
export const refundsListInput = refundList.listInput;
export const refundFiltersFromQuery = refundList.fromQuery;
export const refundFiltersToQuery = refundList.toQuery;
