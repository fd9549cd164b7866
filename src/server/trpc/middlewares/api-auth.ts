import type { IncomingMessage } from "node:http";
import { AppError } from "@/server/errors";
import { safeEqual } from "@/server/lib/crypto";
import type { RestState } from "@/server/rest/state";
import type { AppServices } from "@/server/services";
import { modeOfKey } from "@/server/services/auth/api-keys";
import type { CachedKey } from "@/server/services/auth/auth-cache";
import { t } from "@/server/trpc/init";

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === "string" && v.length > 0 && v.length <= 512 ? v.trim() : undefined;
}

/** Checks that apply to every credential once the key is known (B1, B2). */
function admit(services: AppServices, rest: RestState, key: CachedKey, whitelist: "always" | "if-enabled") {
  // Known from here on, so refused calls (suspended, IP, rate limit) still show in the merchant's log.
  rest.auth = { merchantId: key.merchantId, apiKeyId: key.id, mode: key.mode, checkoutExpiryMinutes: key.merchant.checkoutExpiryMinutes };
  if (key.merchant.status !== "ACTIVE") throw new AppError("MERCHANT_SUSPENDED");
  if (key.mode === "live" && !key.merchant.liveEnabled) throw new AppError("LIVE_MODE_NOT_ENABLED");
  const enforce = whitelist === "always" || key.merchant.enforceWhitelistAll;
  if (enforce && !key.merchant.whitelist.has(rest.clientIp)) {
    throw new AppError("IP_NOT_WHITELISTED", `The IP address ${rest.clientIp} is not on this merchant's whitelist.`);
  }
  const wait = services.rateLimiter.take(key.id);
  if (wait > 0) throw new AppError("RATE_LIMITED", undefined, { retryAfterSeconds: wait });
}

function restOf(ctx: { rest: RestState | null; req: IncomingMessage | null }) {
  if (!ctx.rest || !ctx.req) throw new AppError("INTERNAL_ERROR");
  return { rest: ctx.rest, req: ctx.req };
}

/** `/v1`: `Authorization: Bearer sk_…`. */
export const bearerAuth = t.middleware(async ({ ctx, next }) => {
  const { rest, req } = restOf(ctx);
  const authz = header(req, "authorization");
  const match = authz ? /^Bearer\s+(\S+)$/i.exec(authz) : null;
  const secret = match?.[1];
  if (!secret || !modeOfKey(secret, "sk")) throw new AppError("UNAUTHORIZED", "Send your secret key as Authorization: Bearer sk_test_… or sk_live_….");
  const key = await ctx.services.authCache.bySecret(secret);
  if (!key) throw new AppError("UNAUTHORIZED", "The API key is not valid, has expired or was revoked.");
  admit(ctx.services, rest, key, "if-enabled");
  return next();
});

/** Payments: `x-merchant-id`, `x-api-key` (pk), `x-secret-key` (sk) of one key pair, from a whitelisted IP. */
export const merchantAuth = t.middleware(async ({ ctx, next }) => {
  const { rest, req } = restOf(ctx);
  const merchantId = header(req, "x-merchant-id");
  const publicKey = header(req, "x-api-key");
  const secret = header(req, "x-secret-key");
  if (!merchantId || !publicKey || !secret) {
    throw new AppError("UNAUTHORIZED", "Send x-merchant-id, x-api-key and x-secret-key.");
  }
  const mode = modeOfKey(secret, "sk");
  const key = mode && modeOfKey(publicKey, "pk") === mode ? await ctx.services.authCache.bySecret(secret) : null;
  if (!key || !safeEqual(key.publicKey, publicKey) || !safeEqual(key.merchantId, merchantId)) {
    throw new AppError("UNAUTHORIZED", "The merchant id and key pair do not match a valid API key.");
  }
  admit(ctx.services, rest, key, "always");
  return next();
});

/** KYC: server-only; `x-api-key` + `x-api-secret`, and the body's `merchantId` must be the key's merchant. */
export const kycAuth = t.middleware(async ({ ctx, next, getRawInput }) => {
  const { rest, req } = restOf(ctx);
  if (req.headers.origin !== undefined) throw new AppError("BROWSER_REQUEST_FORBIDDEN");
  const publicKey = header(req, "x-api-key");
  const secret = header(req, "x-api-secret");
  if (!publicKey || !secret) throw new AppError("UNAUTHORIZED", "Send x-api-key and x-api-secret.");
  const mode = modeOfKey(secret, "sk");
  const key = mode && modeOfKey(publicKey, "pk") === mode ? await ctx.services.authCache.bySecret(secret) : null;
  if (!key || !safeEqual(key.publicKey, publicKey)) {
    throw new AppError("UNAUTHORIZED", "The key pair does not match a valid API key.");
  }
  const raw = (await getRawInput()) as { merchantId?: unknown } | undefined;
  if (typeof raw?.merchantId === "string" && raw.merchantId !== key.merchantId) {
    throw new AppError("MERCHANT_MISMATCH");
  }
  admit(ctx.services, rest, key, "if-enabled");
  return next();
});
