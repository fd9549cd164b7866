import { z } from "zod";
import { reauthField } from "@/lib/schemas/security";

// Browser-safe schemas shared by the API keys page (client validation) and the keys router.

export const keyLabelSchema = z.string().trim().min(1, "Give the key a label, e.g. “Production server”").max(50, "Label must be at most 50 characters");

/** How long a rotated-out key keeps working: the choices the dashboard offers. */
export const ROTATION_GRACE_OPTIONS = [
  { seconds: 0, label: "Immediately" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "24 hours" },
  { seconds: 604_800, label: "7 days" },
] as const;

export const graceSecondsSchema = z.literal([0, 3600, 86_400, 604_800], { error: "Choose how long the old key keeps working" });

export const keyIdSchema = z.string().min(1).max(64);

export const createKeyInput = z.object({ label: keyLabelSchema, ...reauthField });
export const rotateKeyInput = z.object({ keyId: keyIdSchema, graceSeconds: graceSecondsSchema, ...reauthField });
export const revokeKeyInput = z.object({ keyId: keyIdSchema });

export type KeyStatus = "active" | "rotating" | "expired" | "revoked";

/** Where a key stands at `now`: rotating = replaced but still working until `expiresAt`. */
export function keyStatus(key: { revokedAt: string | Date | null; expiresAt: string | Date | null }, now = Date.now()): KeyStatus {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt) return new Date(key.expiresAt).getTime() <= now ? "expired" : "rotating";
  return "active";
}
