import { hmacSha256Hex, safeEqual } from "@/server/lib/crypto";

/** The redirect signature: hex(HMAC_SHA256(signing_secret, orderId + "|" + paymentId + "|" + status)); the key is the whole `whsec_…` string. */
export function redirectSignature(signingSecret: string, orderId: string, paymentId: string, status: string): string {
  return hmacSha256Hex(Buffer.from(signingSecret, "utf8"), `${orderId}|${paymentId}|${status}`);
}

/** True if any currently valid secret (the current one, or the previous during its grace) produced it. */
export function matchesRedirectSignature(secrets: string[], orderId: string, paymentId: string, status: string, signature: string): boolean {
  const sig = signature.trim().toLowerCase();
  let ok = false;
  for (const s of secrets) if (safeEqual(redirectSignature(s, orderId, paymentId, status), sig)) ok = true;
  return ok;
}
