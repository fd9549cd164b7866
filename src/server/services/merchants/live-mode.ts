import type { Mode } from "@/lib/mode";
import { AppError } from "@/server/errors";

/**
 * The one live-mode gate: live keys, live dashboard views and live exports work only after an
 * operator approves the merchant's go-live.
 */
export function requireLiveEnabled(mode: Mode, liveEnabled: boolean) {
  if (mode === "live" && !liveEnabled) throw new AppError("LIVE_MODE_NOT_ENABLED");
}
