import { z } from "zod";
import { MAX_PAYMENT_AMOUNT_PAISE, MIN_PAYMENT_AMOUNT_PAISE } from "@/lib/limits";
import { PAYMENT_AMOUNT_PATTERN, formatPaise, parseAmountToPaise } from "@/lib/money";

// The create-payment input, shared by the REST operation (validation, OpenAPI) and the service (its type).

const MIN = formatPaise(MIN_PAYMENT_AMOUNT_PAISE);
const MAX = formatPaise(MAX_PAYMENT_AMOUNT_PAISE);

export const orderIdField = z
  .string()
  .max(64, "must be at most 64 characters")
  .regex(/^ORDER_[A-Za-z0-9_-]*$/, "must start with ORDER_ and use only A-Z, a-z, 0-9, _ and -")
  .meta({ description: "Your order id: starts with ORDER_, at most 64 characters of [A-Za-z0-9_-].", example: "ORDER_10023" });

/** Number or numeric string, two fraction digits at most; parsed to paise. */
export const amountField = z
  // The bounds and pattern are for the document: the rules below decide, with their own codes.
  .union([
    z.number().meta({ minimum: MIN_PAYMENT_AMOUNT_PAISE / 100, maximum: MAX_PAYMENT_AMOUNT_PAISE / 100 }),
    z.string().max(32).meta({ pattern: PAYMENT_AMOUNT_PATTERN }),
  ])
  .superRefine((v, ctx) => {
    const paise = parseAmountToPaise(v);
    if (paise === null || paise < MIN_PAYMENT_AMOUNT_PAISE) {
      ctx.addIssue({ code: "custom", message: `must be a number of at least ${MIN} with at most two fraction digits`, params: { code: "INVALID_AMOUNT" } });
    } else if (paise > MAX_PAYMENT_AMOUNT_PAISE) {
      ctx.addIssue({ code: "custom", message: `must not exceed ${MAX}`, params: { code: "AMOUNT_LIMIT_EXCEEDED" } });
    }
  })
  .transform((v) => parseAmountToPaise(v)!)
  .meta({ description: `Rupees, as a number or numeric string with at most two fraction digits; ${MIN} to ${MAX}.`, example: "499.00" });

export const redirectUrlField = z
  .string()
  .max(2048)
  .meta({ format: "uri", pattern: "^[Hh][Tt][Tt][Pp][Ss]?://" })
  .superRefine((v, ctx) => {
    let ok = false;
    try {
      const u = new URL(v);
      ok = (u.protocol === "https:" || u.protocol === "http:") && !!u.hostname;
    } catch {
      ok = false;
    }
    if (!ok) ctx.addIssue({ code: "custom", message: "must be an absolute http or https URL", params: { code: "INVALID_REDIRECT_URL" } });
  })
  .meta({
    description: "Where the customer is sent after a final state, with paymentId, orderId, status and signature. https in live mode.",
    example: "https://shop.example/payment/return",
  });

export const createCheckoutInput = z.object({
  orderId: orderIdField,
  amount: amountField,
  redirectUrl: redirectUrlField.nullish(),
  meta: z
    .object({
      name: z.string().trim().min(1).max(100).nullish(),
      email: z.email("must be a valid email address").max(254).nullish(),
      phone: z
        .string()
        .regex(/^\+?[0-9]{10,15}$/, "must be 10 to 15 digits, optionally starting with +")
        .nullish(),
    })
    .nullish(),
  lat: z.number().min(-90).max(90).nullish(),
  lng: z.number().min(-180).max(180).nullish(),
  expiresInMinutes: z.number().int().min(5).max(1440).nullish().meta({ description: "5–1440; default from your checkout settings (30)." }),
  description: z.string().trim().max(255).nullish(),
});

export type CreatePaymentInput = z.output<typeof createCheckoutInput>;
