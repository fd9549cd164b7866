import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";

export const MAX_FRAME_ORIGINS = 10;

/**
 * A merchant's list of origins allowed to embed its hosted checkout: https origins only (scheme,
 * host, optional port; no path), plus http://localhost for sandbox testing. Returns the normalised
 * list, or throws VALIDATION_ERROR naming the first bad entry.
 */
export function parseFrameOrigins(input: string): string[] {
  const entries = input.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
  if (entries.length > MAX_FRAME_ORIGINS) throw new AppError("VALIDATION_ERROR", `List at most ${MAX_FRAME_ORIGINS} origins.`, { field: "checkoutFrameOrigins" });
  const out: string[] = [];
  for (const entry of entries) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new AppError("VALIDATION_ERROR", `${entry.slice(0, 80)} is not an origin like https://shop.example.com.`, { field: "checkoutFrameOrigins" });
    }
    const local = url.protocol === "http:" && (url.hostname === "localhost" || url.hostname === "127.0.0.1");
    const bare = url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
    if ((url.protocol !== "https:" && !local) || !bare || url.hostname.includes("*")) {
      throw new AppError("VALIDATION_ERROR", `${entry.slice(0, 80)} must be an https origin (scheme and host, no path), e.g. https://shop.example.com.`, { field: "checkoutFrameOrigins" });
    }
    if (!out.includes(url.origin)) out.push(url.origin);
  }
  return out;
}

/** Origins that may frame a payment's hosted checkout page; none when the payment is unknown. */
export async function checkoutFrameAncestors(db: Db, paymentId: string): Promise<string[]> {
  const p = await db.payment.findUnique({ where: { id: paymentId }, select: { merchantId: true } });
  if (!p) return [];
  const m = await db.merchant.findUnique({ where: { id: p.merchantId }, select: { checkoutFrameOrigins: true } });
  const stored = m?.checkoutFrameOrigins;
  if (!stored) return [];
  try {
    return parseFrameOrigins(stored);
  } catch {
    return [];
  }
}

export async function setCheckoutFrameOrigins(db: Db, merchantId: string, input: string): Promise<string[]> {
  const origins = parseFrameOrigins(input);
  await db.merchant.update({ where: { id: merchantId }, data: { checkoutFrameOrigins: origins.length ? origins.join(" ") : null } });
  return origins;
}
