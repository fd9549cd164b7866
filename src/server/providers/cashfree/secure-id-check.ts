/**
 * The operator's check of Cashfree Secure ID: per family, one read of a verification's status by a
 * reference id no verification has, which the vendor neither bills nor records.
 *
 *   pan, epfo, aadhaar   GET /pan/0                     "Get Status" of Verify PAN Sync
 *   bank                 GET /bank-account?reference_id=0  "Get BAV Status V2"
 *
 * The vendor numbers its reference ids from 1, so 0 is a well-formed id that the lookup (and so
 * the account behind the credentials) must be reached to refuse. EPFO and Aadhaar OTP have no status
 * read of their own: their check reads the PAN status through their own client, which proves the
 * credentials and this server's address, not that the product is enabled on the account.
 *
 * Readings: an answer (2xx, or a 4xx such as 404 "not found") → ok; 401, 403, or a 4xx whose code
 * says Parakh's account is wrong (test keys on the live host, a product not enabled) → misconfigured;
 * a connect error, the deadline, a 5xx, a 429 or an unreadable answer → unreachable.
 */
import { UpstreamAccountRefused, UpstreamFailure, vendorErrorCode, type UpstreamClient, type UpstreamRequest } from "@/server/providers/upstream/client";
import { isAccountProblem, type SecureIdFamily } from "@/server/providers/cashfree/secure-id";
import { PAN_API_VERSION } from "@/server/providers/cashfree/pan";

/** A reference id that names no verification. */
export const UNUSED_REFERENCE_ID = "0";

const PAN_STATUS_READ: UpstreamRequest = { method: "GET", path: `/pan/${UNUSED_REFERENCE_ID}`, headers: { "x-api-version": PAN_API_VERSION } };

export const SECURE_ID_CHECK_REQUESTS: Record<SecureIdFamily, UpstreamRequest> = {
  pan: PAN_STATUS_READ,
  epfo: PAN_STATUS_READ,
  aadhaar: PAN_STATUS_READ,
  bank: { method: "GET", path: `/bank-account?reference_id=${UNUSED_REFERENCE_ID}` },
};

/** One family's answer to its check (a family of src/server/providers/check.ts's report). */
export interface SecureIdCheck {
  family: SecureIdFamily;
  status: "ok" | "misconfigured" | "unreachable";
  /** The HTTP status and the vendor's error code, or the transport fault; never a credential or a vendor message. */
  detail: string;
  ms: number;
}

export async function checkSecureIdFamily(family: SecureIdFamily, client: UpstreamClient): Promise<SecureIdCheck> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const answer = await client.probe(SECURE_ID_CHECK_REQUESTS[family]);
    const code = vendorErrorCode(answer.body);
    const what = `HTTP ${answer.status}${code ? ` ${code}` : ""}`;
    if (answer.status >= 400 && isAccountProblem(code)) {
      return { family, status: "misconfigured", detail: `the vendor refused Parakh's account (${what})`, ms: took() };
    }
    return { family, status: "ok", detail: `credentials accepted (${what})`, ms: took() };
  } catch (err) {
    if (err instanceof UpstreamAccountRefused) {
      return { family, status: "misconfigured", detail: `the vendor refused Parakh's credentials or this server's address (${err.reason})`, ms: took() };
    }
    if (err instanceof UpstreamFailure) return { family, status: "unreachable", detail: err.message, ms: took() };
    throw err;
  }
}
