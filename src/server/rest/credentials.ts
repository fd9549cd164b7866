import type { IncomingHttpHeaders } from "node:http";
import { AppError, isAppError } from "@/server/errors";
import { safeEqual } from "@/server/lib/crypto";
import type { RestAuth } from "@/server/rest/context";
import type { AppServices } from "@/server/services";
import { modeOfKey } from "@/server/services/auth/api-keys";
import { requireLiveEnabled } from "@/server/services/merchants/live-mode";
import type { CachedKey } from "@/server/services/auth/auth-cache";
import type { AuthScheme } from "@/server/rest/meta";

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return typeof v === "string" && v.length > 0 && v.length <= 512 ? v.trim() : undefined;
}

/** A key pair sent as public + secret: both must be one pair of one mode. */
async function keyPair(services: AppServices, publicKey: string, secret: string): Promise<CachedKey | null> {
  const mode = modeOfKey(secret, "sk");
  if (!mode || modeOfKey(publicKey, "pk") !== mode) return null;
  const key = await services.authCache.bySecret(secret);
  return key && safeEqual(key.publicKey, publicKey) ? key : null;
}

/**
 * The API key a request's headers name, for the operation's scheme. Runs before the body is read,
 * so a caller without valid credentials never gets a body stored or parsed.
 */
export async function identifyKey(services: AppServices, scheme: AuthScheme, headers: IncomingHttpHeaders): Promise<CachedKey> {
  switch (scheme) {
    case "bearer": {
      const match = /^Bearer\s+(\S+)$/i.exec(header(headers, "authorization") ?? "");
      const secret = match?.[1];
      if (!secret || !modeOfKey(secret, "sk")) throw new AppError("UNAUTHORIZED", "Send your secret key as Authorization: Bearer sk_test_… or sk_live_….");
      const key = await services.authCache.bySecret(secret);
      if (!key) throw new AppError("UNAUTHORIZED", "The API key is not valid, has expired or was revoked.");
      return key;
    }
    case "merchant": {
      const merchantId = header(headers, "x-merchant-id");
      const publicKey = header(headers, "x-api-key");
      const secret = header(headers, "x-secret-key");
      if (!merchantId || !publicKey || !secret) throw new AppError("UNAUTHORIZED", "Send x-merchant-id, x-api-key and x-secret-key.");
      const key = await keyPair(services, publicKey, secret);
      if (!key || !safeEqual(key.merchantId, merchantId)) throw new AppError("UNAUTHORIZED", "The merchant id and key pair do not match a valid API key.");
      return key;
    }
    case "kyc": {
      // Server-to-server only: a browser always sends Origin on these requests.
      if (headers.origin !== undefined) throw new AppError("BROWSER_REQUEST_FORBIDDEN");
      const publicKey = header(headers, "x-api-key");
      const secret = header(headers, "x-api-secret");
      if (!publicKey || !secret) throw new AppError("UNAUTHORIZED", "Send x-api-key and x-api-secret.");
      const key = await keyPair(services, publicKey, secret);
      if (!key) throw new AppError("UNAUTHORIZED", "The key pair does not match a valid API key.");
      return key;
    }
  }
}

export function restAuthOf(key: CachedKey, scheme: AuthScheme): RestAuth {
  return {
    scheme,
    merchantId: key.merchantId,
    apiKeyId: key.id,
    mode: key.mode,
    checkoutExpiryMinutes: key.merchant.checkoutExpiryMinutes,
    kycFees: key.merchant.kycFees,
    consent: key.merchant.consent,
  };
}

/** What applies to every valid key: suspension, go-live, the IP whitelist, the per-key rate limit. */
export async function admitKey(services: AppServices, key: CachedKey, scheme: AuthScheme, clientIp: string) {
  if (key.merchant.status !== "ACTIVE") throw new AppError("MERCHANT_SUSPENDED");
  requireLiveEnabled(key.mode, key.merchant.liveEnabled);
  // Payments always check the whitelist; /v1 and KYC only when the merchant turns it on for them.
  const enforce = scheme === "merchant" || key.merchant.enforceWhitelistAll;
  if (enforce && !key.merchant.whitelist.has(clientIp)) {
    throw new AppError("IP_NOT_WHITELISTED", `The IP address ${clientIp} is not on this merchant's whitelist.`);
  }
  const wait = await services.rateLimiter.take(key.id);
  if (wait > 0) throw new AppError("RATE_LIMITED", undefined, { retryAfterSeconds: wait });
}

/**
 * The key a request to no route (404, 405) carries, if any valid one: such a caller is answered, and
 * its request recorded in its log, without counting against its address as a stranger's would.
 */
export async function knownCaller(services: AppServices, headers: IncomingHttpHeaders): Promise<{ key: CachedKey; scheme: AuthScheme } | null> {
  const schemes: AuthScheme[] = [];
  if (headers.authorization !== undefined) schemes.push("bearer");
  if (headers["x-merchant-id"] !== undefined) schemes.push("merchant");
  if (headers["x-api-secret"] !== undefined) schemes.push("kyc");
  for (const scheme of schemes) {
    try {
      return { key: await identifyKey(services, scheme, headers), scheme };
    } catch (err) {
      if (!isAppError(err)) throw err;
    }
  }
  return null;
}
