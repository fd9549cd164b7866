import { createHmac, timingSafeEqual } from "node:crypto";
import { SignatureVerificationError } from "./errors.js";

/** hex(HMAC-SHA256(key, message)); the key is the whole `whsec_…` string as UTF-8 bytes. */
export function hmacHex(secret: string, message: Uint8Array | string): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(message).digest("hex");
}

/** Constant-time equality of two hex strings (false for different lengths). */
export function hexEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The secrets to try: one, or the current and the previous during a rotation. */
export function secretList(secret: string | readonly string[]): string[] {
  const list = (typeof secret === "string" ? [secret] : [...secret]).filter((s) => typeof s === "string" && s !== "");
  if (list.length === 0) throw new TypeError("a signing secret (whsec_…) is needed");
  return list;
}

export function refuse(code: string, message: string): never {
  throw new SignatureVerificationError({ code, message });
}
