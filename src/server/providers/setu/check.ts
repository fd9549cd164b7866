/**
 * The operator's check of Setu: per family, one read of a bank account verification by an id no
 * request has (`GET /api/verify/ban/{id}`, the async verification's "Get verification request
 * details"), which Setu neither bills nor records, sent with the family's own product instance.
 * The PAN product has no read of its own, so its check proves the credentials, the product
 * instance header and this server's address, not that the PAN product is enabled.
 *
 * Readings: an answer (2xx, or a 4xx such as 404 for the unknown id) → ok; 401, 403, or Setu's
 * codes for a missing header or an unknown product instance → misconfigured; a connect error, the
 * deadline, a 5xx, a 429 or an unreadable answer → unreachable.
 */
import { UpstreamAccountRefused, UpstreamFailure, type UpstreamClient } from "@/server/providers/upstream/client";
import { setuErrorCode, type SetuFamily } from "./client";

/** An id no verification request has (Setu's ids are random UUIDs). */
export const UNUSED_REQUEST_ID = "00000000-0000-0000-0000-000000000000";

export interface SetuCheck {
  family: SetuFamily;
  status: "ok" | "misconfigured" | "unreachable";
  detail: string;
  ms: number;
}

const SET_UP_PROBLEMS = new Set(["header-not-found", "unauthorised", "forbidden", "invalid-product-instance"]);

export async function checkSetuFamily(family: SetuFamily, client: UpstreamClient): Promise<SetuCheck> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const answer = await client.probe({ method: "GET", path: `/api/verify/ban/${UNUSED_REQUEST_ID}` });
    const code = setuErrorCode(answer.body);
    const what = `HTTP ${answer.status}${code ? ` ${code}` : ""}`;
    if (answer.status >= 400 && code !== null && SET_UP_PROBLEMS.has(code)) {
      return { family, status: "misconfigured", detail: `the vendor refused Parakh's set-up (${what})`, ms: took() };
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
