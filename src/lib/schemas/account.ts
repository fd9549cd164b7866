import { z } from "zod";
import { parseFrameOrigins } from "@/lib/frame-origins";

// Browser-safe schemas shared by the dashboard forms (client validation) and the server.

export const merchantNameSchema = z
  .string()
  .trim()
  .min(2, "Business name must be at least 2 characters")
  .max(100, "Business name must be at most 100 characters");
export const emailSchema = z.string().trim().toLowerCase().max(254, "Email is too long").pipe(z.email("Enter a valid email address"));
export const passwordSchema = z.string().min(10, "Password must be at least 10 characters").max(200, "Password must be at most 200 characters");

export const signupInput = z.object({ name: merchantNameSchema, email: emailSchema, password: passwordSchema });

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `Must be at most ${max} characters`)
    .transform((v) => (v === "" ? null : v))
    .nullable();

export const profileInput = z.object({
  name: merchantNameSchema,
  displayName: optionalText(60),
  supportEmail: z
    .string()
    .trim()
    .max(254)
    .refine((v) => v === "" || z.email().safeParse(v).success, "Enter a valid email address")
    .transform((v) => (v === "" ? null : v.toLowerCase()))
    .nullable(),
  brandColor: z
    .string()
    .trim()
    .refine((v) => v === "" || /^#[0-9a-fA-F]{6}$/.test(v), "Use a hex colour like #1F57D6")
    .transform((v) => (v === "" ? null : v.toUpperCase()))
    .nullable(),
  logoUrl: z
    .string()
    .trim()
    .max(500)
    .refine((v) => v === "" || /^https:\/\/[^\s]+$/.test(v), "Use an https:// address")
    .transform((v) => (v === "" ? null : v))
    .nullable(),
  checkoutExpiryMinutes: z.coerce.number().int("Whole minutes only").min(5, "At least 5 minutes").max(1440, "At most 1440 minutes (24 hours)"),
  /** Origins allowed to frame the hosted checkout, space- or comma-separated; stored space-separated. */
  checkoutFrameOrigins: z
    .string()
    .max(2000, "Must be at most 2000 characters")
    .default("")
    .superRefine((v, ctx) => {
      const parsed = parseFrameOrigins(v);
      if ("error" in parsed) ctx.addIssue({ code: "custom", message: parsed.error });
    })
    .transform((v) => {
      const parsed = parseFrameOrigins(v);
      return "origins" in parsed && parsed.origins.length ? parsed.origins.join(" ") : null;
    }),
});

export const totpCodeSchema = z
  .string()
  .trim()
  .regex(/^\d{6}$/, "Enter the 6-digit code from your app");
