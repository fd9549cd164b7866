import type { z } from "zod";
import { formatPaise } from "@/lib/money";
import type { profileInput } from "@/lib/schemas/account";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { bumpAuthEpoch } from "@/server/services/auth/auth-epoch";

/** The signed-in merchant's account as the dashboard shows it. */
export async function merchantAccount(db: Db, merchantId: string) {
  const m = await db.merchant.findUnique({ where: { id: merchantId }, include: { wallets: true } });
  if (!m) throw new AppError("NOT_FOUND", "This account no longer exists.");
  return {
    id: m.id,
    name: m.name,
    email: m.email,
    status: m.status as "ACTIVE" | "SUSPENDED",
    liveEnabled: m.liveEnabled,
    goLiveRequestedAt: m.goLiveRequestedAt,
    goLiveApprovedAt: m.goLiveApprovedAt,
    totpEnabled: m.totpEnabled,
    enforceWhitelistAll: m.enforceWhitelistAll,
    profile: {
      name: m.name,
      displayName: m.displayName ?? "",
      supportEmail: m.supportEmail ?? "",
      brandColor: m.brandColor ?? "",
      logoUrl: m.logoUrl ?? "",
      checkoutExpiryMinutes: m.checkoutExpiryMinutes,
      checkoutFrameOrigins: m.checkoutFrameOrigins ?? "",
    },
    wallets: m.wallets.map((w) => ({ mode: w.mode, balancePaise: w.balancePaise, balance: formatPaise(w.balancePaise) })),
  };
}

/** What the dashboard layout needs of the merchant on every page. */
export async function merchantHeader(db: Db, merchantId: string) {
  return db.merchant.findUnique({ where: { id: merchantId }, select: { name: true, email: true, status: true, liveEnabled: true } });
}

export async function updateMerchantProfile(db: Db, merchantId: string, input: z.output<typeof profileInput>) {
  await db.merchant.update({
    where: { id: merchantId },
    data: {
      name: input.name,
      displayName: input.displayName,
      supportEmail: input.supportEmail,
      brandColor: input.brandColor,
      logoUrl: input.logoUrl,
      checkoutExpiryMinutes: input.checkoutExpiryMinutes,
      checkoutFrameOrigins: input.checkoutFrameOrigins,
    },
  });
  // The REST door caches merchant settings with the keys; the default expiry is one of them.
  await bumpAuthEpoch(db);
}

/** Asks an operator to approve live mode; asking again keeps the first request's time. */
export async function requestGoLive(db: Db, merchantId: string) {
  const m = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { liveEnabled: true, goLiveRequestedAt: true } });
  if (m.liveEnabled) return { requestedAt: m.goLiveRequestedAt, alreadyLive: true };
  const requestedAt = m.goLiveRequestedAt ?? new Date();
  await db.merchant.update({ where: { id: merchantId }, data: { goLiveRequestedAt: requestedAt } });
  return { requestedAt, alreadyLive: false };
}
