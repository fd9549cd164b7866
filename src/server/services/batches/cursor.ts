import { AppError } from "@/server/errors";
import { hmacSha256Hex, safeEqual } from "@/server/lib/crypto";
import type { BatchItemStatus } from "./batches";

/**
 * A results page link: the batch, the index the page starts at and the status filter the page was
 * asked with (none for the plain listing), with a MAC so a cursor cannot be made up, moved to
 * another batch or carried to another filter. Opaque to the merchant.
 */
export function encodeResultsCursor(hashKey: string, batchId: string, index: number, status?: BatchItemStatus): string {
  const body = status ? `${batchId}:${index}:${status}` : `${batchId}:${index}`;
  return `${Buffer.from(body, "utf8").toString("base64url")}.${mac(hashKey, body)}`;
}

/** The start index a cursor names; 400 for anything this server did not hand out for this batch and filter. */
export function decodeResultsCursor(hashKey: string, batchId: string, cursor: string, status?: BatchItemStatus): number {
  const invalid = () => new AppError("VALIDATION_ERROR", "cursor is not a cursor this batch's results gave out.", { field: "cursor" });
  const [encoded, given, ...rest] = cursor.split(".");
  if (!encoded || !given || rest.length) throw invalid();
  const body = Buffer.from(encoded, "base64url").toString("utf8");
  if (!safeEqual(given, mac(hashKey, body))) throw invalid();
  const [id, index, filter, ...more] = body.split(":");
  if (id !== batchId || !/^\d{1,5}$/.test(index ?? "") || more.length) throw invalid();
  if ((filter ?? null) !== (status ?? null)) {
    throw new AppError("VALIDATION_ERROR", "cursor was given out for another status filter; pass the same status as the page it came from.", {
      field: "cursor",
    });
  }
  return Number(index);
}

function mac(hashKey: string, body: string): string {
  return hmacSha256Hex(Buffer.from(hashKey, "base64"), `batch-cursor:${body}`).slice(0, 24);
}
