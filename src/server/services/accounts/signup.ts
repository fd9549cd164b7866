import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { createMerchant, type CreateMerchantInput } from "@/server/services/merchants/merchants";

const WINDOW_MS = 60 * 60_000;

const windows = new Map<string, { count: number; since: number }>();

function takeSignupSlot(address: string, limit: number, now: number): number {
  let w = windows.get(address);
  if (!w || now - w.since >= WINDOW_MS) {
    if (windows.size >= 50_000) for (const [k, v] of windows) if (now - v.since >= WINDOW_MS) windows.delete(k);
    if (windows.size >= 50_000) windows.delete(windows.keys().next().value!);
    w = { count: 0, since: now };
    windows.set(address, w);
  }
  if (w.count >= limit) return Math.ceil((w.since + WINDOW_MS - now) / 1000);
  w.count++;
  return 0;
}

/**
 * A new merchant from the public sign-up page, at most `limitPerHour` per client address: each one
 * creates keys and a funded sandbox wallet, so a stranger's are bounded.
 */
export async function signUpMerchant(db: Db, input: CreateMerchantInput, clientAddress: string | null, limitPerHour: number, now = Date.now()) {
  const wait = takeSignupSlot(clientAddress ?? "unknown", limitPerHour, now);
  if (wait > 0) {
    throw new AppError("RATE_LIMITED", `Too many new accounts from this network. Try again in ${Math.ceil(wait / 60)} minutes.`, { retryAfterSeconds: wait });
  }
  return createMerchant(db, input);
}
