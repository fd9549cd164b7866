import { z } from "zod";
import { PAGE_SIZE, istDateSchema, withDatesInOrder, withPage } from "@/lib/schemas/logs";
import { filtersFromQuery, filtersToQuery } from "@/lib/url-filters";

// Browser-safe: the payments list filters, shared by the filter form, payments.list and the CSV export.

/** The payment statuses; the state machine (services/payments/state-machine.ts) says how they move. */
export const PAYMENT_STATUSES = ["CREATED", "PENDING", "SUCCESS", "FAILED", "EXPIRED", "CANCELLED"] as const;
export const paymentStatusSchema = z.enum(PAYMENT_STATUSES, { error: "Choose a status from the list" });
export type PaymentStatusValue = z.infer<typeof paymentStatusSchema>;

/** How much of a payment its refunds that are not FAILED return. */
export const REFUND_SUMMARY_STATUSES = ["NONE", "PARTIAL", "FULL"] as const;

export { PAGE_SIZE };

/** The merchant's orderId (as POST /api/checkout takes it); matched exactly. */
export const orderIdFilterSchema = z
  .string()
  .trim()
  .min(1, "Enter an order id")
  .max(64, "Order ids are at most 64 characters")
  .regex(/^[A-Za-z0-9_-]+$/, "Order ids use only letters, digits, _ and -");

export const paymentIdSchema = z.string().trim().min(1, "Enter a payment id").max(80, "Payment ids are at most 80 characters");

const paymentFilterFields = {
  status: paymentStatusSchema.optional(),
  orderId: orderIdFilterSchema.optional(),
  /** Whole IST days, inclusive. */
  from: istDateSchema.optional(),
  to: istDateSchema.optional(),
};

export const paymentFiltersSchema = withDatesInOrder(z.object(paymentFilterFields));
export type PaymentFilters = z.infer<typeof paymentFiltersSchema>;

export const paymentsListInput = withDatesInOrder(withPage(paymentFilterFields));

export const paymentsGetInput = z.object({ paymentId: paymentIdSchema });

const PAYMENT_QUERY_NAMES = { status: "status", orderId: "orderId", from: "from", to: "to" } as const;

/** Filters as they appear in a URL query (the page and the CSV export read the same names). */
export const paymentFiltersFromQuery = (q: { get(name: string): string | null }) =>
  filtersFromQuery<PaymentFilters>(paymentFiltersSchema, PAYMENT_QUERY_NAMES, q);

export const paymentFiltersToQuery = (f: PaymentFilters, extra: Record<string, string> = {}) => filtersToQuery(f, PAYMENT_QUERY_NAMES, extra);

/** Human labels for the status filter and badges. */
export const PAYMENT_STATUS_LABELS: Record<PaymentStatusValue, string> = {
  CREATED: "Created",
  PENDING: "Pending",
  SUCCESS: "Succeeded",
  FAILED: "Failed",
  EXPIRED: "Expired",
  CANCELLED: "Cancelled",
};
