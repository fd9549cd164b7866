import type { KycKind } from "@/lib/kyc";
import type { AuditNote, RestAuth } from "@/server/rest/context";
import type { AppServices } from "@/server/services";
import type { KycCaller, KycVault } from "@/server/services/kyc/charge";

/** Who is charged for a KYC call (the key's merchant and mode, at its fee for the kind). */
export function callerOf(auth: RestAuth, requestId: string, kind: KycKind): KycCaller {
  return { merchantId: auth.merchantId, mode: auth.mode, requestId, feePaise: auth.kycFees[kind] };
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
