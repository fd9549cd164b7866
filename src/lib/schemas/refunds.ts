import { z } from "zod";
import { parseAmountToPaise } from "@/lib/money";
import { PAGE_SIZE, istDateSchema, withDatesInOrder, withPage } from "@/lib/schemas/logs";
import { paymentIdSchema } from "@/lib/schemas/payments";
import { filtersFromQuery, filtersToQuery } from "@/lib/url-filters";

// Browser-safe: the dashboard's refund form and Refunds list filters, shared by the forms, the
// refunds router and the CSV export.

/** The refund statuses: PENDING → PROCESSED | FAILED, both final. The refund service and the API use this list. */
export const REFUND_STATUSES = ["PENDING", "PROCESSED", "FAILED"] as const;
export const refundStatusSchema = z.enum(REFUND_STATUSES, { error: "Choose a status from the list" });
export type RefundStatusValue = z.infer<typeof refundStatusSchema>;

export const REFUND_STATUS_LABELS: Record<RefundStatusValue, string> = { PENDING: "Pending", PROCESSED: "Processed", FAILED: "Failed" };

/** The reason of the refund that returns a late attempt's money. */
export const AUTO_REFUND_REASON = "AUTO_REFUND_LATE_ATTEMPT";

export const REFUND_REASON_MAX = 255;

export { PAGE_SIZE };

/** Rupees as typed in the form: positive, at most two fraction digits. */
export const refundAmountSchema = z
  .string({ error: "Enter an amount" })
  .trim()
  .min(1, "Enter an amount")
  .superRefine((v, ctx) => {
    if (v === "") return; // said by min(1)
    const paise = parseAmountToPaise(v);
    if (paise === null) ctx.addIssue({ code: "custom", message: "Enter rupees like 120 or 120.50 (at most two decimals)" });
    else if (paise <= 0) ctx.addIssue({ code: "custom", message: "The amount must be more than ₹0.00" });
  });

export const refundReasonSchema = z.string().trim().max(REFUND_REASON_MAX, `At most ${REFUND_REASON_MAX} characters`);

/** The dashboard's refund: the amount is explicit, so a confirmed ₹X is never silently another amount. */
export const refundCreateInput = z.object({ paymentId: paymentIdSchema, amount: refundAmountSchema, reason: refundReasonSchema.optional() });

export const refundsForPaymentInput = z.object({ paymentId: paymentIdSchema });

/** One box for a refund id, payment id, merchant refund id or order id; matched exactly. */
export const refundSearchSchema = z
  .string()
  .trim()
  .min(1, "Enter an id")
  .max(80, "Ids are at most 80 characters")
  .regex(/^[A-Za-z0-9_-]+$/, "Ids use only letters, digits, _ and -");

const refundFilterFields = {
  status: refundStatusSchema.optional(),
  q: refundSearchSchema.optional(),
  /** Whole IST days of the refund's creation, inclusive. */
  from: istDateSchema.optional(),
  to: istDateSchema.optional(),
};

export const refundFiltersSchema = withDatesInOrder(z.object(refundFilterFields));
export type RefundFilters = z.infer<typeof refundFiltersSchema>;

export const refundsListInput = withDatesInOrder(withPage(refundFilterFields));

const REFUND_QUERY_NAMES = { status: "status", q: "q", from: "from", to: "to" } as const;

/** Filters as they appear in a URL query (the page and the CSV export read the same names). */
export const refundFiltersFromQuery = (q: { get(name: string): string | null }) => filtersFromQuery<RefundFilters>(refundFiltersSchema, REFUND_QUERY_NAMES, q);

export const refundFiltersToQuery = (f: RefundFilters, extra: Record<string, string> = {}) => filtersToQuery(f, REFUND_QUERY_NAMES, extra);
