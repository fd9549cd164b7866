import { z } from "zod";

// Browser-safe schemas for the operator area (/admin): the pages validate with these and the
// admin router takes the same ones as input.

export const ADMIN_PAGE_SIZE = 50;

export const MERCHANT_FILTERS = ["all", "go_live_requested", "live", "suspended"] as const;
export const merchantFilterSchema = z.enum(MERCHANT_FILTERS);
export type MerchantFilter = z.infer<typeof merchantFilterSchema>;

export const merchantIdSchema = z.string().trim().min(1, "Merchant id is required").max(64, "Merchant id is too long");

export const merchantsInput = z.object({
  q: z.string().trim().max(200, "Search at most 200 characters").optional(),
  filter: merchantFilterSchema.default("all"),
  /** Offset into the list (pending go-live requests first, then newest merchants). */
  cursor: z.number().int().min(0).optional(),
});

export const merchantInput = z.object({ merchantId: merchantIdSchema });

export const suspendReasonSchema = z.string().trim().min(3, "Give a reason of at least 3 characters").max(200, "Keep the reason to 200 characters or fewer");

export const suspendInput = z.object({ merchantId: merchantIdSchema, reason: suspendReasonSchema });

export const actionsInput = z.object({
  merchantId: merchantIdSchema.optional(),
  /** Id of the last action of the previous page. */
  cursor: z.string().max(64).nullish(),
});

export const emailsInput = z.object({
  /** Id of the last message of the previous page. */
  cursor: z.string().max(64).nullish(),
});
