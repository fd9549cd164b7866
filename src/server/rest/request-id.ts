import { newId } from "@/server/lib/ids";
import { redactString } from "@/server/services/audit/redact";

const CLIENT_REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A sane client-supplied X-Request-Id is echoed; otherwise a fresh `req_…`. One that holds a card
 * or Aadhaar number or a secret key is replaced too: the id is stored and shown as it is.
 */
export function requestIdFrom(header: string | string[] | undefined): string {
  if (typeof header === "string" && CLIENT_REQUEST_ID.test(header) && redactString(header) === header) return header;
  return newId("req");
}
