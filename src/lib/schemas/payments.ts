import { z } from "zod";
import { PAGE_SIZE, datedListFilters, idFilterSchema } from "@/lib/schemas/logs";

// Browser-safe: the payments list filters, shared by the filter form, payments.list and the CSV export.

/** The payment statuses; the state machine (services/payments/state-machine.ts) says how they move. */
export const PAYMENT_STATUSES = ["CREATED", "PENDING", "SUCCESS", "FAILED", "EXPIRED", "CANCELLED"] as const;
export const paymentStatusSchema = z.enum(PAYMENT_STATUSES, { error: "Choose a status from the list" });
export type PaymentStatusValue = z.infer<typeof paymentStatusSchema>;

/** How much of a payment its refunds that are not FAILED return. */
export const REFUND_SUMMARY_STATUSES = ["NONE", "PARTIAL", "FULL"] as const;

export { PAGE_SIZE };

/** The merchant's orderId (as POST /api/checkout takes it); matched exactly. */
export const orderIdFilterSchema = idFilterSchema("order id", 64);

export const paymentIdSchema = z.string().trim().min(1, "Enter a payment id").max(80, "Payment ids are at most 80 characters");

const paymentList = datedListFilters(
  { status: paymentStatusSchema.optional(), orderId: orderIdFilterSchema.optional() },
  { status: "status", orderId: "orderId", from: "from", to: "to" },
);

/** The page and the CSV export read the same query names. */
export const paymentFiltersSchema = paymentList.schema;
export type PaymentFilters = z.infer<typeof paymentFiltersSchema>;
export const paymentsListInput = paymentList.listInput;
export const paymentFiltersFromQuery = paymentList.fromQuery;
export const paymentFiltersToQuery = paymentList.toQuery;

export const paymentsGetInput = z.object({ paymentId: paymentIdSchema });

/** Human labels for the status filter and badges. */
export const PAYMENT_STATUS_LABELS: Record<PaymentStatusValue, string> = {
  CREATED: "Created",
  PENDING: "Pending",
  SUCCESS: "Succeeded",
  FAILED: "Failed",
  EXPIRED: "Expired",
  CANCELLED: "Cancelled",
};
