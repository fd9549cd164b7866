import { AppError } from "@/server/errors";
import { hmacSha256Hex, safeEqual } from "@/server/lib/crypto";

/**
 * A results page link: the batch and the index the page starts at, with a MAC so a cursor cannot
 * be made up or moved to another batch. Opaque to the merchant.
 */
export function encodeResultsCursor(hashKey: string, batchId: string, index: number): string {
  const body = `${batchId}:${index}`;
  return `${Buffer.from(body, "utf8").toString("base64url")}.${mac(hashKey, body)}`;
}

/** The start index a cursor names; 400 for anything this server did not hand out for this batch. */
export function decodeResultsCursor(hashKey: string, batchId: string, cursor: string): number {
  const invalid = () => new AppError("VALIDATION_ERROR", "cursor is not a cursor this batch's results gave out.", { field: "cursor" });
  const [encoded, given, ...rest] = cursor.split(".");
  if (!encoded || !given || rest.length) throw invalid();
  const body = Buffer.from(encoded, "base64url").toString("utf8");
  if (!safeEqual(given, mac(hashKey, body))) throw invalid();
  const [id, index] = body.split(":");
  if (id !== batchId || !/^\d{1,5}$/.test(index ?? "")) throw invalid();
  return Number(index);
}

function mac(hashKey: string, body: string): string {
  return hmacSha256Hex(Buffer.from(hashKey, "base64"), `batch-cursor:${body}`).slice(0, 24);
}
