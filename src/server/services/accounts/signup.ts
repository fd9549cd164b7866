import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { sharedLimits } from "@/server/services/limits/shared";
import { createMerchant, type CreateMerchantInput } from "@/server/services/merchants/merchants";

const WINDOW_MS = 60 * 60_000;

/** Sign-ups from one address in the current hour, server-wide: seconds to wait, or 0. */
async function takeSignupSlot(address: string, limit: number, now: number): Promise<number> {
  const w = await sharedLimits().count(`signup|${address}`, WINDOW_MS, limit, now);
  return w.ok ? 0 : Math.max(1, Math.ceil((w.resetAt - now) / 1000));
}

/**
 * A new merchant from the public sign-up page, at most `limitPerHour` per client address: each one
 * creates keys and a funded sandbox wallet, so a stranger's are bounded.
 */
export async function signUpMerchant(db: Db, input: CreateMerchantInput, clientAddress: string | null, limitPerHour: number, now = Date.now()) {
  const wait = await takeSignupSlot(clientAddress ?? "unknown", limitPerHour, now);
  if (wait > 0) {
    throw new AppError("RATE_LIMITED", `Too many new accounts from this network. Try again in ${Math.ceil(wait / 60)} minutes.`, { retryAfterSeconds: wait });
  }
  return createMerchant(db, input);
}
