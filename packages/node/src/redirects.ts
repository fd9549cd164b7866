import { hexEqual, hmacHex, refuse, secretList } from "./signatures.js";
import type { PaymentStatus } from "./types.js";

/** A redirect's query: a URL or query string, `URLSearchParams`, or a parsed object such as Express's `req.query`. */
export type RedirectQuery = string | { get(name: string): string | null } | Record<string, unknown>;

export interface VerifiedRedirect {
  paymentId: string;
  orderId: string;
  status: PaymentStatus["status"];
}

function reader(query: RedirectQuery): (name: string) => string | undefined {
  if (typeof query === "string") {
    const search = query.includes("?") ? query.slice(query.indexOf("?") + 1) : query;
    const params = new URLSearchParams(search.split("#")[0]);
    return (name) => params.get(name) ?? undefined;
  }
  if (typeof (query as { get?: unknown }).get === "function") return (name) => (query as { get(n: string): string | null }).get(name) ?? undefined;
  return (name) => {
    const v = (query as Record<string, unknown>)[name];
    return typeof v === "string" ? v : undefined;
  };
}

/**
 * Checks the signature Parakh put on a checkout redirect
 * (`signature = hex(HMAC-SHA256(signing secret, orderId + "|" + paymentId + "|" + status))`) and returns
 * the three values it covers; anything else raises `SignatureVerificationError`. A valid signature says
 * Parakh sent the customer back with this status: act on `payments.retrieve` (or `payments.verify`)
 * before shipping, as the status of a payment can still move on (a late success after FAILED).
 */
export function verifyRedirect(query: RedirectQuery, secret: string | readonly string[]): VerifiedRedirect {
  const secrets = secretList(secret);
  const get = reader(query);
  const [paymentId, orderId, status, signature] = ["paymentId", "orderId", "status", "signature"].map(get);
  if (!paymentId || !orderId || !status || !signature) refuse("REDIRECT_SIGNATURE_MISSING", "The redirect needs paymentId, orderId, status and signature");
  const given = signature.trim().toLowerCase();
  let ok = false;
  for (const s of secrets) if (hexEqual(hmacHex(s, `${orderId}|${paymentId}|${status}`), given)) ok = true;
  if (!ok) refuse("REDIRECT_SIGNATURE_INVALID", "The redirect's signature does not match under the given secret(s)");
  return { paymentId, orderId, status: status as VerifiedRedirect["status"] };
}
