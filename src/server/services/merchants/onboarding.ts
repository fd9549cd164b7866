import { MODES } from "@/lib/mode";
import type { Db } from "@/server/db/client";

/** The first-day steps, in the order a merchant meets them. */
export const ONBOARDING_STEPS = [
  "sandboxKeyUsed",
  "firstVerification",
  "serverIpWhitelisted",
  "firstTestPayment",
  "webhookEndpoint",
  "goLiveRequested",
] as const;
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number];

/** How far back, and among how many of the newest calls per mode, a refused call is looked for. */
export const REFUSED_CALL_LOOKBACK_MS = 7 * 24 * 3600 * 1000;
export const REFUSED_CALL_SCAN = 1000;

export interface RefusedCall {
  clientIp: string;
  method: string;
  path: string;
  at: Date;
}

export interface OnboardingProgress {
  done: Record<OnboardingStep, boolean>;
  /** The newest call refused for its address, while the whitelist is still empty. */
  lastRefused: RefusedCall | null;
}

/**
 * Where a merchant stands on the first-day checklist, read from what is stored: a call made with a
 * sandbox key (so the secret was kept), a PAN or EPFO check, a whitelist entry, a sandbox payment, a
 * webhook endpoint and a go-live request.
 */
export async function onboardingProgress(db: Db, merchantId: string, now = new Date()): Promise<OnboardingProgress> {
  const [merchant, keyUsed, keyCall, verification, whitelist, payment, endpoint] = await Promise.all([
    db.merchant.findUnique({ where: { id: merchantId }, select: { goLiveRequestedAt: true, liveEnabled: true } }),
    db.apiKey.findFirst({ where: { merchantId, mode: "sandbox", lastUsedAt: { not: null } }, select: { id: true } }),
    // lastUsedAt is written a few seconds late; the request log has the call within a second.
    db.auditLog.findFirst({ where: { merchantId, mode: "sandbox", apiKeyId: { not: null } }, select: { id: true } }),
    // Either kind: a merchant that only checks employment (EPFO) has made its first call too.
    db.verification.findFirst({ where: { merchantId, mode: { in: ["sandbox", "live"] } }, select: { id: true } }),
    db.ipWhitelistEntry.findFirst({ where: { merchantId }, select: { id: true } }),
    db.payment.findFirst({ where: { merchantId, mode: "sandbox" }, select: { id: true } }),
    db.webhookEndpoint.findFirst({ where: { merchantId }, select: { id: true } }),
  ]);
  const done: Record<OnboardingStep, boolean> = {
    sandboxKeyUsed: keyUsed !== null || keyCall !== null,
    firstVerification: verification !== null,
    serverIpWhitelisted: whitelist !== null,
    firstTestPayment: payment !== null,
    webhookEndpoint: endpoint !== null,
    goLiveRequested: merchant !== null && (merchant.goLiveRequestedAt !== null || merchant.liveEnabled),
  };
  const lastRefused = done.serverIpWhitelisted ? null : await lastRefusedCall(db, merchantId, now);
  return { done, lastRefused };
}

async function lastRefusedCall(db: Db, merchantId: string, now: Date): Promise<RefusedCall | null> {
  // The newest calls per mode, read in index order, so a busy account costs a bounded read on every
  // poll; a refusal further back than that is not offered (the whitelist page still takes it).
  const since = new Date(now.getTime() - REFUSED_CALL_LOOKBACK_MS);
  const recent = await Promise.all(
    MODES.map((mode) =>
      db.auditLog.findMany({
        where: { merchantId, mode, createdAt: { gte: since } },
        orderBy: { createdAt: "desc" },
        take: REFUSED_CALL_SCAN,
        select: { clientIp: true, method: true, path: true, createdAt: true, errorCode: true },
      }),
    ),
  );
  const refused = recent
    .flat()
    .filter((r) => r.errorCode === "IP_NOT_WHITELISTED")
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
  return refused ? { clientIp: refused.clientIp, method: refused.method, path: refused.path.split("?")[0]!, at: refused.createdAt } : null;
}
