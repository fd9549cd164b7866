import type { KycKind } from "@/lib/kyc";
import type { AuditNote, RestAuth } from "@/server/rest/context";
import type { AppServices } from "@/server/services";
import { consentFor, type ConsentFields } from "@/server/services/consent/consent";
import type { KycCaller, KycVault } from "@/server/services/kyc/charge";

/**
 * Who is charged for a KYC call (the key's merchant and mode, at its fee for the kind), and the consent
 * it is made under. A live call without consent or purpose is refused here (422 CONSENT_REQUIRED),
 * before any hold on the wallet or vendor call.
 */
export function callerOf(auth: RestAuth, requestId: string, kind: KycKind, sent: ConsentFields): KycCaller {
  const consent = consentFor(auth.mode, sent, auth.consent);
  return { merchantId: auth.merchantId, mode: auth.mode, requestId, feePaise: auth.kycFees[kind], consent };
}

export function vaultOf(services: AppServices): KycVault {
  return {
    db: services.db,
    store: services.atomicWriter,
    encryptionKey: services.config.secrets.encryptionKey,
    retentionDays: services.config.kycResultRetentionDays,
  };
}

/** A charged answer, noted on the request's audit record: the door gives the fee back if the answer cannot be recorded. */
export function noteCharge<T extends { kycTransactionId: string }>(audit: AuditNote, data: T): T {
  audit.kycTransactionId = data.kycTransactionId;
  return data;
}
