import type { ConsentSettingsInput } from "@/lib/consent";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { log } from "@/server/lib/logger";
import { bumpAuthEpoch } from "@/server/services/auth/auth-epoch";
import type { StandingConsent } from "@/server/services/consent/consent";

/** The merchant's consent settings as the dashboard shows them: the default purpose and since when the standing attestation holds. */
export async function consentSettings(db: Db, merchantId: string) {
  const m = await db.merchant.findUnique({ where: { id: merchantId }, select: { consentPurpose: true, consentStandingAt: true } });
  if (!m) throw new AppError("NOT_FOUND", "This account no longer exists.");
  return { purpose: m.consentPurpose, standing: m.consentStandingAt !== null, standingSince: m.consentStandingAt };
}

/** The settings as the checks apply them (the REST door has them from its key cache; the dashboard reads them). */
export async function standingConsentOf(db: Db, merchantId: string): Promise<StandingConsent> {
  const { purpose, standing } = await consentSettings(db, merchantId);
  return { purpose, standing };
}

/**
 * Sets the default purpose and the standing attestation. The attestation keeps the time it was first
 * given while it stays on (it is what a past check rested on); turning it off clears it. Every change
 * is logged with the merchant and what changed, and applies to API calls within a second (the key
 * cache holds these settings, so the auth epoch moves).
 */
export async function updateConsentSettings(db: Db, merchantId: string, input: ConsentSettingsInput) {
  const before = await db.merchant.findUnique({ where: { id: merchantId }, select: { consentPurpose: true, consentStandingAt: true } });
  if (!before) throw new AppError("NOT_FOUND", "This account no longer exists.");
  const standingAt = input.standing ? (before.consentStandingAt ?? new Date()) : null;
  await db.merchant.update({ where: { id: merchantId }, data: { consentPurpose: input.purpose, consentStandingAt: standingAt } });
  await bumpAuthEpoch(db);
  log.info("consent settings changed", {
    merchantId,
    purpose: input.purpose,
    purposeChanged: input.purpose !== before.consentPurpose,
    standing: input.standing,
    standingSince: standingAt?.toISOString() ?? null,
    standingWas: before.consentStandingAt !== null,
  });
  return consentSettings(db, merchantId);
}
