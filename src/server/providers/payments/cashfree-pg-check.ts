/**
 * The operator's check of the Cashfree Payment Gateway: one read of an order no one can have made
 * ("Get Order", GET /orders/{order_id}), which the vendor answers 404 `order_not_found` only once it
 * has accepted the credentials and this server's address. Parakh's orders are named by its payment
 * ids (`pay_…`), so the id below names none of them and creates nothing.
 *
 * Readings: 404, or any other answer (a 2xx, a 4xx) → ok; 401 or 403 → misconfigured; a connect
 * error, the deadline, a 5xx, a 429 or an unreadable answer → unreachable.
 */
import type { CashfreePgClient } from "@/server/providers/payments/cashfree-pg";
import { UpstreamAccountRefused, UpstreamFailure, vendorErrorCode, type UpstreamRequest } from "@/server/providers/upstream/client";

/** An order id no Parakh payment has (Parakh's start with `pay_`), in the vendor's order id alphabet. */
export const UNUSED_ORDER_ID = "parakh_providers_check";

export const PG_CHECK_REQUEST: UpstreamRequest = { method: "GET", path: `/orders/${UNUSED_ORDER_ID}` };

export interface PaymentsCheck {
  status: "ok" | "misconfigured" | "unreachable";
  /** The HTTP status and the vendor's error code, or the transport fault; never a credential or a vendor message. */
  detail: string;
  ms: number;
}

export async function checkCashfreePg(client: CashfreePgClient): Promise<PaymentsCheck> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const answer = await client.upstream.probe(PG_CHECK_REQUEST);
    const code = vendorErrorCode(answer.body);
    return { status: "ok", detail: `credentials accepted (HTTP ${answer.status}${code ? ` ${code}` : ""})`, ms: took() };
  } catch (err) {
    if (err instanceof UpstreamAccountRefused) {
      return { status: "misconfigured", detail: `the vendor refused Parakh's credentials or this server's address (${err.reason})`, ms: took() };
    }
    if (err instanceof UpstreamFailure) return { status: "unreachable", detail: err.message, ms: took() };
    throw err;
  }
}
