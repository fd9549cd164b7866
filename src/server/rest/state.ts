import type { IncomingMessage } from "node:http";
import type { Mode } from "@/lib/mode";
import type { KycFees } from "@/lib/kyc";
import type { EnvelopeKind } from "@/server/rest/envelope";
import type { VerificationRecord } from "@/server/services/audit/audit-writer";

export interface RestAuth {
  merchantId: string;
  apiKeyId: string;
  mode: Mode;
  /** Merchant settings the hot paths need, from the auth cache (no database read). */
  checkoutExpiryMinutes: number;
  kycFees: KycFees;
}

/** Everything the REST door knows about one request, shared by the door and the middlewares. */
export interface RestState {
  requestId: string;
  kind: EnvelopeKind;
  method: string;
  path: string;
  clientIp: string;
  userAgent: string | null;
  startedAt: number;
  rawBody: Buffer | null;
  /** The matched route's path parameters, decoded once; they replace the adapter's raw ones. */
  pathParams?: Record<string, string>;
  /** Status and headers the procedure chain decided; applied by responseMeta. */
  status: number;
  headers: Record<string, string>;
  errorCode: string | null;
  auth: RestAuth | null;
  verification: VerificationRecord | null;
  /** Set on an idempotent replay so the stored response is sent as it was. */
  replayed: boolean;
  /** The envelope to send instead of what the adapter wrote (its own refusals). */
  replacementBody?: string;
  /** A stranger's refusal past the address's limit: answered, counted, not stored. */
  unrecorded?: boolean;
}

const states = new WeakMap<IncomingMessage, RestState>();

export function attachRestState(req: IncomingMessage, state: RestState) {
  states.set(req, state);
}

export function restStateOf(req: IncomingMessage): RestState | undefined {
  return states.get(req);
}
