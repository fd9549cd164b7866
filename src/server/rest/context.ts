import type { KycFees } from "@/lib/kyc";
import type { Mode } from "@/lib/mode";
import type { AppServices } from "@/server/services";
import type { VerificationRecord } from "@/server/services/audit/audit-writer";
import type { PreparedBatchItems } from "@/server/services/batches/batches";
import type { AuthScheme } from "@/server/rest/meta";
import type { StandingConsent } from "@/server/services/consent/consent";

/** The API key the door accepted for a request, and the merchant settings hot paths need (from the auth cache). */
export interface RestAuth {
  scheme: AuthScheme;
  merchantId: string;
  apiKeyId: string;
  mode: Mode;
  checkoutExpiryMinutes: number;
  kycFees: KycFees;
  /** The merchant's default purpose and standing consent attestation (C6). */
  consent: StandingConsent;
}

/** What the request's audit record takes from the operation: the verification it made, and the KYC call it charged, if any. */
export interface AuditNote {
  verification: VerificationRecord | null;
  /** Given back by the door when the answer cannot be recorded (and so is never sent). */
  kycTransactionId: string | null;
}

/** A REST procedure's context: built by the door once the caller's key is accepted. */
export interface RestContext {
  services: AppServices;
  auth: RestAuth;
  requestId: string;
  audit: AuditNote;
  /** A batch route's items, validated and cut into chunks as the door read the body (its input holds a stand-in). */
  preparedBatch?: PreparedBatchItems | null;
}
