import { z } from "zod";
import { cvvProblem } from "@/lib/cards";

// Browser-safe schemas for the hosted checkout page's actions (form validation and server).

export const vpaSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(100)
  .regex(/^[a-z0-9._-]{2,64}@[a-z][a-z0-9.-]{1,30}$/, "Enter a UPI ID like name@bank");

const currentYear = () => new Date().getFullYear();

export const cardSchema = z
  .object({
    number: z
      .string()
      .transform((v) => v.replace(/[\s-]/g, ""))
      .pipe(z.string().regex(/^\d{12,19}$/, "Enter the card number")),
    expiryMonth: z.coerce.number().int().min(1, "Month 01 to 12").max(12, "Month 01 to 12"),
    expiryYear: z.coerce
      .number()
      .int()
      .transform((y) => (y < 100 ? 2000 + y : y))
      .pipe(
        z
          .number()
          .min(currentYear(), "The card has expired")
          .max(currentYear() + 25, "Check the year"),
      ),
    // Its length follows the network (cvvProblem, below): 3 or 4 digits here.
    cvv: z.string().regex(/^\d{3,4}$/, "Enter the 3 digits on the back of the card (4 on the front of an Amex)"),
    name: z.string().trim().max(100).optional(),
  })
  .refine(
    (c) => {
      const now = new Date();
      return c.expiryYear > now.getFullYear() || c.expiryMonth >= now.getMonth() + 1;
    },
    { message: "The card has expired", path: ["expiryMonth"] },
  )
  .superRefine((c, ctx) => {
    const problem = cvvProblem(c.number, c.cvv);
    if (problem) ctx.addIssue({ code: "custom", path: ["cvv"], message: problem });
  });

export const payInput = z.discriminatedUnion("method", [
  // Two UPI shapes share method "UPI": an inner union on `flow` tells them apart.
  z.discriminatedUnion("flow", [
    z.object({ method: z.literal("UPI"), flow: z.literal("collect"), vpa: vpaSchema }),
    z.object({ method: z.literal("UPI"), flow: z.enum(["qr", "intent"]) }),
  ]),
  z.object({ method: z.literal("CARD"), card: cardSchema }),
  z.object({ method: z.literal("NETBANKING"), bank: z.string().trim().min(2).max(60) }),
]);

export type PayInput = z.infer<typeof payInput>;
