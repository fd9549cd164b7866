import { z } from "zod";
import { emailSchema, passwordSchema } from "@/lib/schemas/account";

// Browser-safe schemas for password reset, password change and sessions (forms and server).

export const accountRoleSchema = z.enum(["merchant", "admin"]);

export const requestResetInput = z.object({ email: emailSchema, as: accountRoleSchema.default("merchant") });

const resetTokenSchema = z.string().trim().min(20, "This reset link is incomplete. Open the link from the email again.").max(200);

export const checkResetLinkInput = z.object({ token: resetTokenSchema });

export const resetPasswordInput = z.object({ token: resetTokenSchema, password: passwordSchema });

export const changePasswordInput = z.object({
  currentPassword: z.string().min(1, "Enter your current password").max(200),
  newPassword: passwordSchema,
});

/** "Confirm your password" before a sensitive act. */
export const confirmPasswordInput = z.object({ password: z.string().min(1, "Enter your password").max(200) });

/**
 * The proof a password confirmation answers, sent with each sensitive act. Optional in the schema so
 * that a missing one is answered REAUTH_REQUIRED (which makes the page ask), not a validation error.
 */
export const reauthField = { reauth: z.string().max(200).optional() };
