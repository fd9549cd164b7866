import { z } from "zod";
import { PAGE_SIZE, cursorSchema, istDateSchema, limitSchema } from "@/lib/schemas/logs";

// Browser-safe: the payments list filters, shared by the filter form, payments.list and the CSV export.

/** B5's statuses; the server's state machine has the same list (a test keeps them equal). */
export const PAYMENT_STATUSES = ["CREATED", "PENDING", "SUCCESS", "FAILED", "EXPIRED", "CANCELLED"] as const;
export const paymentStatusSchema = z.enum(PAYMENT_STATUSES, { error: "Choose a status from the list" });
export type PaymentStatusValue = z.infer<typeof paymentStatusSchema>;

export { PAGE_SIZE };

/** The merchant's orderId (B5 shape); matched exactly. */
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

const datesInOrder = (f: { from?: string; to?: string }) => !f.from || !f.to || f.from <= f.to;
const datesOutOfOrder = { path: ["to"], message: "The end date is before the start date" };

export const paymentFiltersSchema = z.object(paymentFilterFields).refine(datesInOrder, datesOutOfOrder);
export type PaymentFilters = z.infer<typeof paymentFiltersSchema>;

export const paymentsListInput = z
  .object({ ...paymentFilterFields, cursor: cursorSchema.optional(), limit: limitSchema })
  .refine(datesInOrder, datesOutOfOrder);

export const paymentsGetInput = z.object({ paymentId: paymentIdSchema });

/** Filters as they appear in a URL query (the page and the CSV export read the same names). */
export function paymentFiltersFromQuery(q: { get(name: string): string | null }): { filters: PaymentFilters; errors: Record<string, string> } {
  const raw = {
    status: q.get("status") || undefined,
    orderId: q.get("orderId") || undefined,
    from: q.get("from") || undefined,
    to: q.get("to") || undefined,
  };
  const parsed = paymentFiltersSchema.safeParse(raw);
  if (parsed.success) return { filters: parsed.data, errors: {} };
  const errors = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? "form"), i.message]));
  // Keep the valid filters so one bad parameter in a shared link does not hide everything else.
  const filters: PaymentFilters = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined || k in errors) continue;
    const one = paymentFiltersSchema.safeParse({ [k]: v });
    if (one.success) Object.assign(filters, one.data);
  }
  return { filters, errors };
}

export function paymentFiltersToQuery(f: PaymentFilters, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams(extra);
  if (f.status) q.set("status", f.status);
  if (f.orderId) q.set("orderId", f.orderId);
  if (f.from) q.set("from", f.from);
  if (f.to) q.set("to", f.to);
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** Human labels for the status filter and badges. */
export const PAYMENT_STATUS_LABELS: Record<PaymentStatusValue, string> = {
  CREATED: "Created",
  PENDING: "Pending",
  SUCCESS: "Succeeded",
  FAILED: "Failed",
  EXPIRED: "Expired",
  CANCELLED: "Cancelled",
};
